"""The seeded names of a package made from a library: the package, one per surface function (classes get a
capitalised name), the package's iterator type and the key of the encoded table (docs/libraries.md).

Names come from obfuscate's NameGenerator (its bans: keywords, builtins, standard modules, NumPy's names,
English words) with the library's own names and leak words banned too, so no public name is an original one.
"""

from __future__ import annotations

import importlib
import inspect
import random
from dataclasses import dataclass, field

from sebench.errors import SebenchError
from sebench.libraries.contract import Library
from sebench.obfuscate import NameGenerator, check_package_name


@dataclass(frozen=True)
class LibraryNames:
    """Every identifier of one instance made from a library other than NumPy."""

    package: str
    iterator_type: str  # the package's class for the library's iterators and generators
    key: int  # the seed-derived key of the encoded table
    functions: dict = field(default_factory=dict)  # {"more_itertools.chunked": "zwc.kocito", ...}
    types: dict = field(default_factory=dict)  # {"more_itertools.peekable": "zwc.Bafodi", ...}

    def public(self) -> dict[str, str]:
        """Every surface key -> its public dotted name (functions and classes)."""
        return {**self.functions, **self.types}


def original_object(key: str):
    """The library's object behind a surface key ("more_itertools.chunked"); one line when it is missing."""
    module, _, name = key.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise SebenchError(f"library surface: '{key}' cannot be imported ({exc})") from None


def library_words(library: Library) -> set[str]:
    """The original's own names, which no public name may be: its module's attributes, the surface's names,
    the module path and the leak words."""
    module = importlib.import_module(library.module)
    words = set(dir(module)) | set(library.module.split(".")) | set(library.leak_words)
    return words | {fn.name for fn in library.surface()}


def generate_library_names(library: Library, seed: int, package_name: str | None = None) -> LibraryNames:
    """All names of an instance of `library`; the same library and seed give the same names, and NumPy's
    instance of the same seed other ones."""
    if package_name is not None:
        check_package_name(package_name)
        if package_name in library_words(library):
            raise SebenchError(f"package name '{package_name}': a name of the original library; pick another")
    stream = f"{library.name}:{seed}"  # another library's instance of the same seed gets other names
    gen = NameGenerator(stream, taken=library_words(library) | ({package_name} if package_name else set()))
    package = package_name or gen.fresh((2, 2), 1.0)
    iterator_type = gen.fresh((3, 3), 1.0).capitalize()
    functions, types = {}, {}
    for fn in library.surface():
        if fn.group:
            raise SebenchError(f"library {library.name}: '{fn.key}' has group '{fn.group}'; the generic builder "
                               "puts every function at the package's root (leave group empty)")
        if inspect.isclass(original_object(fn.key)):
            types[fn.key] = f"{package}.{gen.fresh((2, 3), 1.0).capitalize()}"
        else:
            functions[fn.key] = f"{package}.{gen.fresh()}"
    key = random.Random(f"sebench-key-{stream}").getrandbits(64) | 1
    return LibraryNames(package, iterator_type, key, functions, types)

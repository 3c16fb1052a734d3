"""The library contract: what a Python library gives to become a pseudo-novel package (docs/libraries.md).

A `Library` is plain data plus a few callables. sebench's builder renames its surface with seeded names,
writes a package whose runtime wraps every value that crosses the surface, rewrites its docs, generates
tasks from its templates (each reference checked against the original), and audits everything a model can
see for a path back to the original. NumPy is one library under this contract (`sebench.libraries.numpy`);
a user's library is given to `sebench build --library module:attr` without editing sebench.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sebench.tasks import Template


@dataclass(frozen=True)
class ApiFunction:
    """One public function of the library.

    key:   the mapping.json key, the original's dotted path ("more_itertools.chunked").
    group: "" when the public name lives at the package's root, else the submodule it lives in ("linalg").
    """

    key: str
    group: str = ""

    @property
    def name(self) -> str:
        return self.key.rpartition(".")[2]


@dataclass(frozen=True)
class Library:
    """What a library gives (each field documented in docs/libraries.md).

    name:       the registry name (`--library NAME`), e.g. "more-itertools".
    module:     the original's import name, e.g. "more_itertools"; the generated package imports it, a
                program under test may not (nor any name in `forbidden_imports`).
    surface:    the public functions, in a fixed order (the names are drawn in this order).
    templates:  the task families: single- and multi-function templates whose bodies call the surface by
                `{name}` (tasks.Template with `library=module`).
    doc:        the original docstring of a key (rewritten and audited by the builder).
    leak_words: words beyond the function names that nothing a model sees may contain: type names, module
                paths, names of helpers that appear in reprs or error messages.
    forbidden_imports: modules besides `module` that programs under test may not import (its vendored or
                accelerated twins, e.g. "cytoolz" for "toolz").
    version:    the installed original's version (recorded in the manifest).
    """

    name: str
    module: str
    surface: Callable[[], tuple[ApiFunction, ...]]
    templates: Callable[[], tuple[Template, ...]]
    doc: Callable[[str], str]
    version: Callable[[], str]
    leak_words: frozenset[str] = field(default_factory=frozenset)
    forbidden_imports: tuple[str, ...] = ()

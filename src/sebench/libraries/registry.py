"""Finding a library by its name: a built-in, an installed entry point (group `sebench.libraries`) or a
module attribute (`pkg.module:attr`), as lm-evaluation-harness's registry resolves tasks.

Built-ins are "module:attr" strings, imported only when asked, so naming one library never imports the
others' originals.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import traceback

from sebench.errors import SebenchError
from sebench.libraries.contract import ApiFunction, Library
from sebench.tasks import Template

ENTRY_POINT_GROUP = "sebench.libraries"
DEFAULT_LIBRARY = "numpy"

BUILTINS = {
    "numpy": "sebench.libraries.numpy:LIBRARY",
    "more-itertools": "sebench.libraries.more_itertools:LIBRARY",
}


def entry_points() -> dict[str, str]:
    """Installed libraries: entry point name -> "module:attr"."""
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def library_names() -> list[str]:
    """The names `--library` knows without a module:attr: built-ins, then entry points."""
    return [*BUILTINS, *sorted(set(entry_points()) - set(BUILTINS))]


def load_library(name: str) -> Library:
    """The Library of a registry name or of `module:attr`; an unknown name is one line with the closest
    known one."""
    target = BUILTINS.get(name) or entry_points().get(name)
    if target is None:
        module, sep, attr = name.partition(":")
        if not sep or not attr.isidentifier() or not all(p.isidentifier() for p in module.split(".")):
            known = {n.lower(): n for n in library_names()}
            close = [known[c] for c in difflib.get_close_matches(name.strip().lower(), known, n=1)]
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise SebenchError(f"--library: unknown library '{name}'{hint} (known: {', '.join(library_names())}; "
                               f"or pkg.module:ATTR, or an entry point of group '{ENTRY_POINT_GROUP}')")
        target = name
    return _import(target, name)


def _import(target: str, name: str) -> Library:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SebenchError(f"--library {name}: cannot import {module_name}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a user's module: a failure at import (a Library missing a field) is one line
        raise SebenchError(f"--library {name}: importing {module_name} failed at {_raised_at(exc)}: "
                           f"{type(exc).__name__}: {exc}") from None
    obj = getattr(module, attr, None)
    if obj is None:
        raise SebenchError(f"--library {name}: {module_name} has no attribute '{attr}'")
    if not isinstance(obj, Library):
        raise SebenchError(f"--library {name}: {target} is {type(obj).__name__}, not a sebench.libraries.Library")
    where = f"--library {name}" if name == target else f"--library {name}: {target}"
    if BUILTINS.get(obj.name, target) != target:
        raise SebenchError(f"{where}: field 'name': '{obj.name}' is a built-in library's name; give yours its own")
    return checked(obj, where)


def _raised_at(exc: BaseException) -> str:
    """"file:line" of the innermost frame of exc's traceback outside importlib (the user's line)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "importlib" not in f.filename]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "import"


def checked(library: Library, where: str) -> Library:
    """The library when its fields keep the contract; else one line naming the field. NumPy is trusted."""
    if library.module == "numpy":
        return library
    for fld in ("name", "module"):
        if not isinstance(getattr(library, fld), str) or not getattr(library, fld):
            raise SebenchError(f"{where}: field '{fld}': expected a non-empty string")
    if not isinstance(library.leak_words, frozenset) or not all(isinstance(w, str) and w for w in library.leak_words):
        raise SebenchError(f"{where}: field 'leak_words': expected a frozenset of non-empty strings")
    if not isinstance(library.forbidden_imports, tuple) or not all(isinstance(m, str) and m
                                                                    for m in library.forbidden_imports):
        raise SebenchError(f"{where}: field 'forbidden_imports': expected a tuple of module names")
    for fld in ("surface", "templates", "doc", "version"):
        if not callable(getattr(library, fld)):
            raise SebenchError(f"{where}: field '{fld}': expected a callable, got {type(getattr(library, fld)).__name__}")
    try:
        importlib.import_module(library.module)
        surface, templates, version = library.surface(), library.templates(), library.version()
    except Exception as exc:  # noqa: BLE001 - a user's library: any failure is one line
        raise SebenchError(f"{where}: importing or listing it failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(version, str) or not version:
        raise SebenchError(f"{where}: field 'version': expected a callable returning the version as text, got "
                           f"{version!r}")
    for fld, value in (("surface", surface), ("templates", templates)):
        if not isinstance(value, (tuple, list)):
            raise SebenchError(f"{where}: field '{fld}': expected a callable returning a tuple, got "
                               f"{type(value).__name__} (a one-item tuple needs its comma)")
    if not surface or not all(isinstance(fn, ApiFunction) and fn.key.startswith(library.module + ".") for fn in surface):
        raise SebenchError(f"{where}: field 'surface': expected ApiFunction items whose keys start with "
                           f"'{library.module}.'")
    for fn in surface:
        module_name, _, attr = fn.key.rpartition(".")
        try:
            getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise SebenchError(f"{where}: field 'surface': '{fn.key}' cannot be imported ({exc})") from None
    keys = {fn.key for fn in surface}
    if len(keys) != len(surface):
        raise SebenchError(f"{where}: field 'surface': a key is listed twice")
    for template in templates:
        if not isinstance(template, Template) or template.library != library.module:
            raise SebenchError(f"{where}: field 'templates': {getattr(template, 'key', template)!r} is not a "
                               f"tasks.Template with library='{library.module}'")
        if not template.functions:
            raise SebenchError(f"{where}: field 'templates': template '{template.key}' calls no surface name "
                               "(write each as {name} in its body)")
        unknown = [f for f in template.functions if f not in keys]
        if unknown:
            raise SebenchError(f"{where}: field 'templates': template '{template.key}' calls {unknown[0]}, "
                               "which the surface does not list")
    return library

"""Which library an instance renames, as the stages after the build read it (docs/libraries.md).

NumPy's instances carry no library fields (their builds stay byte-identical), so an absent field means
NumPy. A non-NumPy instance's manifest names its library ("library": "more-itertools"), and its private
mapping names the original's import name ("module") and the other modules programs may not import
("forbidden_imports").
"""

from __future__ import annotations

from sebench.errors import SebenchError
from sebench.instance import Instance

NUMPY = "numpy"


def is_numpy(instance: Instance) -> bool:
    return instance.library == NUMPY


def require_numpy(instance: Instance, what: str) -> None:
    """One clear error when `what` (a mode, a protocol) exists for NumPy's instances only."""
    name = instance.library
    if name != NUMPY:
        raise SebenchError(f"{instance.root}: {what} is defined for NumPy's instances only; this instance renames "
                           f"'{name}'")


def forbidden_modules(mapping: dict) -> frozenset[str]:
    """The original's import name and its "forbidden_imports" (mapping.json): modules no program may import."""
    module = mapping.get("module", NUMPY)
    extra = mapping.get("forbidden_imports") or []
    if not isinstance(module, str) or not isinstance(extra, list) or not all(isinstance(m, str) for m in extra):
        raise SebenchError("mapping.json: fields 'module' and 'forbidden_imports': expected a module name and a "
                           f"list of module names, got {module!r} and {extra!r}")
    return frozenset({module, *extra})

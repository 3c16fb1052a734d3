"""A stage's front door: the names its `__init__.py` exports, each imported from its module on first use.

A stage package declares `__all__` (a literal list: the architecture test reads it) and
`__getattr__ = front_door(__name__, __all__, {module: names})`, so that `from sebench.judge import Judge`
imports the judge's core only when asked, and `import sebench.judge` stays light. Other stages import only
these names (tests/test_architecture.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def front_door(package: str, names: list[str], homes: dict[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: each of `names` from its module in `homes` (module name
    relative to the package -> the names it defines). Raises ImportError when the two lists disagree."""
    home_of = {name: module for module, defined in homes.items() for name in defined}
    if sorted(home_of) != sorted(names):
        raise ImportError(f"{package}: __all__ and the front door's modules disagree on "
                          f"{', '.join(sorted(set(home_of) ^ set(names)))}")

    def __getattr__(name: str) -> Any:
        if name not in home_of:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        return getattr(importlib.import_module(f"{package}.{home_of[name]}"), name)

    return __getattr__

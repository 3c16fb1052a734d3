"""All task templates: single-function families by kind of function, and multi-function pipelines."""

from __future__ import annotations

import functools
import importlib
from dataclasses import replace

from sebench.tasks.spec import Template

MODULES = ("elementwise", "reductions", "creation", "shape", "sorting", "mathx", "linalg", "pipelines")


@functools.lru_cache(maxsize=1)
def _load() -> tuple[Template, ...]:
    from sebench.tasks.families.extra_texts import EXTRA

    out: list[Template] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"sebench.tasks.families.{name}").templates())
    out = [replace(t, texts=(*t.texts, " ".join(EXTRA[t.key].split()))) if t.key in EXTRA else t for t in out]
    missing = set(EXTRA) - {t.key for t in out}
    if missing:
        raise ValueError(f"extra texts for unknown templates: {sorted(missing)[:5]}")
    keys = [t.key for t in out]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(f"duplicate template keys: {sorted(dupes)[:5]}")
    return tuple(out)


def all_templates() -> list[Template]:
    """Every task template of every family, in a fixed order (the tasks stage draws from them)."""
    return list(_load())

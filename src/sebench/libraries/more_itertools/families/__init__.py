"""The more-itertools task families: single-function templates by kind of function, and pipelines."""

from __future__ import annotations

import functools
import importlib
from dataclasses import replace

from sebench.tasks import Template

MODULES = ("grouping", "augmenting", "selecting", "summarizing", "combining", "combinatorics", "numbers", "extra",
           "second_uses", "second_uses_more", "second_uses_extra", "second_uses_rest", "pipelines")


@functools.lru_cache(maxsize=1)
def all_templates() -> tuple[Template, ...]:
    """Every template, in a fixed order; keys are unique."""
    from sebench.libraries.more_itertools.families.more_texts import FOURTH, THIRD

    out: list[Template] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"{__name__}.{name}").templates())
    for extra in (THIRD, FOURTH):
        out = [replace(t, texts=(*t.texts, " ".join(extra[t.key].split()))) if t.key in extra else t for t in out]
        unknown = sorted(set(extra) - {t.key for t in out})
        if unknown:
            raise ValueError(f"more texts for unknown templates: {unknown[:5]}")
    keys = [t.key for t in out]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate template keys: {dupes[:5]}")
    return tuple(out)


__all__ = ["all_templates"]

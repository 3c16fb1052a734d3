"""The more-itertools task families: single-function templates by kind of function, and pipelines.

Every function has two single-function templates of two statements each: its first use (the modules by kind
of function) and a second use (the second_uses modules: other arguments or keywords, another kind of input,
or the result post-processed), so that a single-function test task can have a reference body that no train
task of its function has (tasks.generate.plan reserves test variants per function)."""

from __future__ import annotations

import functools
import importlib

from sebench.tasks import Template

MODULES = ("grouping", "augmenting", "selecting", "summarizing", "combining", "combinatorics", "numbers", "extra",
           "second_uses", "second_uses_more", "second_uses_extra", "second_uses_rest", "pipelines")


@functools.lru_cache(maxsize=1)
def all_templates() -> tuple[Template, ...]:
    """Every template, in a fixed order; keys are unique."""
    out: list[Template] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"{__name__}.{name}").templates())
    keys = [t.key for t in out]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate template keys: {dupes[:5]}")
    return tuple(out)


__all__ = ["all_templates"]

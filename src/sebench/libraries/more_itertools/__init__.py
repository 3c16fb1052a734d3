"""more-itertools as a pseudo-novel package: its surface (surface.py), task families (families/) and
leak words, under the library contract (sebench.libraries.contract, docs/libraries.md).

Why more-itertools: pure Python with no dependencies, deterministic, about 190 public names with doctest
examples in every docstring, widely used (models know it well), and its values are plain lists, tuples
and numbers (JSON data); its generators' reprs carry its names, so values crossing the package's surface
must be wrapped as for NumPy's arrays.
"""

from __future__ import annotations

import importlib
import inspect
import re
from importlib import metadata

from sebench.libraries.contract import ApiFunction, Library
from sebench.libraries.more_itertools.surface import FORBIDDEN_IMPORTS, FUNCTIONS, LEAK_WORDS
from sebench.tasks import Template

MODULE = "more_itertools"


def surface() -> tuple[ApiFunction, ...]:
    """The 140 public functions, in a fixed (alphabetical) order; all live at the package's root."""
    return tuple(ApiFunction(f"{MODULE}.{name}") for name in FUNCTIONS)


def templates() -> tuple[Template, ...]:
    from sebench.libraries.more_itertools.families import all_templates

    return all_templates()


_LEAK = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(LEAK_WORDS, key=len, reverse=True)) + r")\b")


def doc(key: str) -> str:
    """The original docstring of a surface key ("more_itertools.chunked"), less its paragraphs that point
    to what the surface leaves out (`seekable`, `peekable`, UnequalIterablesError): a paragraph, or an
    example, that needs a left-out class cannot be rewritten with public names."""
    module, _, name = key.rpartition(".")
    if module != MODULE or name not in FUNCTIONS:
        raise KeyError(f"not a more-itertools surface function: {key}")
    text = inspect.getdoc(getattr(importlib.import_module(MODULE), name)) or ""
    return "\n\n".join(p for p in text.split("\n\n") if not _LEAK.search(p))


def version() -> str:
    return metadata.version("more-itertools")


LIBRARY = Library(name="more-itertools", module=MODULE, surface=surface, templates=templates, doc=doc,
                  version=version, leak_words=LEAK_WORDS, forbidden_imports=FORBIDDEN_IMPORTS)

__all__ = ["LIBRARY"]

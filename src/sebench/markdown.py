"""Markdown from values someone else chose (a folder's name, a record's field): `code_span`, the one rule for
showing such a value as inline code that nothing in it can close."""

from __future__ import annotations

import re


def code_span(text: str) -> str:
    """`text` (one line) as a Markdown code span: fenced by one backtick more than its longest run of them, padded
    by a space where it starts or ends with one, so no backtick in it ends the span early."""
    fence = "`" * (1 + max((len(run) for run in re.findall("`+", text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"

"""Extracting the program from a model's response: the last fenced python block, reasoning ignored.

`<think>...</think>` sections are dropped first (an unclosed `<think>` drops everything after it). The last
block fenced as python (```python, ```py, ```python3) wins; without one, the last unlabeled fenced block;
a block whose closing fence is missing (a truncated answer) still counts. No block at all is `no_code`.
"""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"<think>.*\Z", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.DOTALL | re.MULTILINE)
PYTHON_TAGS = {"python", "py", "python3", "py3"}


def strip_reasoning(response: str) -> str:
    text = _THINK.sub("", response)
    return _OPEN_THINK.sub("", text)


def extract_code(response: str | None) -> str | None:
    """The program in `response`, or None when it has no fenced code block."""
    if not response:
        return None
    text = strip_reasoning(response)
    python, other = None, None
    for match in _FENCE.finditer(text):
        tag = match.group(2).lower()
        body = match.group(3)
        if tag in PYTHON_TAGS:
            python = body
        elif tag == "":
            other = body
    code = python if python is not None else other
    if code is None or not code.strip():
        return None
    return code.rstrip() + "\n"

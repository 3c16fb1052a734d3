"""Comparing a program's result with the expected output, outside the sandbox.

Expected outputs (Task.expected) are plain JSON as sebench.tasks.plain writes them: nested lists, int,
float (NaN and infinities as Python's json writes them: NaN, Infinity, -Infinity), bool, None, str, dicts,
and complex numbers as {"__complex__": [re, im]}; {"__float__": "nan"|"inf"|"-inf"} is read too. An
expected {"__printed__": text} means: compare the printed form of the result (str(), whitespace
normalised), as the original benchmark did for outputs it could not parse.

Rules: structural; numbers equal within a relative and an absolute tolerance; NaN equals NaN; infinities
must have the same sign; int and float compare as numbers, complex with a real number as (x + 0j);
bool is not a number (True != 1); tuples and lists (and package arrays, which arrive as nested lists) are
the same sequence; dict keys must match exactly; strings exactly.
"""

from __future__ import annotations

import math
import re
from typing import Any

from sebench import codec

REL_TOL = 1e-6
ABS_TOL = 1e-9
PRINTED_KEY = "__printed__"


def decode_expected(value: Any) -> Any:
    """Task.expected JSON -> Python data: the tagged encoding of sebench.codec (complex, tagged floats)."""
    return codec.decode(value)


def is_printed(expected: Any) -> bool:
    return isinstance(expected, dict) and set(expected) == {PRINTED_KEY}


def normalize_printed(text: str) -> str:
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r"\s*([\[\](),:{}])\s*", r"\1", text)


def matches(got: Any, expected: Any, printed: str | None = None, rel: float = REL_TOL,
            abs_: float = ABS_TOL) -> bool:
    """Whether a result (`got`, its printed form `printed`) matches one Task.expected entry."""
    if is_printed(expected):
        return printed is not None and normalize_printed(printed) == normalize_printed(expected[PRINTED_KEY])
    return equal(got, decode_expected(expected), rel, abs_)


def equal(a: Any, b: Any, rel: float = REL_TOL, abs_: float = ABS_TOL) -> bool:
    """Structural equality of plain data with numeric tolerance (rules in the module docstring)."""
    ta, tb = type(a), type(b)
    if ta is float and tb is float:  # the common cases first, decided as the general rules below decide them
        return a == b or _close_floats(a, b, rel, abs_)
    if ta is int and tb is int:
        return a == b
    if (ta is list or ta is tuple) and (tb is list or tb is tuple):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            tx = type(x)
            if not ((tx is float or tx is int) and type(y) is tx and x == y or equal(x, y, rel, abs_)):
                return False
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_num(a) and _is_num(b):
        if isinstance(a, complex) or isinstance(b, complex):
            a, b = complex(a), complex(b)
            return _close(a.real, b.real, rel, abs_) and _close(a.imag, b.imag, rel, abs_)
        return _close(a, b, rel, abs_)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y, rel, abs_) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(equal(a[k], b[k], rel, abs_) for k in a)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float, complex)) and not isinstance(x, bool)


def _close(a: float, b: float, rel: float, abs_: float) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    try:
        a, b = float(a), float(b)
    except OverflowError:
        return a == b
    return _close_floats(a, b, rel, abs_)


def _close_floats(a: float, b: float, rel: float, abs_: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)

"""How task outputs are stored and printed.

`expected[i]` (JSON) is the plain data of the reference's return value: nested lists, int, float, bool,
None, str, and complex numbers encoded as {"__complex__": [real, imag]} (JSON has no complex type).
NaN and infinities are written as Python's json module writes them (`NaN`, `Infinity`, `-Infinity`),
which `json.loads` reads back as floats. Tuples are stored as lists.
Imported official tasks whose printed output could not be parsed hold {"__printed__": "<text>"}.

`test_cases[i]["output"]` is the printed form: `str()` of the decoded value, as `print` shows it.
"""

from __future__ import annotations

import math
from typing import Any

COMPLEX_KEY = "__complex__"
PRINTED_KEY = "__printed__"


def encode(value: Any) -> Any:
    """Plain Python data -> JSON-ready data (complex as {"__complex__": [re, im]}, tuples as lists)."""
    if isinstance(value, complex):
        return {COMPLEX_KEY: [value.real, value.imag]}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of `encode`: {"__complex__": [re, im]} -> complex, recursively."""
    if isinstance(value, dict) and set(value) == {COMPLEX_KEY}:
        re_, im = value[COMPLEX_KEY]
        return complex(re_, im)
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def printed(encoded: Any) -> str:
    """The printed form of an encoded output (what `print(result)` shows for the plain value)."""
    if isinstance(encoded, dict) and set(encoded) == {PRINTED_KEY}:
        return encoded[PRINTED_KEY]
    return str(decode(encoded))


def same(a: Any, b: Any, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    """Structural equality of two encoded outputs; NaN equals NaN; bool is not a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if type(a) is not type(b):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rel, abs_) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rel, abs_) for k in a)
    return type(a) is type(b) and a == b


def literal(value: Any) -> str:
    """A Python expression for a plain input value (floats round-trip; NaN/inf as float('nan'))."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, complex):
        return f"complex({literal(value.real)}, {literal(value.imag)})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"no literal for {type(value).__name__}")

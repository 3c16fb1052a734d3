"""Program values: how they travel as JSON, how they print and when two of them are equal (one rule).

Two JSON forms of the same Python data:
- the tagged form (`encode`, `decode`, `dumps`, `loads`): strict JSON in which NaN, infinities, complex
  numbers, tuples and odd dicts survive, as one-key objects: {"__float__": "nan" | "inf" | "-inf"},
  {"__complex__": [re, im]} (re and im themselves encoded), {"__tuple__": [...]} and
  {"__dict__": [[key, value], ...]} for a dict whose keys are not all strings, or whose only key happens
  to be a tag name. It is the format of the sandbox's result frames (judge/zygote.py writes it on its
  own, inside the sandbox) and of the sandbox server's HTTP bodies.
- the task-data form (`to_task_data`): what a task file's `expected` holds: nested lists (tuples become
  lists), int, float, bool, None, str and {"__complex__": [re, im]}; NaN and infinities stay floats, which
  Python's json writes as NaN, Infinity, -Infinity. An imported task whose printed output could not be
  parsed holds {"__printed__": text} instead.
`decode` reads both forms (and json's NaN tokens); `printed` is what `print` shows for a task-data value.

The comparison rule (`equal`, `matches`): structural; numbers equal within a relative and an absolute
tolerance; NaN equals NaN; infinities must have the same sign; int and float compare as numbers, complex
with a real number as (x + 0j), unless `same_types` asks numbers to be of one type too; bool is not a
number (True != 1); tuples and lists are the same sequence; dict keys must match exactly; strings
exactly. An expected {"__printed__": text} is matched by the printed form (whitespace normalised).

This module is the standard library only: the harness (sebench/harness.py) loads it by its path in
child interpreters that cannot import sebench.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

TAGS = ("__complex__", "__float__", "__tuple__", "__dict__")
COMPLEX_KEY = "__complex__"
PRINTED_KEY = "__printed__"
MAX_DEPTH = 200
REL_TOL = 1e-6  # the judge's tolerances
ABS_TOL = 1e-9
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_SCALARS = frozenset({int, float, str, bool, type(None)})
_TASK_SCALARS = (bool, int, float, str)


class CodecError(ValueError):
    """Data that the tagged form cannot hold, or a malformed tag."""


# ---- the tagged form ----------------------------------------------------------------------------------


def encode(value: Any, _depth: int = 0) -> Any:
    """Python data -> JSON-ready data in the tagged form (no NaN or infinity tokens left)."""
    if _depth > MAX_DEPTH:
        raise CodecError(f"data nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _encode_float(value)
    if isinstance(value, complex):
        return {COMPLEX_KEY: [_encode_float(value.real), _encode_float(value.imag)]}
    if isinstance(value, list):
        return [encode(v, _depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, _depth + 1) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (len(value) == 1 and next(iter(value)) in TAGS):
            return {k: encode(v, _depth + 1) for k, v in value.items()}
        return {"__dict__": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()]}
    raise CodecError(f"cannot encode a {type(value).__name__}")


def _encode_float(value: float) -> Any:
    if math.isnan(value):
        return {"__float__": "nan"}
    if math.isinf(value):
        return {"__float__": "inf" if value > 0 else "-inf"}
    return value


def decode(value: Any, _depth: int = 0) -> Any:
    """The inverse of `encode` (tuples come back as tuples, `__dict__` keys made hashable); reads task data too."""
    if _depth > MAX_DEPTH:
        raise CodecError(f"data nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        if _depth < MAX_DEPTH and all(type(v) in _SCALARS for v in value):
            return list(value)  # what the loop below gives for a row of scalars, without a call per item
        return [decode(v, _depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key in TAGS:
            return _decode_tag(key, inner, _depth)
    return {k: decode(v, _depth + 1) for k, v in value.items()}


def _decode_tag(key: str, inner: Any, depth: int) -> Any:
    if key == "__float__":
        if inner not in _FLOATS:
            raise CodecError(f'{{"__float__": {inner!r}}}: expected "nan", "inf" or "-inf"')
        return _FLOATS[inner]
    if key == COMPLEX_KEY:
        parts = decode(inner, depth + 1) if isinstance(inner, list) else None
        if not (parts and len(parts) == 2 and all(_is_real(p) for p in parts)):
            raise CodecError('{"__complex__": ...} needs [re, im], two numbers')
        return complex(parts[0], parts[1])
    if not isinstance(inner, list):
        raise CodecError(f'{{"{key}": ...}} needs a list')
    if key == "__tuple__":
        return tuple(decode(v, depth + 1) for v in inner)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in inner):
        raise CodecError('{"__dict__": ...} needs [[key, value], ...]')
    try:
        return {_hashable(decode(k, depth + 1)): decode(v, depth + 1) for k, v in inner}
    except TypeError as exc:  # an unhashable key, e.g. a dict
        raise CodecError(f'{{"__dict__": ...}}: {exc}') from None


def _is_real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    return key


def dumps(value: Any) -> str:
    """`encode` as strict JSON text."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """JSON text -> decoded data; malformed or too deeply nested text raises CodecError."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise CodecError("JSON nested too deeply") from None
    except ValueError as exc:  # bad JSON, bad UTF-8, an integer with too many digits
        raise CodecError(f"not valid JSON: {exc}") from None
    return decode(data)


# ---- task data ------------------------------------------------------------------------------------


def to_task_data(value: Any, strict: bool = True) -> Any:
    """Plain Python data -> the task-data form (complex as {"__complex__": [re, im]}, tuples as lists).

    strict: anything else (arrays, dicts, objects) is a TypeError, as reference outputs must be plain data;
    otherwise it is kept as it is (a dict that a model's program returned)."""
    kind = type(value)
    if kind is complex:
        return {COMPLEX_KEY: [value.real, value.imag]}
    if kind is list or kind is tuple:
        return [to_task_data(v, strict) for v in value]
    if value is None or kind in _TASK_SCALARS or not strict:
        return value
    raise TypeError(f"not plain data: {kind.__name__}")


def is_printed(expected: Any) -> bool:
    """Whether a task's expected output is only its printed form ({"__printed__": text})."""
    return isinstance(expected, dict) and set(expected) == {PRINTED_KEY}


def printed(encoded: Any) -> str:
    """The printed form of a task-data value (what `print(result)` shows for the plain value)."""
    if is_printed(encoded):
        return encoded[PRINTED_KEY]
    return str(decode(encoded))


def normalize_printed(text: str) -> str:
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r"\s*([\[\](),:{}])\s*", r"\1", text)


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


# ---- the comparison rule ----------------------------------------------------------------------------


def matches(got: Any, expected: Any, printed: str | None = None, rel: float = REL_TOL, abs_: float = ABS_TOL) -> bool:
    """Whether a result (`got`, its printed form `printed`) matches one expected task-data value."""
    if is_printed(expected):
        return printed is not None and normalize_printed(printed) == normalize_printed(expected[PRINTED_KEY])
    return equal(got, decode(expected), rel, abs_)


def equal(a: Any, b: Any, rel: float = REL_TOL, abs_: float = ABS_TOL, same_types: bool = False) -> bool:
    """Structural equality with numeric tolerance (the rule in the module docstring); with `same_types`,
    numbers of different types (int, float, complex) are unequal."""
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
            if not (((tx is float or tx is int) and type(y) is tx and x == y) or equal(x, y, rel, abs_, same_types)):
                return False
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return ta is tb and a == b
    if _is_num(a) and _is_num(b):
        if same_types and ta is not tb:
            return False
        if isinstance(a, complex) or isinstance(b, complex):
            a, b = complex(a), complex(b)
            return _close(a.real, b.real, rel, abs_) and _close(a.imag, b.imag, rel, abs_)
        return _close(a, b, rel, abs_)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y, rel, abs_, same_types) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(equal(a[k], b[k], rel, abs_, same_types) for k in a)
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

"""The project's tagged JSON: plain data whose NaN, infinities, complex numbers, tuples and odd dicts survive.

JSON has no complex, tuple, NaN or infinity, and its object keys are strings. Values are tagged as one-key
objects:
- {"__float__": "nan" | "inf" | "-inf"} for NaN and the infinities;
- {"__complex__": [re, im]} (re and im themselves encoded);
- {"__tuple__": [...]};
- {"__dict__": [[key, value], ...]} for a dict whose keys are not all strings, and for a plain dict whose
  only key happens to be a tag name (so data that looks like a tag travels unchanged).

This is the format of the sandbox's result frames (judge/zygote.py writes it standalone, inside the
sandbox) and of the sandbox server's HTTP bodies. `decode` also reads the tokens NaN, Infinity and
-Infinity that Python's json module writes (task files hold them) and raises CodecError, a ValueError,
on a malformed tag.
"""

from __future__ import annotations

import json
import math
from typing import Any

TAGS = ("__complex__", "__float__", "__tuple__", "__dict__")
MAX_DEPTH = 200
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_SCALARS = frozenset({int, float, str, bool, type(None)})


class CodecError(ValueError):
    """Data that the tagged encoding cannot hold, or a malformed tag."""


def encode(value: Any, _depth: int = 0) -> Any:
    """Python data -> JSON-ready data (strict JSON: no NaN or infinity tokens left)."""
    if _depth > MAX_DEPTH:
        raise CodecError(f"data nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _encode_float(value)
    if isinstance(value, complex):
        return {"__complex__": [_encode_float(value.real), _encode_float(value.imag)]}
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
    """The inverse of `encode` (tuples come back as tuples, `__dict__` keys made hashable)."""
    if _depth > MAX_DEPTH:
        raise CodecError(f"data nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        if _depth < MAX_DEPTH and all(type(v) in _SCALARS for v in value):
            return list(value)  # what the loop below gives for a row of scalars, without a call per item
        return [decode(v, _depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, inner), = value.items()
        if key in TAGS:
            return _decode_tag(key, inner, _depth)
    return {k: decode(v, _depth + 1) for k, v in value.items()}


def _decode_tag(key: str, inner: Any, depth: int) -> Any:
    if key == "__float__":
        if inner not in _FLOATS:
            raise CodecError(f'{{"__float__": {inner!r}}}: expected "nan", "inf" or "-inf"')
        return _FLOATS[inner]
    if key == "__complex__":
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

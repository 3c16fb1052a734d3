"""The sandbox writes results with its own encoder (judge/zygote.py: inside the sandbox the program could
patch the json module), in the format of sebench.values: what it writes, values.decode reads back as the value,
exactly as values.encode's output does."""

from __future__ import annotations

import importlib.util
import json
import math

import pytest

from sebench import values
from sebench.judge.sandbox import ZYGOTE


@pytest.fixture(scope="module")
def encode_in_sandbox():
    spec = importlib.util.spec_from_file_location("zygote_under_test", ZYGOTE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    enc = module.make_encoder("pkg", None)
    return lambda value: enc(value, 0)


VALUES = [
    None, True, False, 0, -7, 2**70, 1.5, -0.0, math.nan, math.inf, -math.inf, 1e-310, "text", "é\n\"",
    complex(1, -2), complex(math.nan, math.inf), [], [1, 2.5, True], [1, math.nan, -math.inf], (1, "a"), (),
    [[1, 2], [3, 4]], [(1, 2), [3, (4, 5)]], {"a": 1, "b": [1.0, 2.0]}, {1: "x", (2, 3): [4]},
    {"__tuple__": [1, 2]}, {"__complex__": "not a tag"}, {"k": {"__float__": "nan"}}, [None, "x", 3],
]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, complex) and isinstance(b, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    return a == b


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_sandbox_encoder_writes_the_tagged_format(encode_in_sandbox, value):
    written = json.loads(encode_in_sandbox(value))
    assert _same(values.decode(written), value)
    assert _same(values.decode(written), values.decode(json.loads(json.dumps(values.encode(value)))))

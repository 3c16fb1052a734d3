import json
import math

import pytest

from sebench import codec


def _same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, complex):
        return isinstance(b, complex) and _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("value", [
    float("nan"), float("inf"), -float("inf"), 1.5, 0, True, None, "NaN",
    complex(float("nan"), -float("inf")), 1 - 2j,
    [1, [2.5, float("inf")], (3, float("nan"))],
    {"a": [float("-inf")], "b": {"c": 1j}},
    {(1, 2): "tuple key", 3: "int key"},
    {"__complex__": [1.0, 2.0]},  # data that looks like a tag travels unchanged
    {"__float__": "nan"}, {"__tuple__": [1]}, {"__dict__": []},
    [{"__complex__": [float("nan"), 1.0]}],
])
def test_round_trip_is_exact_and_strict_json(value):
    text = codec.dumps(value)
    json.loads(text, parse_constant=lambda token: pytest.fail(f"non-strict token {token}"))
    assert _same(value, codec.loads(text))


def test_reads_python_json_tokens_and_the_sandbox_tags():
    assert math.isnan(codec.loads("NaN")) and codec.loads("[Infinity, -Infinity]") == [math.inf, -math.inf]
    assert codec.decode({"__dict__": [[[1, 2], "x"]]}) == {(1, 2): "x"}  # list keys made hashable


@pytest.mark.parametrize("text", [
    '{"__float__": "zero"}', '{"__complex__": "abc"}', '{"__complex__": [1]}', '{"__complex__": [true, 1]}',
    '{"__tuple__": 3}', '{"__dict__": [[1]]}', '{"__dict__": [[{}, 1]]}', '{"a": ', "\xff",
    "[" * 100_000 + "]" * 100_000, "[" * 300 + "]" * 300,
])
def test_malformed_input_is_a_codec_error(text):
    with pytest.raises(codec.CodecError):
        codec.loads(text)


def test_what_json_cannot_hold_is_refused():
    with pytest.raises(codec.CodecError):
        codec.dumps({"s": {1, 2}})


@pytest.mark.parametrize("row", [[1.0, 2], [], ["a", None, True]])
def test_the_depth_limit_holds_for_rows_of_scalars(row):
    def nested(levels):
        value = row
        for _ in range(levels):
            value = [value]
        return value

    assert codec.decode(nested(codec.MAX_DEPTH - 1)) == nested(codec.MAX_DEPTH - 1)
    if row:  # an empty row has no item below the limit
        with pytest.raises(codec.CodecError):
            codec.decode(nested(codec.MAX_DEPTH))
    with pytest.raises(codec.CodecError):
        codec.decode(nested(codec.MAX_DEPTH + 1))

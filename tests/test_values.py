import json
import math

import pytest

from sebench import values


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
    text = values.dumps(value)
    json.loads(text, parse_constant=lambda token: pytest.fail(f"non-strict token {token}"))
    assert _same(value, values.loads(text))


def test_reads_python_json_tokens_and_the_sandbox_tags():
    assert math.isnan(values.loads("NaN")) and values.loads("[Infinity, -Infinity]") == [math.inf, -math.inf]
    assert values.decode({"__dict__": [[[1, 2], "x"]]}) == {(1, 2): "x"}  # list keys made hashable


@pytest.mark.parametrize("text", [
    '{"__float__": "zero"}', '{"__complex__": "abc"}', '{"__complex__": [1]}', '{"__complex__": [true, 1]}',
    '{"__tuple__": 3}', '{"__dict__": [[1]]}', '{"__dict__": [[{}, 1]]}', '{"a": ', "\xff",
    "[" * 100_000 + "]" * 100_000, "[" * 300 + "]" * 300,
])
def test_malformed_input_is_a_codec_error(text):
    with pytest.raises(values.CodecError):
        values.loads(text)


def test_what_json_cannot_hold_is_refused():
    with pytest.raises(values.CodecError):
        values.dumps({"s": {1, 2}})


@pytest.mark.parametrize("row", [[1.0, 2], [], ["a", None, True]])
def test_the_depth_limit_holds_for_rows_of_scalars(row):
    def nested(levels):
        value = row
        for _ in range(levels):
            value = [value]
        return value

    assert values.decode(nested(values.MAX_DEPTH - 1)) == nested(values.MAX_DEPTH - 1)
    if row:  # an empty row has no item below the limit
        with pytest.raises(values.CodecError):
            values.decode(nested(values.MAX_DEPTH))
    with pytest.raises(values.CodecError):
        values.decode(nested(values.MAX_DEPTH + 1))


def test_numbers():
    assert values.equal(1.0, 1.0 + 1e-9) and not values.equal(1.0, 1.001)
    assert values.equal(2, 2.0) and values.equal(float("nan"), float("nan")) and not values.equal(float("nan"), 1.0)
    assert values.equal(float("inf"), float("inf")) and not values.equal(float("inf"), float("-inf"))
    assert not values.equal(True, 1) and not values.equal(1, True) and values.equal(False, False) and not values.equal(0.0, False)
    assert values.equal(1 + 2j, complex(1, 2 + 1e-12)) and values.equal(3.0, 3 + 0j) and not values.equal(1j, 0)
    assert values.equal(0.0, 1e-12) and not values.equal(0.0, 1e-3)
    assert values.equal(10**400, 10**400) and not values.equal(10**400, 1.0)


def test_structures():
    assert values.equal((1, 2), [1, 2]) and values.equal([[1, 2], (3, 4)], [[1, 2], [3, 4]])
    assert not values.equal([1, 2], [1, 2, 3]) and not values.equal([1], 1)
    assert values.equal({"a": 1}, {"a": 1.0}) and not values.equal({"x": 1}, {"a": 1}) and not values.equal({"a": 1}, {"a": 1, "b": 2})
    assert values.equal("abc", "abc") and not values.equal("abc", "abd") and not values.equal("1", 1)
    assert values.equal(None, None) and not values.equal(None, 0) and not values.equal([], None)


def test_rows_follow_the_same_rules_as_single_values():
    nan, inf = float("nan"), float("inf")
    assert not values.equal([True, 1.0], [1, 1.0]) and not values.equal([1.0, 0], [1.0, False]) and values.equal([True], [True])
    assert values.equal([1, 2.0, 3], (1.0, 2, 3.0)) and values.equal([nan, inf, -0.0], [nan, inf, 0.0])
    assert not values.equal([inf], [-inf]) and not values.equal([nan], [0.0]) and values.equal([1e-10], [2e-10])
    assert values.equal([1.0], [1.0 + 1e-7]) and not values.equal([1.0], [1.001]) and not values.equal([2], [3])
    assert values.equal([10**400], [10**400]) and not values.equal([10**400], [inf]) and not values.equal([1, 2], [1, 2, 3])
    assert values.equal([[1.0, 2], (3, nan)], ([1, 2.0], [3.0, nan])) and not values.equal([[1.0]], [[1.0, 2.0]])
    assert values.equal([1 + 0j, 2], [1, 2.0]) and not values.equal([None], [0]) and values.equal(["a", None], ["a", None])


def test_expected_encoding_and_printed():
    assert values.decode({"__complex__": [1.0, -2.0]}) == 1 - 2j
    assert math.isnan(values.decode({"__float__": "nan"}))
    assert values.matches([1 + 1j, float("nan")], [{"__complex__": [1, 1]}, float("nan")])
    assert values.matches(None, {"__printed__": "[1. 2.]"}, printed="[ 1.  2.]")
    assert values.matches(None, {"__printed__": "[[1 2]\n [3 4]]"}, printed="[[1 2] [3 4]]")
    assert not values.matches(None, {"__printed__": "[1. 2.]"}, printed=None)
    assert values.normalize_printed(" ( 1 ,  2 ) ") == "(1,2)"


def test_same_types_tells_int_from_float_and_complex_from_real():
    assert values.equal([1, 2.0], [1.0, 2]) and not values.equal([1, 2.0], [1.0, 2], same_types=True)
    assert values.equal(3.0, 3 + 0j) and not values.equal(3.0, 3 + 0j, same_types=True)
    assert values.equal([1.5, [True, None, "a"]], [1.5, [True, None, "a"]], same_types=True)
    assert values.equal({"__complex__": [1.0, 2.0]}, {"__complex__": [1.0, 2.0 + 1e-12]}, same_types=True)
    assert not values.equal([1.0], [1.0 + 1e-8], rel=1e-9, abs_=1e-12, same_types=True)
    assert values.equal([float("nan")], [float("nan")], same_types=True)


def test_task_data_and_its_printed_form():
    data = values.to_task_data((1, [2.5, 1 + 2j], None, "x", True))
    assert data == [1, [2.5, {"__complex__": [1.0, 2.0]}], None, "x", True]
    assert values.printed(data) == str([1, [2.5, 1 + 2j], None, "x", True])
    assert values.printed({"__printed__": "[1 2]"}) == "[1 2]"
    with pytest.raises(TypeError, match="not plain data: set"):
        values.to_task_data({1})
    assert values.to_task_data([{"a": 1}, (2j,)], strict=False) == [{"a": 1}, [{"__complex__": [0.0, 2.0]}]]
    nan = values.to_task_data(float("nan"))
    assert math.isnan(values.decode(json.loads(json.dumps(nan))))


def test_literal_round_trips_input_values():
    value = [1, -0.5, float("inf"), 2j, (3,), "s", None, True]
    assert values.literal(value) == "[1, -0.5, float('inf'), complex(0.0, 2.0), (3,), 's', None, True]"
    assert eval(values.literal(value)) == value

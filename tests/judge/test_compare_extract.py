import math

from sebench.judge.compare import decode_expected, equal, matches, normalize_printed
from sebench.judge.extract import extract_code


def test_numbers():
    assert equal(1.0, 1.0 + 1e-9) and not equal(1.0, 1.001)
    assert equal(2, 2.0) and equal(float("nan"), float("nan")) and not equal(float("nan"), 1.0)
    assert equal(float("inf"), float("inf")) and not equal(float("inf"), float("-inf"))
    assert not equal(True, 1) and not equal(1, True) and equal(False, False) and not equal(0.0, False)
    assert equal(1 + 2j, complex(1, 2 + 1e-12)) and equal(3.0, 3 + 0j) and not equal(1j, 0)
    assert equal(0.0, 1e-12) and not equal(0.0, 1e-3)
    assert equal(10**400, 10**400) and not equal(10**400, 1.0)


def test_structures():
    assert equal((1, 2), [1, 2]) and equal([[1, 2], (3, 4)], [[1, 2], [3, 4]])
    assert not equal([1, 2], [1, 2, 3]) and not equal([1], 1)
    assert equal({"a": 1}, {"a": 1.0}) and not equal({"x": 1}, {"a": 1}) and not equal({"a": 1}, {"a": 1, "b": 2})
    assert equal("abc", "abc") and not equal("abc", "abd") and not equal("1", 1)
    assert equal(None, None) and not equal(None, 0) and not equal([], None)


def test_rows_follow_the_same_rules_as_single_values():
    nan, inf = float("nan"), float("inf")
    assert not equal([True, 1.0], [1, 1.0]) and not equal([1.0, 0], [1.0, False]) and equal([True], [True])
    assert equal([1, 2.0, 3], (1.0, 2, 3.0)) and equal([nan, inf, -0.0], [nan, inf, 0.0])
    assert not equal([inf], [-inf]) and not equal([nan], [0.0]) and equal([1e-10], [2e-10])
    assert equal([1.0], [1.0 + 1e-7]) and not equal([1.0], [1.001]) and not equal([2], [3])
    assert equal([10**400], [10**400]) and not equal([10**400], [inf]) and not equal([1, 2], [1, 2, 3])
    assert equal([[1.0, 2], (3, nan)], ([1, 2.0], [3.0, nan])) and not equal([[1.0]], [[1.0, 2.0]])
    assert equal([1 + 0j, 2], [1, 2.0]) and not equal([None], [0]) and equal(["a", None], ["a", None])


def test_expected_encoding_and_printed():
    assert decode_expected({"__complex__": [1.0, -2.0]}) == 1 - 2j
    assert math.isnan(decode_expected({"__float__": "nan"}))
    assert matches([1 + 1j, float("nan")], [{"__complex__": [1, 1]}, float("nan")])
    assert matches(None, {"__printed__": "[1. 2.]"}, printed="[ 1.  2.]")
    assert matches(None, {"__printed__": "[[1 2]\n [3 4]]"}, printed="[[1 2] [3 4]]")
    assert not matches(None, {"__printed__": "[1. 2.]"}, printed=None)
    assert normalize_printed(" ( 1 ,  2 ) ") == "(1,2)"


def test_extract():
    assert extract_code("no code here") is None and extract_code("") is None
    text = "<think>\n```python\nbad()\n```\n</think>\nFirst:\n```python\na = 1\n```\nFinal:\n```python\nb = 2\n```"
    assert extract_code(text) == "b = 2\n"
    assert extract_code("```\nc = 3\n```") == "c = 3\n"
    assert extract_code("```py\nd = 4") == "d = 4\n"  # truncated answer
    assert extract_code("<think>long reasoning ```python\nx = 1\n```") is None  # unclosed think
    assert extract_code("```python\n```") is None

"""The original judge's rules (sebench.judge.original), one by one, without running anything."""

from __future__ import annotations

import math

import pytest

from sebench.judge import original as o

ANSWER = """Some thoughts.
```python
print("draft")
```
The final answer:
```python
import zwc

def running_total(sales):
    return zwc.kezog(sales)
```
"""


def test_the_last_python_block_is_the_code():
    assert o.last_python_block(ANSWER).startswith("import zwc\n\ndef running_total")
    assert o.last_python_block("```py\nx = 1\n```") == ""  # only ```python blocks count
    assert o.last_python_block("no code at all") == ""


def test_the_program_calls_the_first_function_defined_on_every_input():
    code = o.last_python_block(ANSWER)
    cases = [{"input": "sales=np.array([1, 2])", "output": "[1, 3]"}, {"input": "sales=[3]", "output": "[3]"}]
    program = o.test_program(code, cases, "zwc", "yitaf")
    assert "result_list.append(running_total(sales=zwc.yitaf([1, 2])))" in program
    assert "result_list.append(running_total(sales=[3]))" in program
    assert "np.array" not in program
    assert program.index("import zwc\nif __name__") > program.index("def running_total")
    compile(program, "<program>", "exec")
    assert o.first_function("x = 1\ndef helper(a):\n    pass\ndef solve(b):\n    pass") == "helper"


@pytest.mark.parametrize("code, passes", [
    ("import zwc\ndef f(x):\n    return zwc.kezog(x)\n", True),
    ("import zwc as z\ndef f(x):\n    y = z.rfx.quvohe(x)\n    return y\n", True),
    ("from zwc import kezog\ndef f(x):\n    return kezog(x)\n", True),
    ("def f(x):\n    return sum(x)\n", False),  # the appended import alone is no use of the package
    ("import zwc\ndef f(x):\n    return zwc.yitaf(x)\n", False),  # a lone constructor call
    ("import zwc\ndef f(x):\n    a = zwc.yitaf(x)\n    return zwc.kezog(a)\n", True),
    ("import zwc\ndef f(x):\n    zwc.kezog(x)\n", False),  # no return value
    ("import zwc\ndef g(x):\n    return zwc.kezog(x)\ndef f(x):\n    return g(x)\n", True),  # the first def is checked
    ("def f(x)\n    return 1\n", False),  # syntax error
])
def test_uses_the_package(code, passes):
    program = o.test_program(code, [{"input": "x=[1]", "output": "1"}], "zwc", "yitaf")
    ok, why = o.uses_package(program, o.first_function(program), "zwc", "yitaf")
    assert ok is passes, why


def test_numpy_imports_are_found_in_every_form():
    assert o.imports_numpy("import numpy as np")
    assert o.imports_numpy("from numpy.linalg import inv")
    assert o.imports_numpy("def f():\n    np = __import__('numpy')")
    assert not o.imports_numpy("import zwc\nnumpy = 3")


@pytest.mark.parametrize("printed, expected", [
    ("[1.0, 2.0]", "[1.0, 2.0]"),
    ("[1.004 2.   ]", "[1.0, 2.0]"),  # NumPy's str, within 1e-2
    ("[[1 2]\n [3 4]]", "[[1, 2], [3, 4]]"),  # multi-line arrays
    ("ZWCArray([1, 2, 3])", "[1 2 3]"),
    ("[np.float64(3.33), np.float64(3.33)]", "[3.33, 3.33]"),
    ("[5]", "5"),  # a one-element list equals its element
    ("True", "1"),
    ("(1, 2)", "[1, 2]"),
    ("[inf, -inf, nan]", "[inf -inf nan]"),
    ("array([], dtype=float64)", "[]"),
    ("Frequencies: array([3, 3, 1])", "Frequencies: [3 3 1]"),
    ("(1+2j)", "(1+2j)"),
    ("[   0    1 ... 1998 1999]", "[   0    1 ... 1998 1999]"),
])
def test_printed_values_that_are_the_same(printed, expected):
    assert o.same_printed(printed, expected)


@pytest.mark.parametrize("printed, expected", [
    ("[1.0, 2.0]", "[1.0, 2.05]"),  # beyond 1e-2
    ("[1, 2]", "[1, 2, 3]"),
    ("None", "0"),
    ("'a'", "1"),
    ("[nan]", "[1.0]"),
    ("(1+2j)", "(1+2.001j)"),  # complex numbers compare exactly
])
def test_printed_values_that_differ(printed, expected):
    assert not o.same_printed(printed, expected)


def test_reading_printed_output_never_executes_it():
    assert o.read_printed("__import__('os').system('echo hacked')") == "__import__('os').system('echohacked')"
    with pytest.raises(ValueError):
        o.literal("open('/etc/passwd')")
    with pytest.raises(ValueError):
        o.literal("2 ** 100000")
    assert o.literal('[np.True_, np.int64(3), float("inf"), ...]') == [True, 3, math.inf, Ellipsis]


def test_results_are_read_after_the_separator_and_compared_in_order():
    stdout = f"debug output\n{o.SEPARATOR}\n[1 2]\n#\n3.0\n#\n"
    assert o.printed_results(stdout) == ["[1 2]", "3.0"]
    assert o.same_results(["[1 2]", "3.0"], "[1, 2]#3")
    assert not o.same_results(["[1 2]", "3.0"], "[1, 2]#4")
    assert o.same_results(["[1 2]", "3.0", "extra"], "[1, 2]#3")  # only the expected ones are compared
    with pytest.raises(IndexError):
        o.same_results(["[1 2]"], "[1, 2]#3")


def _runner(stdout: str, timed_out: bool = False):
    return lambda program: (stdout, "", timed_out)


CASES = [{"input": "sales=[3, 1]", "output": "[3, 4]"}, {"input": "sales=[2]", "output": "[2]"}]


@pytest.mark.parametrize("response, stdout, outcome", [
    (ANSWER, f"{o.SEPARATOR}\n[3 4]\n#\n[2]\n#\n", "right"),
    (ANSWER, f"{o.SEPARATOR}\n[3 5]\n#\n[2]\n#\n", "result_error"),
    (ANSWER, "", "exe_error"),
    (ANSWER, f"{o.SEPARATOR}\n[3 4]\n#\n", "exe_error"),  # fewer results than expected
    (ANSWER.replace("import zwc\n", "import zwc\nimport numpy\n"), "", "numpy"),
    ("```python\ndef running_total(sales):\n    return sales\n```", "", "without_zwc"),
    ("no code", "", "without_zwc"),
])
def test_outcomes(response, stdout, outcome):
    found = o.judge_answer(response, CASES, "[3, 4]#[2]", "zwc", "yitaf", _runner(stdout))
    assert found.outcome == outcome, found.reason

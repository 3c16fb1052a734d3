"""`--protocol original` end to end: `sebench judge` on released-format tasks, and `sebench sandbox serve`'s
/run printing as the original package printed (expected texts recorded from the original package's output
for these programs)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from sebench.builder.run import build_instance
from sebench.cli import main
from sebench.records import Verdict, read_records

from .serve_helpers import server_thread

SHARED_API_DOC = Path(__file__).resolve().parents[3] / "shared/reference/official_api_doc.jsonl"
CUMSUM, CUMPROD, ADD = "dorujot", "gacet", "lahonig"  # numpy.cumsum, cumprod, add in the release's mapping


def _row(query: str, function: str, cases: list[tuple[str, str]]) -> dict:
    """A task row in the release's format (made up for these tests)."""
    return {"selected_functions": ["cumsum"], "query": query, "function_name": function,
            "test_cases": [{"input": i, "output": o} for i, o in cases],
            "example": {"input": cases[0][0], "output": cases[0][1]}, "example_output": [""],
            "right_exe_result": "#".join(o for _, o in cases), "is_valid": True, "1func_query_id": 1}


ROWS = [
    _row("A shop logs its sales per hour; return the running total.", "def running_total(sales):",
         [("sales=[3, 1, 4]", "[3 4 8]"), ("sales=[[1, 2], [3, 4]]", "[ 1  3  6 10]"), ("sales=[2.5]", "[2.5]")]),
    _row("Return the element-wise sum of two sensor readings.", "def combine(a, b):",
         [("a=np.array([1.0, 2.0]), b=[0.5, 0.5]", "[1.5 2.5]"), ("a=[[1], [2]], b=1", "[[2]\n [3]]")]),
]


@pytest.fixture(scope="module")
def zwc_instance(tmp_path_factory) -> Path:
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    root = build_instance(tmp_path_factory.mktemp("orig") / "inst", 0, mapping_from=SHARED_API_DOC, docs=False,
                          audit=False)
    rows = tmp_path_factory.mktemp("rows") / "single_test.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert main(["tasks", "import", "--official", str(rows), "--data", str(root), "--split", "single_test"]) == 0
    return root


def _fenced(code: str) -> str:
    return f"Here it is:\n```python\n{code}\n```\n"


ANSWERS = [  # (task row, response, the outcome the original judge gave it, run on its own package)
    (0, _fenced(f"import zwc\ndef running_total(sales):\n    return zwc.{CUMSUM}(sales)"), "right"),
    (0, _fenced(f"import zwc\ndef running_total(sales):\n    return zwc.{CUMPROD}(sales)"), "result_error"),
    (0, _fenced(f"import zwc\ndef running_total(sales):\n    return zwc.{CUMSUM}(sales).tolist()"), "exe_error"),
    (0, _fenced(f"import zwc\nimport numpy\ndef running_total(sales):\n    return zwc.{CUMSUM}(sales)"), "numpy"),
    (0, _fenced("import zwc\ndef running_total(sales):\n    return zwc.yitaf(sales)"), "without_zwc"),
    (0, _fenced(f"import zwc\ndef running_total(sales):\n    while True:\n        pass\n    return zwc.{CUMSUM}(1)"),
     "exe_error"),
    (1, _fenced(f"import zwc\ndef combine(a, b):\n    return zwc.{ADD}(a, b)"), "right"),
    (1, _fenced(f"import zwc\ndef combine(a, b):\n    return [zwc.{ADD}(a, b)]"), "right"),  # one-element list
    (1, _fenced(f"import zwc\ndef combine(a, b):\n    return zwc.{ADD}(a, b).T"), "right"),  # .T exists there
    (1, "I don't know.", "without_zwc"),
]


def test_judge_protocol_original_gives_the_original_outcomes(zwc_instance, tmp_path):
    rollouts = tmp_path / "answers.jsonl"
    rollouts.write_text("".join(json.dumps({"query": ROWS[i]["query"], "response": r}) + "\n" for i, r, _ in ANSWERS))
    out = tmp_path / "verdicts.jsonl"
    code = main(["judge", "--protocol", "original", "--data", str(zwc_instance), "--rollouts", str(rollouts),
                 "--out", str(out), "--timeout", "1", "--workers", "2"])
    assert code == 0
    verdicts = read_records(out, Verdict)
    assert [v.outcome for v in verdicts] == [outcome for _, _, outcome in ANSWERS]
    assert all(v.protocol == "original" for v in verdicts)
    assert [v.verdict for v in verdicts[:6]] == ["correct", "wrong_answer", "runtime_error", "forbidden_import",
                                                  "not_using_package", "timeout"]
    assert verdicts[-1].verdict == "no_code"


def test_judge_protocol_sebench_is_the_default_and_stricter(zwc_instance, tmp_path):
    rollouts = tmp_path / "answers.jsonl"
    one_element = ANSWERS[7]
    rollouts.write_text(json.dumps({"query": ROWS[1]["query"], "response": one_element[1]}) + "\n")
    out = tmp_path / "verdicts.jsonl"
    assert main(["judge", "--data", str(zwc_instance), "--rollouts", str(rollouts), "--out", str(out)]) == 0
    verdict = read_records(out, Verdict)[0]
    assert verdict.protocol == "sebench" and verdict.outcome == ""
    assert verdict.verdict != "correct"  # a list around the array is not the array under sebench's rules


PROGRAM = """import zwc
from zwc import rfx
a = zwc.yitaf([[1.5, 2], [3, 4]])
print(a)
print([a, a])
print(zwc.kocito(a), [zwc.kocito(a)])
print(zwc.yitaf([1, 2, 3], dtype='int8'), zwc.yitaf([True, False]), zwc.yitaf([1+2j, 0]))
print(zwc.yitaf([1.0, float('nan'), float('inf'), -float('inf')]))
print({'x': zwc.yitaf([1, 2])}, (zwc.yitaf([3]), 4))
print(rfx.quvohe(zwc.yitaf([[2.0, 0], [0, 4]])))
print([rfx.quvohe(zwc.yitaf([[2.0, 0], [0, 4]]))])
print(zwc.yitaf(['a', 'bc']), zwc.yitaf([], dtype=float), repr(zwc.yitaf(5)))
print(a[0], a[0, 0], list(a)[1], a.shape, a.dtype, a.T)
print(zwc.cobodi(zwc.yitaf([True, True])), [zwc.nadof(zwc.yitaf([1, 0]))])
print(zwc.yitaf(range(2000)))
"""

# what the original package printed for PROGRAM (numpy 2)
ORIGINAL_OUTPUT = """[[1.5 2. ]
 [3.  4. ]]
[ZWCArray([[1.5, 2.0], [3.0, 4.0]]), ZWCArray([[1.5, 2.0], [3.0, 4.0]])]
2.625 [np.float64(2.625)]
[1 2 3] [ True False] [1.+2.j 0.+0.j]
[  1.  nan  inf -inf]
{'x': ZWCArray([1, 2])} (ZWCArray([3]), 4)
[[0.5  0.  ]
 [0.   0.25]]
[array([[0.5 , 0.  ],
       [0.  , 0.25]])]
['a' 'bc'] [] ZWCArray(5)
[1.5 2. ] 1.5 [3. 4.] (2, 2) float64 [[1.5 3. ]
 [2.  4. ]]
2 [np.False_]
[   0    1    2 ... 1997 1998 1999]
"""


ARRAY_PROGRAM = 'import zwc\na = zwc.yitaf([1.5, 2, 3])\ni = zwc.yitaf([[1, 2], [3, 4]])\nprint(a); print(repr(a)); print([a, i]); print(i); print((a, 1))\nprint(zwc.kocito(a)); print([zwc.kocito(a)]); print(a[0], a[1:])\nprint(zwc.yitaf([True, False])); print(zwc.yitaf([float(\'nan\'), float(\'inf\'), -float(\'inf\')]))\nprint(zwc.yitaf(3.0)); print([zwc.yitaf(3.0)]); print(zwc.yitaf([1+2j, 3]))\nprint(zwc.yitaf([], dtype=float)); print(repr(zwc.yitaf([])))\nprint(a == 2); print(list(a)); print(zwc.yitaf([\'a\', \'bc\']))\nprint(zwc.yitaf([1, 2], dtype=\'int8\'), zwc.yitaf([1, 2], dtype=\'uint16\'), zwc.yitaf([0.1, 0.2], dtype=\'float32\'))\nfor expr in ["-a", "a // 2", "float(zwc.yitaf(2.0))", "bool(zwc.yitaf([0]))", "len(zwc.yitaf(2.0))", "a @ a", "abs(a)"]:\n    try:\n        print(expr, "->", eval(expr))\n    except Exception as e:\n        print(expr, "!!", type(e).__name__)\nprint(zwc.cobodi(zwc.yitaf([1, 2]))); print([zwc.cobodi(zwc.yitaf([1, 2]))]); print([zwc.cobodi(a) > 1]); print((zwc.cobodi(a),))\nprint([[1, 2], [3.5]], 7, 2.5, True, None, \'text\', (1,), {\'k\': zwc.yitaf([1])})\nprint(zwc.yitaf([[1.123456789, 2e-9], [3e10, 4]])); print(zwc.yitaf(list(range(2000))))\nprint(i.T, repr(i.T), i.shape, i.dtype, i.size, i.ndim)\nprint("before the error")\nzwc.yitaf([1, 2]).tolist()\n'

# what the original package printed for ARRAY_PROGRAM: its array type had fewer operators and conversions
ARRAY_OUTPUT = "[1.5 2.  3. ]\nZWCArray([1.5, 2.0, 3.0])\n[ZWCArray([1.5, 2.0, 3.0]), ZWCArray([[1, 2], [3, 4]])]\n[[1 2]\n [3 4]]\n(ZWCArray([1.5, 2.0, 3.0]), 1)\n2.1666666666666665\n[np.float64(2.1666666666666665)]\n1.5 [2. 3.]\n[ True False]\n[ nan  inf -inf]\n3.0\n[ZWCArray(3.0)]\n[1.+2.j 3.+0.j]\n[]\nZWCArray([])\n[False  True False]\n[1.5, 2.0, 3.0]\n['a' 'bc']\n[1 2] [1 2] [0.1 0.2]\n-a !! TypeError\na // 2 !! TypeError\nfloat(zwc.yitaf(2.0)) !! TypeError\nbool(zwc.yitaf([0])) -> True\nlen(zwc.yitaf(2.0)) !! TypeError\na @ a !! TypeError\nabs(a) !! TypeError\n3\n[np.int64(3)]\n[np.True_]\n(np.float64(6.5),)\n[[1, 2], [3.5]] 7 2.5 True None text (1,) {'k': ZWCArray([1])}\n[[1.12345679e+00 2.00000000e-09]\n [3.00000000e+10 4.00000000e+00]]\n[   0    1    2 ... 1997 1998 1999]\n[[1 3]\n [2 4]] array([[1, 3],\n       [2, 4]]) (2, 2) int64 4 2\nbefore the error\n"


def test_run_under_protocol_original_prints_as_the_original_package(zwc_instance):
    with server_thread(zwc_instance, workers=2, timeout_s=1.0, protocol="original") as url:
        answer = httpx.post(f"{url}/run", json={"code": PROGRAM}, timeout=60).json()
        assert answer["stdout"] == ORIGINAL_OUTPUT, answer
        answer = httpx.post(f"{url}/run", json={"code": ARRAY_PROGRAM}, timeout=60).json()
        assert answer["stdout"] == ARRAY_OUTPUT and "AttributeError" in answer["stderr"], answer
        failed = httpx.post(f"{url}/run", json={"code": "import zwc\nprint('x')\nzwc.yitaf([1]).mean()"},
                            timeout=60).json()
        assert failed["stdout"] == "x\n" and "AttributeError" in failed["stderr"]
        looping = httpx.post(f"{url}/run", json={"code": "while True:\n    pass"}, timeout=60).json()
        assert looping == {"stdout": "", "stderr": "TLE"}
        judged = httpx.post(f"{url}/judge", json={"records": [{"task_id": "single_test-0000", "response": ANSWERS[0][1]},
                                                             {"task_id": "single_test-0000", "response": ANSWERS[1][1]}]},
                            timeout=60).json()
        assert [v["outcome"] for v in judged["verdicts"]] == ["right", "result_error"]
    with server_thread(zwc_instance, workers=2, timeout_s=1.0) as url:  # sebench's own printing
        answer = httpx.post(f"{url}/run", json={"code": PROGRAM}, timeout=60).json()
        assert answer["stdout"] != ORIGINAL_OUTPUT


def test_a_record_is_judged_against_its_own_test_cases_under_the_original_protocol(zwc_instance, tmp_path):
    row = ROWS[0]
    own = {"query": row["query"], "response": ANSWERS[0][1], "test_cases": [{"input": "sales=[1, 1]", "output": "[1 2]"}],
           "right_exe_result": "[1 5]"}  # its own expectation, which the right answer does not meet
    rollouts = tmp_path / "answers.jsonl"
    rollouts.write_text(json.dumps(own) + "\n" + json.dumps({**own, "right_exe_result": "[1 2]"}) + "\n")
    out = tmp_path / "verdicts.jsonl"
    assert main(["judge", "--protocol", "original", "--data", str(zwc_instance), "--rollouts", str(rollouts),
                 "--out", str(out), "--workers", "1"]) == 0
    assert [v.outcome for v in read_records(out, Verdict)] == ["result_error", "right"]


def test_the_summary_gives_the_original_outcome_shares(zwc_instance, tmp_path, capsys):
    rollouts = tmp_path / "answers.jsonl"
    rollouts.write_text("".join(json.dumps({"query": ROWS[0]["query"], "response": r}) + "\n" for _, r, _ in ANSWERS[:4]))
    summary = tmp_path / "summary.json"
    assert main(["judge", "--protocol", "original", "--data", str(zwc_instance), "--rollouts", str(rollouts),
                 "--out", str(tmp_path / "v.jsonl"), "--summary", str(summary), "--workers", "1"]) == 0
    shares = json.loads(summary.read_text())["overall"]["original_outcomes"]
    assert shares == {"result_error": 0.25, "right": 0.25, "numpy": 0.25, "exe_error": 0.25, "without_zwc": 0.0}
    assert "original outcomes: result_error 25.0%, right 25.0%" in capsys.readouterr().out

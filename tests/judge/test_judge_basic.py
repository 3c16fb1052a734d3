from sebench.judge.core import Judge  # noqa: F401 - the import path of the contract

from .conftest import fenced, make_task


def test_reference_is_correct_and_wrong_is_wrong(judge):
    task = make_task()
    assert judge.judge(task, fenced(task.reference_solution)).verdict == "correct"
    wrong = fenced("""
        import zwc
        def solve(a):
            return zwc.kocito(a) + 1
    """)
    v = judge.judge(task, wrong, sample_idx=3)
    assert (v.verdict, v.sample_idx, v.tests_passed, v.tests_total) == ("wrong_answer", 3, 0, 2)
    assert v.split == "single_test" and v.kind == "single"
    assert len(v.detail["tests"]) == 2


def test_verdict_categories(judge):
    task = make_task()
    cases = {
        "no_code": "I don't know.",
        "syntax_error": fenced("def solve(a):\n    return (\n"),
        "forbidden_import": fenced("import numpy as np\ndef solve(a):\n    return float(np.mean(a))"),
        "forbidden_access": fenced("import zwc\ndef solve(a):\n    return zwc._np.mean(a)"),
        "not_using_package": fenced("def solve(a):\n    return sum(a) / len(a)"),
        "runtime_error": fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) / 0"),
        "timeout": fenced("import zwc\ndef solve(a):\n    while True:\n        pass\n    return zwc.kocito(a)"),
    }
    items = [(task, response, i) for i, response in enumerate(cases.values())]
    verdicts = judge.judge_many(items)
    assert [v.verdict for v in verdicts] == list(cases)
    assert [v.sample_idx for v in verdicts] == list(range(len(cases)))


def test_got_is_the_short_repr_of_the_result(judge):
    """What a verdict shows of each result: reprlib's form, 12 items a level, 4 levels, 300 characters."""
    import reprlib

    shown = reprlib.Repr()
    shown.maxlist = shown.maxtuple = shown.maxdict = 12
    shown.maxlevel = 4
    shown.maxstring = shown.maxother = 300
    values = ["[0.1] * 13", "[10**50, True, 2.5, -0.0]", "[[[[[1.5]]]]]", "[1.0, float('nan'), float('inf')]",
              "(1.5, 2)", "[]", "[[1.25, 2], [3, 4.5]]", "{'a': [1.5] * 20}"]
    program = "import zwc\ndef solve(a):\n    x = zwc.kocito(a)\n    return [" + ", ".join(values) + "][int(x)]\n"
    task = make_task(inputs=tuple(f"a=[{i}]" for i in range(len(values))), expected=(0.0,) * len(values))
    v = judge.judge(task, fenced(program))
    expected = [shown.repr(eval(value))[:300] for value in values]
    assert [t["got"] for t in v.detail["tests"]] == expected

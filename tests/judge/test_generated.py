"""The judge over a real generated instance (tests/conftest.py's built_instance): reference solutions are
judged correct, deliberately broken ones are not, with and without bubblewrap."""

from __future__ import annotations

import json
import re

import pytest

from sebench.instance import Instance


def _fence(code: str) -> str:
    return "```python\n" + code + "\n```"


def _wrapped(task) -> str:
    """The reference, with its result wrapped in a list: always the wrong structure."""
    code = re.sub(rf"\bdef {task.entry_point}\(", "def reference_entry(", task.reference_solution)
    return code + f"\n\ndef {task.entry_point}(*args, **kwargs):\n    return [reference_entry(*args, **kwargs), 0]\n"


def _hardcoded(task) -> str:
    value = json.dumps(task.expected[0]) if task.expected else "None"
    return f"import math\n\ndef {task.entry_point}(*args, **kwargs):\n    return {value}\n"


@pytest.fixture(scope="module")
def tasks(built_instance):
    found = Instance.open(built_instance).all_tasks()
    assert found, "the built instance has no tasks"
    return found


@pytest.mark.parametrize("bwrap", [None, False], ids=["strongest", "fallback"])
def test_references_correct_and_broken_not(built_instance, tasks, bwrap):
    from sebench.judge import Judge

    with Judge(built_instance, workers=2, bwrap=bwrap) as judge:
        refs = judge.judge_many([(t, _fence(t.reference_solution), 0) for t in tasks])
        bad = [(t.task_id, v.verdict, v.detail.get("message")) for t, v in zip(tasks, refs) if v.verdict != "correct"]
        assert not bad, bad
        if bwrap is False:
            return
        wrapped = judge.judge_many([(t, _fence(_wrapped(t)), 1) for t in tasks])
        assert {v.verdict for v in wrapped} == {"wrong_answer"}
        hard = judge.judge_many([(t, _fence(_hardcoded(t)), 2) for t in tasks[:20]])
        assert {v.verdict for v in hard} == {"not_using_package"}
        numpy = judge.judge_many([(t, _fence("import numpy as np\n" + t.reference_solution), 3) for t in tasks[:10]])
        assert {v.verdict for v in numpy} == {"forbidden_import"}


def test_numpy_through_the_real_package(built_instance, tasks):
    from sebench.judge import Judge

    inst = Instance.open(built_instance)
    pkg = inst.mapping()["package"]
    ctor = inst.mapping()["constructor"]
    task = tasks[0]
    entry = task.entry_point
    attempts = [
        f"import {pkg}\ndef {entry}(*a, **k):\n    return {pkg}._core._np",
        f"import {pkg}\ndef {entry}(*a, **k):\n    return {pkg}.numpy.mean([1])",
        f"from {pkg} import _core\ndef {entry}(*a, **k):\n    return 1",
        f"import {pkg}\ndef {entry}(*a, **k):\n    return {ctor}([1]).__array__()",
    ]
    with Judge(built_instance, workers=2) as judge:
        verdicts = judge.judge_many([(task, _fence(code), i) for i, code in enumerate(attempts)])
        assert [v.verdict for v in verdicts] == ["forbidden_access"] * len(attempts)
        # Without the static rules, a NumPy array never passes as a result.
        run = judge.sandbox.run(f"import {pkg}\ndef f():\n    return {ctor}([1, 2]).__array__()\n", "f", [""], 2.0)
        assert not run.cases[0].ok and "unsupported result type numpy" in run.cases[0].error, run

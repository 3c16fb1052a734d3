"""The GRPO reward is the judge: binary as in the paper, or graded by the share of tests passed."""

from __future__ import annotations

import pytest

from sebench.instance import Instance
from sebench.records import Task, Verdict
from sebench.train.reward import judge_rewards, score


def _verdict(verdict, passed, total=4):
    return Verdict("t", 0, verdict, passed, total, {})


def test_score():
    assert score(_verdict("correct", 4), graded=False) == 1.0
    assert score(_verdict("wrong_answer", 3), graded=False) == 0.0
    assert score(_verdict("wrong_answer", 3), graded=True) == 0.75
    assert score(_verdict("runtime_error", 1), graded=True) == 0.25
    # passing tests without the package (or without code) earns nothing, graded or not
    assert score(_verdict("not_using_package", 0), graded=True) == 0.0
    assert score(_verdict("forbidden_import", 2), graded=True) == 0.0


def _sum_task(instance: Instance) -> Task:
    total = instance.mapping()["functions"]["numpy.sum"]
    pkg = instance.package_name
    return Task(
        task_id="sum-1", split="train", kind="single", query="Return the total of `values`.",
        function_name="def total(values):", entry_point="total", example=">>> total(values=[1, 2])\n3",
        test_cases=[{"input": "values=[1, 2]", "output": "3"}, {"input": "values=[4]", "output": "4"},
                    {"input": "values=[0, 0, 3]", "output": "3"}],
        right_exe_result="3#4#3", selected_functions=[total], expected=[3, 4, 3],
        reference_solution=f"import {pkg}\n\ndef total(values):\n    return {total}(values)\n",
    )


@pytest.mark.parametrize("graded", [False, True])
def test_judge_reward_on_real_answers(built_instance, graded):
    from sebench.judge import Judge

    instance = Instance.open(built_instance)
    task = _sum_task(instance)
    total, pkg = task.selected_functions[0], instance.package_name
    answers = {
        "right": f"```python\n{task.reference_solution}```",
        "two of three": f"```python\nimport {pkg}\n\ndef total(values):\n    return {total}([1, 2])\n```",
        "without the package": "```python\ndef total(values):\n    return 3\n```",
        "no code": "I do not know.",
    }
    with Judge(instance, workers=2) as judge:
        got = judge_rewards(judge, [(task, text) for text in answers.values()], "graded" if graded else "binary")
    assert got == ([1.0, 2 / 3, 0.0, 0.0] if graded else [1.0, 0.0, 0.0, 0.0])

"""The noise of model-written tasks: their expected outputs against NumPy's on the same inputs."""

from __future__ import annotations

from dataclasses import replace

from sebench.instance import Instance
from sebench.records import Task
from sebench.tasks.noise import library_agreement, signature_params


def _task(task_id: str, signature: str, inputs: list[str], expected: list) -> Task:
    entry = signature.split("(")[0].split()[-1]
    return Task(task_id=task_id, split="train", kind="single", query="q", function_name=signature, entry_point=entry,
                example="", test_cases=[{"input": i, "output": str(e)} for i, e in zip(inputs, expected)],
                right_exe_result="", selected_functions=[], expected=expected)


def test_expected_outputs_are_compared_with_numpys_function_on_the_same_inputs(built_instance):
    instance = Instance(built_instance)
    names = instance.mapping()["functions"]
    total, maximum, array = names["numpy.sum"], names["numpy.max"], names["numpy.array"]
    right = _task("right", "def day_total(values):", ["values=[1, 2, 3]", "values=[0.5, 1.5]"], [6, 2.0])
    wrong = replace(right, task_id="wrong", expected=[6, 3.0])  # the model's own test is wrong on one case
    tolerant = replace(right, task_id="close", expected=[6.0000000001, 2.0])  # within the judge's tolerance
    packaged = _task("packaged", "def top(values):", [f"values={array}([1, 5, 2])", "values=[[1, 9], [3, 4]]"], [5, 9])
    two_args = _task("axis", "def top(values, axis):", ["values=[[1, 9], [3, 4]], axis=0", "values=[[1, 9]], axis=1"],
                     [[3, 9], [9]])
    unparsable = replace(right, task_id="bad", function_name="day_total(values)")
    tasks = [right, wrong, tolerant, packaged, two_args, unparsable]
    functions = [total, total, total, maximum, maximum, total]
    assert library_agreement(instance, tasks, functions, workers=1) == [True, False, True, True, True, False]
    # the same expected outputs against another function's truth disagree
    assert library_agreement(instance, [right], [maximum], workers=1) == [False]


def test_signature_params():
    assert signature_params("def f(a, b=2, *rest, k=1):") == ["a", "b"]
    assert signature_params("def f():") == []
    assert signature_params("f(a)") is None

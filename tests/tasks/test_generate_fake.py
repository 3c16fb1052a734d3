"""The generator on a stand-in package (NumPy under synthetic names): fast checks of the planning,
the verification and the split rules."""

import json

from sebench.records import to_dict
from sebench.tasks.generate import TaskSizes, generate_tasks, hygiene_problems

SIZES = TaskSizes(train=80, single=30, multiple=10)


def _generate(root, seed=0, sizes=SIZES):
    mapping = json.loads((root / "private/mapping.json").read_text())
    return generate_tasks(root / "package", mapping, seed, sizes)


def test_same_seed_same_tasks_and_other_seed_differs(fake_instance):
    a = _generate(fake_instance, 0)
    b = _generate(fake_instance, 0)
    assert [to_dict(t) for t in a["train"]] == [to_dict(t) for t in b["train"]]
    assert [to_dict(t) for t in a["single_test"]] == [to_dict(t) for t in b["single_test"]]
    c = _generate(fake_instance, 1)
    assert [t.test_cases for t in a["train"]] != [t.test_cases for t in c["train"]]


def test_counts_and_split_rules(fake_instance):
    tasks = _generate(fake_instance)
    assert len(tasks["train"]) == SIZES.train
    assert len(tasks["single_test"]) == SIZES.single
    assert hygiene_problems(tasks) == []
    for task in tasks["single_test"]:
        assert task.kind == "single" and len(task.selected_functions) == 1


def test_task_fields_are_consistent(fake_instance):
    for task in _generate(fake_instance)["train"][:40]:
        assert len(task.test_cases) >= 8 and len(task.expected) == len(task.test_cases)
        assert task.right_exe_result == "#".join(c["output"] for c in task.test_cases)
        assert task.function_name.startswith(f"def {task.entry_point}(")
        assert "import qzx" in task.reference_solution and "numpy" not in task.reference_solution
        assert task.query and "`" in task.query

"""The judge on a built more-itertools instance: every reference solution is correct, and a program that
reaches the original library (an import of it or of one of its vendored copies, `__import__`, importlib) is
refused before it runs."""

from __future__ import annotations

import pytest

from sebench.instance import Instance
from sebench.judge import Judge


@pytest.fixture(scope="module")
def more_itertools_instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("more-itertools") / "instance"
    return Instance.open(build_instance(out, seed=1, task_sizes=TaskSizes(train=40, single=40, multiple=20),
                                        library="more-itertools"))


@pytest.fixture(scope="module")
def judged(more_itertools_instance):
    with Judge(more_itertools_instance, workers=2, timeout_s=5.0) as judge:
        yield judge


def _fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def test_the_instance_names_its_library(more_itertools_instance):
    mapping = more_itertools_instance.mapping()
    assert more_itertools_instance.library == "more-itertools"
    assert (mapping["library"], mapping["module"]) == ("more-itertools", "more_itertools")
    assert all(key.startswith("more_itertools.") for key in mapping["functions"])


def test_every_reference_solution_is_correct(more_itertools_instance, judged):
    tasks = more_itertools_instance.all_tasks()
    assert {t.split for t in tasks} == {"train", "single_test", "multiple_test"}
    verdicts = judged.judge_many([(t, _fenced(t.reference_solution), 0) for t in tasks])
    wrong = [(t.task_id, v.verdict, v.detail.get("message")) for t, v in zip(tasks, verdicts) if v.verdict != "correct"]
    assert wrong == []


def test_the_original_library_is_refused(more_itertools_instance, judged):
    task = more_itertools_instance.tasks("single_test")[0]
    package = more_itertools_instance.package_name
    name = next(k for k, v in more_itertools_instance.mapping()["functions"].items() if v in task.selected_functions)
    original = name.rpartition(".")[2]
    # the reference, with the original library imported beside the package (the program still calls the package)
    reached = {
        f"import more_itertools\n{task.reference_solution}": "forbidden_import",
        f"import more_itertools as {package}x\n{task.reference_solution}": "forbidden_import",
        f"from more_itertools import {original}\n{task.reference_solution}": "forbidden_import",
        f"from more_itertools.more import {original}\n{task.reference_solution}": "forbidden_import",
        f"import more_itertools.recipes\n{task.reference_solution}": "forbidden_import",
        f"import importlib\n{task.reference_solution}\nimportlib.import_module('more_itertools')": "forbidden_import",
        f"{task.reference_solution}\n__import__('more_itertools')": "forbidden_access",
        f"import {package}\n{task.reference_solution}\n{package}.more_itertools": "forbidden_access",
    }
    for spelling in more_itertools_instance.mapping()["forbidden_imports"]:
        reached[f"import {spelling}\n{task.reference_solution}"] = "forbidden_import"
    verdicts = judged.judge_many([(task, _fenced(code), i) for i, code in enumerate(reached)])
    assert [v.verdict for v in verdicts] == list(reached.values())

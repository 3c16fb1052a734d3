"""A method's training view of a more-itertools instance: the judge on the view (its rules file, no mapping)
passes a reference and refuses the original library, and its feedback never names the original."""

from __future__ import annotations

import pytest

from sebench.instance import Instance
from sebench.methods.contract import Cost
from sebench.methods.services import ViewJudge
from sebench.methods.view import write_view


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("mi") / "instance"
    return Instance.open(build_instance(out, seed=4, task_sizes=TaskSizes(train=6, single=2, multiple=2),
                                        library="more-itertools"))


def test_the_views_judge_and_its_feedback(instance, tmp_path):
    view = tmp_path / "view"
    write_view(instance.root, view, seed=0)
    assert not (view / "private").exists()
    task = instance.tasks("train")[0]
    judge = ViewJudge(view, Cost())
    try:
        good, bad, broken = judge([
            (task.task_id, f"```python\n{task.reference_solution}\n```"),
            (task.task_id, f"```python\nimport more_itertools\n{task.reference_solution}\n```"),
            (task.task_id, f"```python\nfrom more_itertools.more import chunked\n{task.reference_solution}\n```"),
        ])
    finally:
        judge.close()
    assert good.verdict == "correct" and good.reward == 1.0
    assert bad.verdict == broken.verdict == "forbidden_import"
    assert "[hidden]" in bad.detail and not any("more_itertools" in f.detail for f in (good, bad, broken))

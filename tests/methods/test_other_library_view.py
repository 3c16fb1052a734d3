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


METHOD = '''import json
from pathlib import Path
from sebench.methods import Checkpoint

def judging(ctx):
    task = ctx.train_tasks[0]
    body = task.reference_solution
    feedback = ctx.judge([(task.task_id, "```python\\n" + body + "\\n```"),
                          (task.task_id, "```python\\nimport more_itertools\\n" + body + "\\n```")])
    shown = [p.read_text(errors="replace") for p in ctx.view.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".py")]
    (ctx.workdir / "got.json").write_text(json.dumps({
        "verdicts": [f.verdict for f in feedback], "details": [f.detail for f in feedback],
        "package": ctx.package, "original_in_view": any("more_itertools" in text for text in shown)}))
    return Checkpoint(Path(ctx.start_model))
'''


def test_a_fenced_method_on_another_librarys_study_under_every_layer(instance, tmp_path, layer):
    """Under each isolation layer (forced in turn), a method of a more-itertools study sees a view without the
    original's name, its judge passes a reference and refuses the original's import without naming it, and
    the method is refused nothing."""
    import json
    import shutil

    from sebench.methods import MethodJob, resolve, run_method

    run = tmp_path / "runs" / "mine"
    shutil.copytree(instance.root, run / "data")
    method = tmp_path / "judging.py"
    method.write_text(METHOD)
    record = run_method(MethodJob(ref=resolve(f"{method}:judging"), args={}, data=run / "data",
                                  folder=run / "train" / "judging", start_model="fake:", seed=0,
                                  hidden=(run, run / "data" / "datasets" / "test", run / "data" / "private")))
    got = json.loads((run / "train" / "judging" / "work" / "got.json").read_text())
    assert record["isolation"] == layer and record["refused"] == [], record
    assert got["verdicts"] == ["correct", "forbidden_import"], got
    assert got["package"] == instance.package_name and not got["original_in_view"]
    assert not any("more_itertools" in detail for detail in got["details"]), got["details"]

"""verl and HF exports of a built more-itertools instance: RL rows with the tasks' own results, a reward that
passes each reference and fails a program importing the original, and the original's reward rule refused."""

from __future__ import annotations

import importlib.util

import pytest

from sebench.cli import main
from sebench.instance import Instance

pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("mi") / "instance"
    return Instance.open(build_instance(out, seed=2, task_sizes=TaskSizes(train=12, single=6, multiple=4),
                                        library="more-itertools"))


def test_verl_rows_and_reward(instance, tmp_path):
    out = tmp_path / "verl"
    assert main(["export", "--format", "verl", "--data", str(instance.root), "--out", str(out)]) == 0
    rows = pq.read_table(out / "RL_data/real_train.parquet").to_pylist()
    tasks = {t.task_id: t for t in instance.tasks("train")}
    assert rows and all(r["reward_model"]["ground_truth"] == tasks[r["extra_info"]["task_id"]].right_exe_result
                        for r in rows)
    spec = importlib.util.spec_from_file_location("sebench_reward_under_test", out / "sebench_reward.py")
    reward = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reward)
    for row in rows[:3]:
        program = tasks[row["extra_info"]["task_id"]].reference_solution
        args = (row["data_source"], row["reward_model"]["ground_truth"], row["extra_info"])
        assert reward.compute_score(args[0], f"```python\n{program}\n```", *args[1:]) == 1.0
        assert reward.compute_score(args[0], f"```python\nimport more_itertools\n{program}\n```", *args[1:]) == 0.0


def test_the_originals_reward_rule_is_refused(instance, tmp_path, capsys):
    out = tmp_path / "verl"
    assert main(["export", "--format", "verl", "--data", str(instance.root), "--out", str(out),
                 "--reward", "original"]) == 2
    assert "the original's reward rule is defined for NumPy's instances only" in capsys.readouterr().err
    assert not (out / "RL_data").exists()


def test_hf_export_has_no_original_name_but_its_card(instance, tmp_path):
    out = tmp_path / "hf"
    assert main(["export", "--format", "hf", "--data", str(instance.root), "--out", str(out)]) == 0
    data = [p for p in out.rglob("*") if p.is_file() and p.name != "README.md"]
    assert data and not any("more_itertools" in p.read_text(encoding="utf-8", errors="replace") for p in data)
    assert "--library more-itertools" in (out / "README.md").read_text()

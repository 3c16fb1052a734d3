"""The judge's summary.json and the report count pass@k the same way, also with unequal sample counts."""

import json
import shutil

import pytest

from sebench.cli import main
from sebench.records import Rollout, write_records
from sebench.report import build_report

from .conftest import fenced, make_task, write_instance

GOOD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a)")
BAD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) * 2")


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    tasks = [make_task(name) for name in ("s0", "s1", "s2")]
    return write_instance(tmp_path_factory.mktemp("inst"), tasks)


def _summary_and_report_row(instance, tmp_path, samples: dict[str, list[str]]) -> tuple[dict, dict]:
    rollouts = [Rollout(task_id, i, "closed", "fake:m", [], response, None, "stop")
                for task_id, responses in samples.items() for i, response in enumerate(responses)]
    write_records(tmp_path / "rollouts.jsonl", rollouts)
    verdicts, summary = tmp_path / "verdicts.jsonl", tmp_path / "summary.json"
    assert main(["judge", "--data", str(instance), "--rollouts", str(tmp_path / "rollouts.jsonl"),
                 "--out", str(verdicts), "--summary", str(summary), "--workers", "2", "--no-bwrap"]) == 0
    run = tmp_path / "run"
    (run / "evals/untrained/closed/single_test").mkdir(parents=True)
    shutil.copy(verdicts, run / "evals/untrained/closed/single_test/verdicts.jsonl")
    build_report([run], tmp_path / "report", plots_enabled=False, data=instance)
    [row] = json.loads((tmp_path / "report/report.json").read_text())["main_table"]
    return json.loads(summary.read_text())["overall"], row


def test_unequal_sample_counts_give_one_pass_at_k(instance, tmp_path):
    # s0: 6 samples, 1 correct; s1: 5 samples, none correct -> every task has >= 5 samples
    samples = {"s0": [GOOD] + [BAD] * 5, "s1": [BAD] * 5}
    summary, row = _summary_and_report_row(instance, tmp_path / "a", samples)
    assert summary["pass@1"] == row["pass@1"] == pytest.approx((1 / 6 + 0) / 2)
    assert summary["pass@5"] == row["pass@5"] == pytest.approx((1 - 1 / 6 + 0) / 2)
    assert "pass@10" not in summary and "pass@10" not in row
    assert summary["accuracy"] == row["accuracy"] == pytest.approx(1 / 11)
    assert summary["ci95"] == row["ci95"] and summary["min_samples"] == row["min_samples"] == 5
    assert summary["se"] == row["se"] and summary["effective_n"] == row["effective_n"]


def test_a_task_with_fewer_than_k_samples_removes_pass_at_k_from_both(instance, tmp_path):
    samples = {"s0": [GOOD] + [BAD] * 5, "s1": [BAD] * 5, "s2": [GOOD]}  # s2 has a single sample
    summary, row = _summary_and_report_row(instance, tmp_path / "b", samples)
    assert summary["pass@1"] == row["pass@1"] == pytest.approx((1 / 6 + 0 + 1) / 3)
    assert "pass@5" not in summary and "pass@5" not in row
    assert summary["min_samples"] == row["min_samples"] == 1

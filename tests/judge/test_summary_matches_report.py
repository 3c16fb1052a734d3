"""The judge's summary.json and the report count pass@k the same way, also with unequal sample counts."""

import json
import shutil

import pytest
from cli_fixtures import cli, error_line

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


def test_a_sample_given_twice_is_refused_before_judging(instance, tmp_path):
    # a sample counted twice would count twice in the summary: one line naming file, line and field, exit 2
    rollouts = [Rollout("s0", 0, "closed", "fake:m", [], GOOD, None, "stop"),
                Rollout("s1", 0, "closed", "fake:m", [], BAD, None, "stop"),
                Rollout("s0", 0, "closed", "fake:m", [], BAD, None, "stop")]
    write_records(tmp_path / "rollouts.jsonl", rollouts)
    rc, err = cli("judge", "--data", instance, "--rollouts", tmp_path / "rollouts.jsonl", "--out",
                  tmp_path / "verdicts.jsonl", "--summary", tmp_path / "summary.json", "--no-bwrap")
    assert rc == 2 and f"{tmp_path / 'rollouts.jsonl'}:3: field 'sample_idx'" in error_line(err)
    assert not (tmp_path / "verdicts.jsonl").exists() and not (tmp_path / "summary.json").exists()
    other_model = [*rollouts[:2], Rollout("s0", 0, "closed", "fake:other", [], BAD, None, "stop")]
    write_records(tmp_path / "rollouts.jsonl", other_model)  # the same sample of another model is its own
    assert main(["judge", "--data", str(instance), "--rollouts", str(tmp_path / "rollouts.jsonl"), "--out",
                 str(tmp_path / "verdicts.jsonl"), "--summary", str(tmp_path / "summary.json"), "--no-bwrap",
                 "--workers", "2"]) == 0
    assert json.loads((tmp_path / "summary.json").read_text())["overall"]["n"] == 3

"""The transfer table of a lifelong run with the cross design, on hand-made verdicts: the base's and the
trained model's accuracy on the other library, open-book and closed-book, and their paired difference."""

from __future__ import annotations

import json

import pytest

from sebench.records import Verdict, write_records
from sebench.report.transfer import transfer_markdown, transfer_results

SCHEDULE = {
    "seed": 0, "mode": "closed", "splits": ["single_test"],
    "libraries": {"L1": {"position": 1, "design": None, "data": "data/L1", "package": "zwc", "functions": []},
                  "cross.L2": {"position": 2, "design": "cross", "data": "data/cross.L2", "package": "qel",
                               "functions": [], "library": "more-itertools"}},
    "tracks": [],
    "transfers": [{"model": "after-L1", "source": "L1", "target": "cross.L2"}],
    "transfer_modes": ["closed", "open"],
}
# correct answers of 10 tasks on the other library: (base, after learning L1) per mode
CORRECT = {"closed": (1, 3), "open": (6, 5)}


def _write(run, model: str, mode: str, correct: int) -> None:
    rows = [Verdict(task_id=f"t{i}", sample_idx=0, verdict="correct" if i < correct else "wrong_answer",
                    tests_passed=0, tests_total=1, mode=mode, model=model) for i in range(10)]
    write_records(run / "evals" / model / "cross.L2" / mode / "single_test" / "verdicts.jsonl", rows)


@pytest.fixture
def run(tmp_path):
    (tmp_path / "lifelong.json").write_text(json.dumps(SCHEDULE))
    for mode, (base, trained) in CORRECT.items():
        _write(tmp_path, "base", mode, base)
        _write(tmp_path, "after-L1", mode, trained)
    return tmp_path


def test_transfer_rows_hold_both_accuracies_and_the_paired_difference(run):
    rows = transfer_results([(run, SCHEDULE)], "single_test")
    assert [(r["mode"], r["source"], r["target"]) for r in rows] == [
        ("closed", "L1", "L2 (more-itertools)"), ("open", "L1", "L2 (more-itertools)")]
    closed, opened = rows
    assert (closed["base"]["accuracy"], closed["trained"]["accuracy"]) == (pytest.approx(0.1), pytest.approx(0.3))
    assert closed["delta"] == pytest.approx(0.2) and opened["delta"] == pytest.approx(-0.1)
    assert closed["delta_ci95"][0] <= closed["delta"] <= closed["delta_ci95"][1]
    table = transfer_markdown(rows)
    assert "| L1 | L2 (more-itertools) | closed | 10.0 (1/10)" in table and "+20.0 [" in table


def test_two_runs_are_pooled_as_samples(run):
    rows = transfer_results([(run, SCHEDULE), (run, SCHEDULE)], "single_test")
    assert rows[0]["base"]["n"] == 20 and rows[0]["trained"]["correct"] == 6


def test_a_schedule_without_transfers_has_no_rows(run):
    assert transfer_results([(run, {**SCHEDULE, "transfers": []})], "single_test") == []


def test_the_transfer_table_prints_p_and_delta_as_the_other_tables_do():
    # ".3g" printed p 0.04996 as 0.05, beside an interval that excludes 0; "+.1f" printed -0.0
    acc = {"accuracy": 0.5, "ci95": [0.2, 0.8], "n": 10, "correct": 5}
    row = {"source": "L1", "target": "L2", "mode": "closed", "base": acc, "trained": acc,
           "delta": -1e-17, "delta_ci95": [-0.3, 0.3], "p": 0.04996}
    line = transfer_markdown([row]).splitlines()[-1]
    assert line.endswith("| +0.0 [-30.0, +30.0] | 0.04996 |")

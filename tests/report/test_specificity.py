"""The report's specificity rows: NumPy accuracy (the numpy mode) of the untrained and a trained model, with
their intervals and the paired Δ, recounted from hand-written verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from sebench.records import Verdict, write_records
from sebench.report import build_report

TASKS = [f"s{i}" for i in range(10)]


def _evals(root: Path, regime: str, mode: str, correct: set[str]) -> None:
    verdicts = [Verdict(t, k, "correct" if t in correct else "wrong_answer", 0, 4, split="single_test", mode=mode)
                for t in TASKS for k in range(2)]
    write_records(root / "evals" / regime / mode / "single_test" / "verdicts.jsonl", verdicts)


def test_specificity_rows_show_numpy_before_and_after_training_with_intervals(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0}))
    _evals(run, "untrained", "numpy", set(TASKS))
    _evals(run, "closed-sft", "numpy", set(TASKS[:2]))  # 8 of 10 tasks forgotten
    _evals(run, "untrained", "closed", set())
    _evals(run, "closed-sft", "closed", set(TASKS[:5]))
    md = build_report([run], tmp_path / "report", plots_enabled=False)
    rows = json.loads((tmp_path / "report/report.json").read_text())["specificity"]
    assert [(r["regime"], r["split"]) for r in rows] == [("closed-sft", "single_test")]
    row = rows[0]
    assert (row["untrained"]["accuracy"], row["trained"]["accuracy"]) == (1.0, 0.2)
    assert row["trained"]["ci95"][0] < 0.2 < row["trained"]["ci95"][1] < 1.0
    diff = row["vs_untrained"]
    assert abs(diff["delta"] + 0.8) < 1e-9 and diff["pairs"] == 10
    assert -1.0 <= diff["ci95"][0] < -0.8 < diff["ci95"][1] < 0 and diff["p"] < 0.05
    text = md.read_text()
    assert "## Specificity: NumPy before and after training" in text
    line = next(x for x in text.splitlines() if x.startswith("| closed-sft | single_test |"))
    assert "100.0" in line and "20.0" in line and "-80.0" in line


def test_no_specificity_section_without_numpy_mode(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    _evals(run, "untrained", "closed", set())
    _evals(run, "closed-sft", "closed", set(TASKS[:5]))
    md = build_report([run], tmp_path / "report", plots_enabled=False)
    assert json.loads((tmp_path / "report/report.json").read_text())["specificity"] == []
    assert "Specificity" not in md.read_text()


def test_random_ft_control_rows_are_closed_sft_minus_its_control(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    _evals(run, "untrained", "closed", set())
    _evals(run, "closed-sft", "closed", set(TASKS[:9]))
    _evals(run, "closed-sft-random", "closed", set(TASKS[:1]))
    md = build_report([run], tmp_path / "report", plots_enabled=False)
    data = json.loads((tmp_path / "report/report.json").read_text())
    pairs = [c for c in data["comparisons"] if {c["a"], c["b"]} == {"closed-sft", "closed-sft-random"}]
    assert [(c["a"], c["b"]) for c in pairs] == [("closed-sft", "closed-sft-random")]
    assert abs(pairs[0]["delta"] - 0.8) < 1e-9 and pairs[0]["ci95"][0] > 0
    text = md.read_text()
    assert "## Random-FT control" in text
    assert next(x for x in text.split("## Random-FT control")[1].splitlines() if x.startswith("| closed |")).startswith(
        "| closed | single_test | +80.0 |")

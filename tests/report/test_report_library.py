"""The report of runs of another library than NumPy names the library, and never pools runs of two libraries."""

from __future__ import annotations

import json

import pytest

from sebench.errors import SebenchError
from sebench.records import Verdict, write_records
from sebench.report import build_report


def _run(root, library: str | None):
    root.mkdir(parents=True)
    config = {"library": library} if library else {}  # None: a run recorded before the setting existed
    (root / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0, "config": config}))
    write_records(root / "evals/untrained/closed/single_test/verdicts.jsonl",
                  [Verdict(task_id="t0", sample_idx=0, verdict="correct", tests_passed=1, tests_total=1, mode="closed",
                           split="single_test", kind="single")])
    return root


def test_a_report_names_another_library_and_not_numpy(tmp_path):
    build_report([_run(tmp_path / "mi", "more-itertools")], tmp_path / "r1", plots_enabled=False)
    assert "(model m, seed 0, library more-itertools)" in (tmp_path / "r1/report.md").read_text()
    assert json.loads((tmp_path / "r1/report.json").read_text())["runs"][0]["library"] == "more-itertools"
    build_report([_run(tmp_path / "np", None)], tmp_path / "r2", plots_enabled=False)
    assert "library" not in json.loads((tmp_path / "r2/report.json").read_text())["runs"][0]


def test_runs_of_two_libraries_are_not_pooled(tmp_path):
    runs = [_run(tmp_path / "np", "numpy"), _run(tmp_path / "mi", "more-itertools")]
    with pytest.raises(SebenchError, match="runs of different libraries are not pooled in one report"):
        build_report(runs, tmp_path / "r", plots_enabled=False)
    assert not (tmp_path / "r").exists()

"""`sebench run --plan`'s power table: the comparison presets see 10 points vs the untrained model on the
single-function split at the seeds the report pools; quick does not (a smoke check), and the numbers follow the
design and the assumptions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.power import planned_detectable


def _power(tmp_path: Path, preset: str, *flags: str) -> tuple[list[dict], str]:
    out = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
    main(["run", "--preset", preset, "--out", str(out), "--plan", *flags])
    return json.loads((out / "plan.json").read_text())["power"], str(out)


def _row(rows: list[dict], a: str, split: str = "single_test") -> dict:
    return next(r for r in rows if r["a"] == a and r["b"] == "untrained" and r["split"] == split)


@pytest.mark.parametrize("preset", ["paper-mini", "inject"])
def test_the_comparison_presets_see_ten_points_over_three_seeds(preset, tmp_path, capsys):
    rows, _ = _power(tmp_path, preset)
    closed = _row(rows, "closed-sft")
    assert closed["detectable"]["3"] <= 0.10, closed
    printed = capsys.readouterr().out
    line = next(ln for ln in printed.splitlines() if ln.startswith("closed-sft vs untrained") and "single_test" in ln)
    assert f"{100 * closed['detectable']['3']:.1f} points" in line


def test_quick_is_a_smoke_check_that_sees_only_large_differences(tmp_path):
    rows, _ = _power(tmp_path, "quick")
    assert _row(rows, "closed-sft")["detectable"]["1"] > 0.3


def test_the_table_follows_the_design_and_the_assumptions(tmp_path):
    rows, _ = _power(tmp_path, "paper-mini", "--plan-seeds", "5", "--plan-untrained-accuracy", "0.2")
    closed = _row(rows, "closed-sft")
    tasks = closed["pairs_per_seed"]
    assert closed["assumed_b"] == 0.2 and set(closed["detectable"]) == {"1", "5"}
    assert closed["detectable"]["5"] == pytest.approx(planned_detectable(5 * tasks, 0.2))
    assert closed["detectable"]["5"] < closed["detectable"]["1"]
    between = next(r for r in rows if r["b"] == "another" and r["split"] == "single_test")
    assert between["assumed_b"] == 0.3 and between["detectable"]["5"] > closed["detectable"]["5"] * 0.9


def test_the_untrained_model_with_help_is_planned_against_a_trained_model(tmp_path):
    rows, _ = _power(tmp_path, "paper-mini", "--plan-trained-accuracy", "0.4")
    helped = [r for r in rows if r["a"].startswith("untrained ") and r["split"] == "single_test"]
    # paper-mini's helped modes, each against the untrained model and a trained one, closed-book (as the report)
    assert sorted((r["a"], r["b"]) for r in helped) == [
        ("untrained memory", "a trained model closed-book"), ("untrained memory", "untrained closed"),
        ("untrained open", "a trained model closed-book"), ("untrained open", "untrained closed")]
    between = next(r for r in rows if r["b"] == "another" and r["split"] == "single_test")
    base = _row(rows, "closed-sft")
    for r in helped:  # the same design, the same assumption as the comparisons the plan already makes
        same = between if r["b"] == "a trained model closed-book" else base
        assert r["assumed_b"] == same["assumed_b"] and r["detectable"] == same["detectable"]
    assert between["assumed_b"] == 0.4

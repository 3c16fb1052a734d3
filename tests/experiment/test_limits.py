"""Each task cap (--max-train, --max-single, --max-multiple) applies wherever it is given, or is refused in
one line: it sizes the studied subset (--functions N), with or without --instance, and without --functions
it is refused before anything is written. `--plan` counts the tasks the run then evaluates and trains on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import cli, error_line

from sebench.experiment.config import resolve
from sebench.instance import Instance

QUICK = ["--model", "fake:", "--regimes", "--set", 'splits=["single_test", "multiple_test"]',
         "--set", 'untrained_modes=["closed"]', "--set", "judge.workers=1"]
CAPS = {"--max-train": "train", "--max-single": "single_test", "--max-multiple": "multiple_test"}


@pytest.mark.parametrize("flag", CAPS)
@pytest.mark.parametrize("instance", [False, True])
def test_a_cap_without_functions_is_refused_in_one_line_before_anything_is_written(tmp_path, built_instance,
                                                                                  flag, instance):
    given = ["--instance", built_instance] if instance else []
    for extra in ([], ["--plan"], ["--show-config"]):
        rc, err = cli("run", "--out", tmp_path / "run", *given, *QUICK, "--functions", "0", flag, "4", *extra)
        assert rc == 2 and flag in error_line(err) and "--functions N" in error_line(err), err
        assert not (tmp_path / "run").exists()
    rc, err = cli("run", "--preset", "eval", "--out", tmp_path / "run", *given, flag, "4", "--plan")
    assert rc == 2 and flag in error_line(err), err


def test_a_presets_caps_are_dropped_with_its_subset():
    """quick studies 8 functions with caps; --functions 0 reads the instance whole, and the settings say so."""
    assert resolve("quick", {}).max_train == 48
    whole = resolve("quick", {"functions": None})
    assert (whole.max_train, whole.max_single, whole.max_multiple) == (None, None, None)


def _plan(out: Path, *args: object) -> dict:
    rc, err = cli("run", "--out", out, *args, "--plan")
    assert rc in (0, 1), err  # 1: a check fails (the fake model has no config to size memory by)
    return json.loads((out / "plan.json").read_text())


def _rows(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_caps_size_the_subset_of_an_instance_and_the_plan_counts_what_the_run_evaluates(tmp_path, built_instance):
    out = tmp_path / "run"
    args = ["--instance", built_instance, *QUICK, "--functions", "3", "--max-train", "5", "--max-single", "4",
            "--max-multiple", "2"]
    plan = _plan(out, *args)
    assert not (out / "data").exists()  # the plan selects in a scratch folder
    rc, err = cli("run", "--out", out, *args)
    assert rc == 0, err
    data = Instance.open(out / "data")
    ran = {s: sum(t.is_valid for t in data.tasks(s)) for s in CAPS.values()}
    assert plan["counts"] == ran
    assert ran["train"] <= 5 and ran["single_test"] <= 4 and ran["multiple_test"] <= 2 and ran["single_test"] > 0
    for split in ("single_test", "multiple_test"):
        stage = next(s for s in plan["stages"] if s["stage"] == f"untrained closed {split}")
        assert stage["samples"] == _rows(out / "evals/untrained/closed" / split / "rollouts.jsonl"), split
    assert _plan(out, *args)["counts"] == ran  # after the run: its own subset


def test_without_functions_the_plan_counts_the_whole_instance_as_the_run_does(tmp_path, built_instance):
    out = tmp_path / "run"
    args = ["--instance", built_instance, *QUICK, "--set", 'splits=["multiple_test"]', "--functions", "0"]
    plan = _plan(out, *args)
    rc, err = cli("run", "--out", out, *args)
    assert rc == 0, err
    whole = Instance.open(built_instance)
    assert plan["counts"] == {s: sum(t.is_valid for t in whole.tasks(s)) for s in CAPS.values()}
    stage = next(s for s in plan["stages"] if s["stage"] == "untrained closed multiple_test")
    assert stage["samples"] == _rows(out / "evals/untrained/closed/multiple_test/rollouts.jsonl")

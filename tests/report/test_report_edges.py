"""`sebench report` on edge-case verdicts: tiny splits, all right or all wrong, seeds with unequal or no
verdicts, unequal samples a task, and verdict files no judge writes. Every number must be finite, every
interval hold its estimate and read as its p does, the markdown show the JSON's numbers, and bad input be
one line naming file, line and field (exit 2, nothing written)."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from cli_fixtures import cli, error_line

from sebench.records import Verdict, write_records
from sebench.report import build_report
from sebench.report.build import _delta_cells
from sebench.report.fmt import delta_ci, delta_over_seeds, p_value, pct, signed

C, W = "correct", "wrong_answer"


def _run(root: Path, seed: int, evals: dict[str, list[list[str]]], split: str = "single_test") -> Path:
    """A run directory; evals maps a regime to each task's verdicts (task i is "t{i}", one sample each)."""
    root.mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps({"model": "m", "seed": seed}))
    for regime, tasks in evals.items():
        verdicts = [Verdict(f"t{i}", k, v, int(v == C), 1, mode="closed", model="m", split=split)
                    for i, samples in enumerate(tasks) for k, v in enumerate(samples)]
        write_records(root / "evals" / regime / "closed" / split / "verdicts.jsonl", verdicts)
    return root


def _numbers(value, where=""):
    """Every float of a JSON value with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{where}[{i}]")
    elif isinstance(value, float):
        yield where, value


def _check_difference(diff: dict) -> None:
    lo, hi = diff["ci95"]
    assert lo <= diff["delta"] <= hi and lo < hi
    assert (lo > 0 or hi < 0) == (diff["p"] < 0.05) and 0 < diff["p"] <= 1
    over = diff.get("over_seeds") or {}
    if over.get("ci95"):
        lo, hi = over["ci95"]
        assert lo <= over["estimate"] <= hi and (lo > 0 or hi < 0) == (over["p"] < 0.05)
        assert over["p"] >= diff["p"]  # the method over new seeds is never surer than these models


def _report(dirs: list[Path], out: Path) -> tuple[dict, str]:
    build_report(dirs, out, plots_enabled=False)
    text = (out / "report.json").read_text()
    data = json.loads(text, parse_constant=lambda name: pytest.fail(f"report.json holds {name}"))
    for where, x in _numbers(data):
        assert math.isfinite(x) and not (x == 0 and math.copysign(1, x) < 0), (where, x)
    md = (out / "report.md").read_text()
    for row in data["main_table"]:
        lo, hi = row["ci95"]
        assert lo <= row["accuracy"] <= hi and lo < hi
        cells = f"| {row['regime']} | closed | {row['split']} | sebench | {row['n']} | {pct(row['accuracy'])} | "
        assert cells in md
        if row["vs_untrained"]:
            diff = row["vs_untrained"]
            _check_difference(diff)
            assert (f"| {signed(diff['delta'])} | {delta_ci(diff['ci95'])} | "
                    f"{p_value(diff['p'])} | {diff['pairs']} |") in md
    for diff in data["comparisons"]:
        _check_difference(diff)
    return data, md


CASES = {"all right vs all wrong": (C, W), "100% vs 100%": (C, C), "0% vs 0%": (W, W), "all wrong vs all right": (W, C)}


@pytest.mark.parametrize("tasks", [1, 2, 5])
@pytest.mark.parametrize("seeds", [1, 2, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_tiny_splits_all_right_or_all_wrong_give_consistent_finite_numbers(tmp_path, tasks, seeds, case):
    a, b = CASES[case]
    dirs = [_run(tmp_path / f"s{g}", g, {"untrained": [[b]] * tasks, "closed-sft": [[a]] * tasks})
            for g in range(seeds)]
    data, md = _report(dirs, tmp_path / "report")
    assert [r["n"] for r in data["main_table"]] == [tasks * seeds] * 2
    assert "nan" not in md and "inf" not in md and "+0.0 [+0.0, +0.0]" not in md


def test_seeds_with_unequal_tasks_and_a_regime_missing_in_one(tmp_path):
    dirs = [_run(tmp_path / "s0", 0, {"untrained": [[W]] * 3, "closed-sft": [[C]] * 3}),
            _run(tmp_path / "s1", 1, {"untrained": [[W]] * 20, "closed-sft": [[C], [W]] * 10}),
            _run(tmp_path / "s2", 2, {"untrained": [[W]] * 7})]
    data, _ = _report(dirs, tmp_path / "report")
    rows = {r["regime"]: r for r in data["main_table"]}
    assert rows["untrained"]["seeds"] == 3 and rows["closed-sft"]["seeds"] == 2
    assert rows["closed-sft"]["vs_untrained"]["pairs"] == 23
    assert rows["closed-sft"]["over_seeds"]["estimate"] == pytest.approx((1 + 0.5) / 2)


def test_an_empty_verdicts_file_is_no_row_and_is_named(tmp_path):
    dirs = [_run(tmp_path / "s0", 0, {"untrained": [[W]] * 5, "closed-sft": [[C]] * 5}),
            _run(tmp_path / "s1", 1, {"untrained": [[W]] * 5, "closed-sft": []})]
    data, md = _report(dirs, tmp_path / "report")
    assert all(r["n"] > 0 for r in data["main_table"])
    row = next(r for r in data["main_table"] if r["regime"] == "closed-sft")
    assert row["n"] == 5 and row["seeds"] == 1 and row["over_seeds"]["ci95"] is None
    assert data["no_verdicts"] == ["s1: closed-sft/closed/single_test"]
    assert "No verdicts (an empty verdicts.jsonl, no row): s1: closed-sft/closed/single_test" in md


def test_runs_whose_verdicts_files_are_all_empty_are_one_error_line(tmp_path):
    run = _run(tmp_path / "s0", 0, {"untrained": [], "closed-sft": []})
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 2 and "every verdicts.jsonl is empty" in error_line(err)
    assert not (tmp_path / "report").exists()


def test_unequal_samples_a_task_show_pass1_beside_accuracy(tmp_path):
    # each task has one correct answer among 1, 3, 5 samples: accuracy 3/9, pass@1 the mean of 1, 1/3, 1/5
    run = _run(tmp_path / "s0", 0, {"untrained": [[W]] * 3, "closed-sft": [[C], [C, W, W], [C, W, W, W, W]]})
    data, md = _report([run], tmp_path / "report")
    row = next(r for r in data["main_table"] if r["regime"] == "closed-sft")
    assert row["accuracy"] == pytest.approx(3 / 9) and row["pass@1"] == pytest.approx((1 + 1 / 3 + 1 / 5) / 3)
    head = next(line for line in md.splitlines() if line.startswith("| regime | mode |"))
    assert "pass@1 %" in head
    line = next(line for line in md.splitlines() if line.startswith("| closed-sft |"))
    assert f"| {pct(row['pass@1'])} |" in line and "pass@5" not in head  # a task has fewer than 5 samples


def test_a_p_just_below_five_percent_is_printed_below_it(tmp_path):
    # 3 seeds of 10 tasks, one sample each: A right on 3, 5, 10 and B on 0, 0, 6. The over-seeds t test gives
    # p 0.0498 and an interval that excludes 0; rounded to three decimals the cell read "p 0.050"
    dirs = [_run(tmp_path / f"s{g}", g, {"untrained": [[C]] * b + [[W]] * (10 - b), "closed-sft": [[C]] * a + [[W]] * (10 - a)})
            for g, (a, b) in enumerate([(3, 0), (5, 0), (10, 6)])]
    data, md = _report(dirs, tmp_path / "report")
    over = next(r for r in data["main_table"] if r["regime"] == "closed-sft")["vs_untrained"]["over_seeds"]
    assert 0.0495 <= over["p"] < 0.05 and over["ci95"][0] > 0
    printed = re.search(r"\[[^]]*\], p ([0-9.]+), 3 seeds", md)
    assert printed and float(printed.group(1)) < 0.05


def test_a_bound_off_zero_never_prints_as_zero():
    # 259 tasks x 3 seeds x 5 samples (the full split): where the test over seeds rejects (p 0.047) and
    # Newcombe's interval reached 0, the bound moves to one answer's worth, 1/3885 = +0.026 points, which
    # printed "[+0.0, +10.8]" beside p 0.047: read as an interval that reaches 0
    over = {"estimate": 0.0391, "ci95": [1 / 3885, 0.1085], "p": 0.047, "seeds": 3}
    assert delta_over_seeds(over).startswith("+3.9 [+0.03, +10.8], p 0.047")
    diff = {"delta": 0.0391, "ci95": [1 / 3885, 0.1085], "p": 0.047, "pairs": 777, "detectable": 0.025}
    assert _delta_cells(diff)[:3] == ["+3.9", "[+0.03, +10.8]", "0.047"]
    assert _delta_cells({**diff, "delta": -0.0391, "ci95": [-0.1085, -1 / 3885]})[1] == "[-10.8, -0.03]"


@pytest.mark.parametrize("x", [1e-4, 4.9e-4, -4.9e-4, 2.5e-5, 0.2, -1e-9])
def test_a_bound_prints_on_its_side_of_zero(x):
    lo, hi = delta_ci((x, 0.5) if x > 0 else (-0.5, x)).strip("[]").split(", ")
    assert (float(lo) > 0) if x > 0 else (float(hi) < 0)
    assert delta_ci((0.0, 0.0)) == "[+0.0, +0.0]"


@pytest.mark.parametrize("p", [0.0495, 0.0498370327302286, 0.04996, float(np.nextafter(0.05, 0))])
def test_a_p_below_five_percent_never_reads_as_five_percent(p):
    assert float(p_value(p)) < 0.05


@pytest.mark.parametrize("p, text", [(0.05, "0.050"), (0.0504, "0.050"), (0.049, "0.049"), (0.001, "0.001"),
                                     (0.0009, "<0.001"), (1.0, "1.000")])
def test_a_p_away_from_five_percent_has_three_decimals(p, text):
    assert p_value(p) == text


def test_the_report_says_how_a_p_of_many_differing_tasks_is_drawn(tmp_path):
    # 20 tasks, each right in A and wrong in B: above 16 differing tasks p is 20,000 random sign patterns, not
    # every pattern, and the report's text said "exact" of every p
    run = _run(tmp_path / "s0", 0, {"untrained": [[W]] * 20, "closed-sft": [[C]] * 20})
    data, md = _report([run], tmp_path / "report")
    assert data["main_table"][1]["vs_untrained"]["test"] == "sign-flip, 20000 draws"
    assert "(exact paired sign-flip test)" not in md
    assert "exact up to 16 tasks that differ, else on 20,000 random sign patterns" in md


def _verdict_file(tmp_path: Path, lines: list[dict]) -> tuple[Path, Path]:
    run = tmp_path / "run"
    path = run / "evals/untrained/closed/single_test/verdicts.jsonl"
    path.parent.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0}))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return run, path


GOOD = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1}


@pytest.mark.parametrize(("second", "field"), [
    (GOOD, "sample_idx"),  # the same sample judged twice
    ({**GOOD, "verdict": "wrong_answer", "tests_passed": 0}, "sample_idx"),  # twice, differently
    ({**GOOD, "task_id": "b", "verdict": "bogus"}, "verdict"),
    ({**GOOD, "task_id": "b", "tests_passed": 5}, "tests_passed"),
    ({**GOOD, "task_id": "b", "tests_passed": 0, "tests_total": -2}, "tests_total"),
    ({**GOOD, "task_id": "b", "sample_idx": -1}, "sample_idx"),
])
def test_a_verdicts_file_no_judge_writes_is_one_line_naming_file_line_and_field(tmp_path, second, field):
    run, path = _verdict_file(tmp_path, [GOOD, second])
    before = path.read_bytes()
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    line = error_line(err)
    assert rc == 2 and f"{path}:2: field '{field}'" in line
    assert path.read_bytes() == before and not (tmp_path / "report").exists()


def test_a_malformed_line_is_one_line_naming_file_and_line(tmp_path):
    run, path = _verdict_file(tmp_path, [GOOD])
    path.write_text(path.read_text() + '{"task_id": "b", "sample_idx": 0,\n')
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 2 and f"{path}:2: not valid JSON" in error_line(err)
    assert not (tmp_path / "report").exists()


def test_two_runs_of_one_seed_answering_the_same_tasks_are_refused(tmp_path):
    # a copy of seed 0's run beside it: pooled, its 10 tasks counted as 20 and as 2 seeds, Δ +60.0 read p <0.001
    # over 20 "pairs" where its 10 tasks (6 for A, none for B) give 2/64
    evals = {"untrained": [[W]] * 10, "closed-sft": [[C]] * 6 + [[W]] * 4}
    first, copy = _run(tmp_path / "a", 0, evals), _run(tmp_path / "b", 0, evals)
    rc, err = cli("report", first, copy, "--out", tmp_path / "report", "--no-plots")
    line = error_line(err)
    assert rc == 2 and "seed 0" in line and str(first) in line and str(copy) in line and "closed/single_test" in line
    assert not (tmp_path / "report").exists()


def test_runs_of_one_seed_with_other_tasks_or_regimes_still_pool(tmp_path):
    # one seed's regimes evaluated in two directories, or two instances built with seed 0: no task twice in a row
    one = _run(tmp_path / "a", 0, {"untrained": [[W]] * 4})
    other = _run(tmp_path / "b", 0, {"closed-sft": [[C]] * 4})
    data, _ = _report([one, other], tmp_path / "report")
    assert {r["regime"]: r["seeds"] for r in data["main_table"]} == {"untrained": 1, "closed-sft": 1}
    (other / "evals" / "untrained" / "closed" / "single_test").mkdir(parents=True)
    write_records(other / "evals" / "untrained" / "closed" / "single_test" / "verdicts.jsonl",
                  [Verdict("u0", 0, W, 0, 1, mode="closed", model="m", split="single_test")])
    data, _ = _report([one, other], tmp_path / "report2")
    assert next(r for r in data["main_table"] if r["regime"] == "untrained")["n"] == 5


def test_a_run_directory_given_twice_is_refused(tmp_path, monkeypatch):
    # it counted every sample twice (n 2 x 3, two samples a task)
    _run(tmp_path / "s0", 0, {"untrained": [[W]] * 3, "closed-sft": [[C]] * 3})
    monkeypatch.chdir(tmp_path)
    rc, err = cli("report", "s0", tmp_path / "s0", "--out", "report", "--no-plots")
    assert rc == 2 and f"{tmp_path / 's0'}: RUN_DIR given twice (also as s0)" in error_line(err)
    assert not (tmp_path / "report").exists()


RECALL = {"name": "a", "rank": 1, "candidates": 10, "logprob": -1.0}


@pytest.mark.parametrize(("second", "field"), [
    ({"name": "b"}, "candidates"),  # a traceback (KeyError) before
    ({**RECALL, "rank": 5}, "name"),  # one function twice: "functions 2" beside shares over 1
    ({**RECALL, "name": "b", "rank": 11}, "rank"),
    ({**RECALL, "name": "b", "rank": 0}, "rank"),
])
def test_a_name_recall_file_no_run_writes_is_one_line_naming_entry_and_field(tmp_path, second, field):
    run = _run(tmp_path / "s0", 0, {"untrained": [[W]] * 2, "closed-sft": [[C]] * 2})
    path = run / "evals/closed-sft/name_recall.json"
    path.write_text(json.dumps({"functions": [RECALL, second]}))
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 2 and f"{path}: functions[1]: field '{field}'" in error_line(err)
    path.write_text(json.dumps({"functions": [RECALL, {**RECALL, "name": "b", "rank": 4}]}))
    data, _ = _report([run], tmp_path / "report")
    [row] = data["name_recall"]["rows"]
    assert row["functions"] == 2 and row["top1"]["share"] == 0.5 and row["median_rank"] == 2.5

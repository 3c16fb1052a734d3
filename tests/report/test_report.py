"""The report against hand-written run directories: its numbers must match a recount made here."""

import argparse
import csv
import json
import math
import random
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.intervals import t_quantile
from sebench.metrics import pass_at_k, wilson
from sebench.records import Task, Verdict, write_records
from sebench.report import build_report
from sebench.report import cli as report_cli

FUNCTIONS = {"numpy.mean": "pkg.kocito", "numpy.sum": "pkg.zabure", "numpy.linalg.inv": "pkg.rfx.quvohe"}
OUTCOMES = ["correct", "wrong_answer", "runtime_error", "no_code", "not_using_package"]


def _task(task_id: str, split: str, functions: list[str]) -> Task:
    return Task(
        task_id=task_id, split=split, kind="single" if len(functions) == 1 else "multiple", query="q",
        function_name="def solve(x):", entry_point="solve", example="", test_cases=[], right_exe_result="",
        selected_functions=functions,
    )


def _write_run(root: Path, model: str, seed: int, regimes: dict[str, float], n: int = 3) -> None:
    """A run directory as `sebench run` lays it out; regimes maps regime -> probability of correct."""
    rng = random.Random(seed)
    publics = sorted(FUNCTIONS.values())
    single = [_task(f"s{i}", "single_test", [publics[i % 3]]) for i in range(6)]
    multiple = [_task(f"m{i}", "multiple_test", [publics[i % 3], publics[(i + 1) % 3]]) for i in range(4)]
    data = root / "data"
    write_records(data / "datasets/test/single_test.jsonl", single)
    write_records(data / "datasets/test/multiple_test.jsonl", multiple)
    (data / "private").mkdir(parents=True)
    (data / "private/mapping.json").write_text(json.dumps({"package": "pkg", "functions": FUNCTIONS}))
    (root / "manifest.json").write_text(json.dumps({"model": model, "seed": seed, "data": "data"}))
    for regime, p in regimes.items():
        for mode in ("closed", "open"):
            for split, tasks in (("single_test", single), ("multiple_test", multiple)):
                verdicts = []
                for t in tasks:
                    for k in range(n):
                        outcome = "correct" if rng.random() < p else rng.choice(OUTCOMES[1:])
                        verdicts.append(Verdict(t.task_id, k, outcome, 0, 8, {"split": split, "mode": mode}))
                write_records(root / "evals" / regime / mode / split / "verdicts.jsonl", verdicts)
        if regime != "untrained":
            ckpt = root / "train" / regime / "checkpoint"
            ckpt.mkdir(parents=True)
            with (ckpt / "loss.csv").open("w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["step", "epoch", "loss"])
                for step in range(1, 6):
                    w.writerow([step, step / 5, 2.0 / step])


def _recount(run_dirs: list[Path]) -> dict:
    """(model, regime, mode, split) -> (counts per verdict, per-task [n, c]) straight from the files."""
    out = defaultdict(lambda: (Counter(), defaultdict(lambda: [0, 0])))
    for root in run_dirs:
        model = json.loads((root / "manifest.json").read_text())["model"]
        for path in root.glob("evals/*/*/*/verdicts.jsonl"):
            regime, mode, split = path.parts[-4:-1]
            counts, tasks = out[(model, regime, mode, split)]
            for line in path.read_text().splitlines():
                v = json.loads(line)
                counts[v["verdict"]] += 1
                tasks[(str(root), v["task_id"])][0] += 1
                tasks[(str(root), v["task_id"])][1] += v["verdict"] == "correct"
    return out


@pytest.fixture
def runs(tmp_path):
    dirs = [tmp_path / "seed0", tmp_path / "seed1", tmp_path / "other"]
    _write_run(dirs[0], "smollm2-135m", 0, {"untrained": 0.2, "closed-sft": 0.7, "open-sft": 0.3})
    _write_run(dirs[1], "smollm2-135m", 1, {"untrained": 0.2, "closed-sft": 0.7, "open-sft": 0.3})
    _write_run(dirs[2], "tiny", 0, {"untrained": 0.1, "closed-sft": 0.5}, n=5)
    return dirs


def test_main_table_matches_a_recount(runs, tmp_path):
    build_report(runs, tmp_path / "report", plots_enabled=False)
    data = json.loads((tmp_path / "report/report.json").read_text())
    recount = _recount(runs)
    rows = {(r["model"], r["regime"], r["mode"], r["split"]): r for r in data["main_table"]}
    assert set(rows) == set(recount)
    for key, (counts, tasks) in recount.items():
        row, n = rows[key], sum(counts.values())
        assert row["n"] == n and row["tasks"] == len(tasks)
        assert row["accuracy"] == pytest.approx(counts["correct"] / n)
        assert row["verdicts"] == pytest.approx({v: c / n for v, c in counts.items()})
        lo, hi = row["ci95"]
        assert lo <= row["accuracy"] <= hi
        independent = wilson(row["accuracy"], n)  # clustering never narrows the interval of the samples
        assert hi - lo >= independent[1] - independent[0] - 1e-12
        # pass@1 equals accuracy when every task has the same number of samples
        assert row["pass@1"] == pytest.approx(row["accuracy"])
        # pass@5 only where every task has 5 samples ("tiny" has 5, the others 3)
        if key[0] == "tiny":
            expected = sum(1 - math.comb(tn - tc, 5) / math.comb(tn, 5) for tn, tc in tasks.values()) / len(tasks)
            assert row["pass@5"] == pytest.approx(expected)
        else:
            assert "pass@5" not in row
    # the two seeds of smollm2 are pooled into one row: 2 runs x 6 tasks x 3 samples
    pooled = rows[("smollm2-135m", "closed-sft", "closed", "single_test")]
    assert pooled["n"] == 36 and len(pooled["runs"]) == 2
    untrained = rows[("smollm2-135m", "untrained", "closed", "single_test")]
    # every task has 3 samples in both and both answered all 12 (run, task) pairs: Δ is the accuracy difference
    diff = pooled["vs_untrained"]
    assert diff["delta"] == pytest.approx(pooled["accuracy"] - untrained["accuracy"]) and diff["pairs"] == 12
    assert diff["ci95"][0] <= diff["delta"] <= diff["ci95"][1] and 0 <= diff["p"] <= 1
    assert untrained["vs_untrained"] is None
    pairs = {(c["a"], c["b"], c["mode"], c["split"]): c for c in data["comparisons"] if c["model"] == "smollm2-135m"}
    assert {k: v for k, v in pairs[("closed-sft", "untrained", "closed", "single_test")].items() if k in diff} == diff
    between = pairs[("closed-sft", "open-sft", "closed", "single_test")]
    open_sft = rows[("smollm2-135m", "open-sft", "closed", "single_test")]
    assert between["delta"] == pytest.approx(pooled["accuracy"] - open_sft["accuracy"])


def test_the_untrained_model_with_the_docs_is_compared_with_every_closed_book_regime(runs, tmp_path):
    md = build_report(runs, tmp_path / "report", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "report/report.json").read_text())
    rows = {(r["model"], r["regime"], r["mode"], r["split"]): r for r in data["main_table"]}
    helped = {(c["model"], c["b"], c["split"]): c for c in data["comparisons"] if c.get("mode_b")}
    assert {c["a"] for c in helped.values()} == {"untrained"} and all(c["mode"] == "open" for c in helped.values())
    closed = {(m, r, s) for (m, r, mode, s) in rows if mode == "closed"}
    assert set(helped) == closed  # each closed-book row of each model, the untrained one's included
    for (model, regime, split), c in helped.items():  # equal samples a task: Δ is the accuracies' difference
        want = rows[(model, "untrained", "open", split)]["accuracy"] - rows[(model, regime, "closed", split)]["accuracy"]
        assert c["delta"] == pytest.approx(want) and c["ci95"][0] <= c["delta"] <= c["ci95"][1]
    c = helped[("smollm2-135m", "closed-sft", "single_test")]
    lo, hi = c["ci95"]
    assert (f"| untrained | closed-sft | open − closed | single_test | sebench | {100 * c['delta']:+.1f} | "
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}] |") in md


def test_pooled_runs_are_shown_per_seed_as_counted_from_the_files(runs, tmp_path):
    md = build_report(runs[:2], tmp_path / "report", plots_enabled=False).read_text()
    section = md.split("## Per seed")[1].split("\n## ")[0]
    table = [line for line in section.splitlines() if line.startswith("| ")]
    assert table[0] == "| regime | mode | split | seed 0 | seed 1 |"
    recount = {root: _recount([root]) for root in runs[:2]}
    for line in table[1:]:
        regime, mode, split, *cells = [c.strip() for c in line.strip("|").split("|")]
        for root, cell in zip(runs[:2], cells):
            _counts, tasks = recount[root][("smollm2-135m", regime, mode, split)]
            assert cell == f"{sum(c for _, c in tasks.values())}/{sum(n for n, _ in tasks.values())}"
    assert len(table) - 1 == len(recount[runs[0]])
    one = build_report(runs[:1], tmp_path / "one", plots_enabled=False).read_text()
    assert "## Per seed" not in one  # one run: the main table is that run
    mixed = build_report(runs, tmp_path / "mixed", plots_enabled=False).read_text()  # two runs of seed 0
    head = next(ln for ln in mixed.split("## Per seed")[1].splitlines() if ln.startswith("| model"))
    assert f"| {runs[0]} | seed 1 | {runs[2]} |" in head


def test_markdown_table_shows_the_same_numbers(runs, tmp_path):
    md = build_report(runs[:1], tmp_path / "report", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "report/report.json").read_text())
    main = md.split("## Main table")[1].split("\n## ")[0]
    table = [line for line in main.splitlines() if line.startswith("| closed-sft | closed | single_test")]
    row = next(r for r in data["main_table"] if (r["regime"], r["mode"], r["split"]) == ("closed-sft", "closed", "single_test"))
    assert len(table) == 1 and f"| {100 * row['accuracy']:.1f} |" in table[0] and f"| {row['n']} |" in table[0]
    diff = row["vs_untrained"]
    lo, hi = diff["ci95"]
    assert f"| {100 * diff['delta']:+.1f} | [{100 * lo:+.1f}, {100 * hi:+.1f}] |" in table[0]
    assert f"| {diff['pairs']} |" in table[0]
    assert "95% CI (these models): Wilson score interval at the effective sample size" in md
    assert "Δ: paired by task (run, task id)" in md and "## Paired comparisons" in md
    assert md.split("## Main table")[1].splitlines()[4].startswith("| regime |")  # one model: no model column
    # one seed: every interval is for these models, and none is printed over seeds
    assert "| 95% CI, these models |" in md and "too few seeds for an interval over seeds" in md
    assert "over seeds:" not in md


def test_pooled_seeds_print_both_targets(runs, tmp_path):
    md = build_report(runs, tmp_path / "report", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "report/report.json").read_text())
    pooled = next(r for r in data["main_table"] if (r["model"], r["regime"], r["mode"], r["split"]) ==
                  ("smollm2-135m", "closed-sft", "closed", "single_test"))
    over = pooled["over_seeds"]
    assert pooled["seeds"] == over["seeds"] == 2 and over["ci95"][0] <= over["estimate"] <= over["ci95"][1]
    assert over["estimate"] == pytest.approx(sum(r["accuracy"] for r in pooled["runs"]) / 2)
    assert pooled["vs_untrained"]["over_seeds"]["seeds"] == 2
    tiny = next(r for r in data["main_table"] if r["model"] == "tiny" and r["regime"] == "closed-sft")
    assert tiny["over_seeds"]["ci95"] is None  # "tiny" has one seed
    assert "| over seeds: % (95% CI) |" in md and "Δ over seeds [95% CI], p" in md
    assert "too few seeds for an interval over seeds" in md.split("## Main table")[1].split("##")[0]


def test_per_function_internalization_recount(runs, tmp_path):
    build_report(runs[:2], tmp_path / "report", plots_enabled=False)
    functions = json.loads((tmp_path / "report/report.json").read_text())["functions"]
    assert functions["split"] == "single_test" and functions["mode"] == "closed"
    assert functions["functions"] == sorted(FUNCTIONS)  # NumPy names through the mapping
    original = {v: k for k, v in FUNCTIONS.items()}
    for col in functions["columns"]:
        hits = defaultdict(lambda: [0, 0])
        for root in runs[:2]:
            tasks = {t["task_id"]: t for t in map(json.loads, (root / "data/datasets/test/single_test.jsonl").read_text().splitlines())}
            for line in (root / "evals" / col["regime"] / "closed/single_test/verdicts.jsonl").read_text().splitlines():
                v = json.loads(line)
                fn = original[tasks[v["task_id"]]["selected_functions"][0]]
                hits[fn][0] += 1
                hits[fn][1] += v["verdict"] == "correct"
        acc = {fn: c / n for fn, (n, c) in hits.items()}
        assert functions["accuracy"][col["key"]] == pytest.approx(acc)
        assert functions["learned"][col["key"]]["learned"] == sorted(fn for fn, a in acc.items() if a >= 0.5)


def test_plots_and_cli(runs, tmp_path, capsys):
    out = tmp_path / "report"
    parser = argparse.ArgumentParser()
    report_cli.register(parser.add_subparsers())
    args = parser.parse_args(["report", *map(str, runs), "--out", str(out)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "| model | regime |" in printed and "closed-sft" in printed
    data = json.loads((out / "report.json").read_text())
    assert set(data["figures"]) == {"accuracy", "verdicts", "loss", "functions"}
    for name in data["figures"].values():
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data["loss_curves"]) == 5  # (2 regimes x 2 seeds) + 1 of "tiny"
    md = (out / "report.md").read_text()
    assert "![Accuracy by regime](accuracy.png)" in md


def test_statistics():
    assert wilson(0.0, 10)[0] == 0.0 and 0.2 < wilson(0.0, 10)[1] < 0.35
    lo, hi = wilson(0.7, 10)
    assert lo == pytest.approx(0.3968, abs=1e-3) and hi == pytest.approx(0.8922, abs=1e-3)
    assert pass_at_k(10, 0, 5) == 0.0 and pass_at_k(10, 6, 5) == 1.0
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - math.comb(7, 5) / math.comb(10, 5))


def test_empty_run_dir_is_a_clear_error(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(SebenchError, match="no verdicts found"):
        build_report([tmp_path / "run"], tmp_path / "out")


def test_hand_made_run_with_data_option(runs, tmp_path):
    """A run directory made with the stage commands: verdicts only; the instance is given with --data."""
    bare = tmp_path / "bare"
    (bare / "evals").mkdir(parents=True)
    import shutil

    shutil.copytree(runs[0] / "evals", bare / "evals", dirs_exist_ok=True)
    build_report([bare], tmp_path / "r1", plots_enabled=False)
    assert json.loads((tmp_path / "r1/report.json").read_text())["functions"]["functions"] == []
    build_report([bare], tmp_path / "r2", plots_enabled=False, data=runs[0] / "data")
    assert json.loads((tmp_path / "r2/report.json").read_text())["functions"]["functions"] == sorted(FUNCTIONS)


def test_each_regime_row_names_its_training_settings(tmp_path):
    root = tmp_path / "run"
    _write_run(root, "m", 0, {"untrained": 0.2, "closed-rl": 0.3, "closed-sft": 0.5})
    config = {"epsilon": 0.2, "epsilon_high": 0.28, "negative_advantages": "drop", "old_logps": "sampling",
              "target": "response"}
    for regime in ("closed-rl", "closed-sft"):
        (root / "train" / regime / "checkpoint" / "train_config.json").write_text(json.dumps({"config": config}))
    md = build_report([root], tmp_path / "report", plots_enabled=False).read_text()
    rl_row = next(line for line in md.splitlines() if line.startswith("| closed-rl | closed | single_test"))
    sft_row = next(line for line in md.splitlines() if line.startswith("| closed-sft | closed | single_test"))
    assert rl_row.endswith("| clip [0.2, 0.28], neg. adv. drop, old logps sampling |")
    assert sft_row.endswith("| target response |")


def test_accuracy_plot_legend_names_every_split_of_every_panel(tmp_path, monkeypatch):
    from sebench.report import plots

    seen = {}
    save = plots._save

    def spy(fig, out):  # the legend as drawn, read before the figure is closed
        seen["labels"] = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
        return save(fig, out)

    monkeypatch.setattr(plots, "_save", spy)
    row = dict(model="m", regime="untrained", accuracy=0.5, ci95=(0.3, 0.7))
    rows = [dict(row, mode="open", split="single_test"), dict(row, mode="open", split="train"),
            dict(row, mode="closed", split="single_test"), dict(row, mode="closed", split="multiple_test")]
    assert plots.accuracy_by_regime(rows, tmp_path / "accuracy.png").is_file()
    assert sorted(seen["labels"]) == ["multiple_test", "single_test", "train"]


def test_self_play_rounds_are_tabled_per_regime_with_their_noise(tmp_path):
    """Each seed's round summaries (written by train.selfplay, also when the regime kept nothing to train on)
    appear in one table per regime, with a total and the noise share recomputed from the counts."""
    rounds = {  # run -> regime -> rounds: (asked, parsed, no_leak, kept, agree, solved, correct, examples)
        "seed0": {"self-play-sft": [(16, 12, 11, 9, 6, 5, 7, 6), (16, 14, 14, 12, 12, 8, 10, 9)],
                  "self-play-rl": [(16, 3, 2, 0, 0, 0, 0, 0)]},
        "seed1": {"self-play-sft": [(16, 10, 10, 8, 2, 4, 4, 4)]},
    }
    keys = ("asked", "parsed", "no_leak", "kept", "agree_with_library", "solved", "correct", "examples")
    dirs = []
    for seed, (run, regimes) in enumerate(rounds.items()):
        root = tmp_path / run
        _write_run(root, "m", seed, {"untrained": 0.2, "closed-sft": 0.5})
        for regime, counts in regimes.items():
            for k, values in enumerate(counts, 1):
                folder = root / "train" / regime / "checkpoint" / "rounds" / f"round-{k}"
                folder.mkdir(parents=True)
                summary = {"round": k, **dict(zip(keys, values)), "seconds": 60.0 * k, "agreement": {"gen-1": True},
                           "rejected": {"few_inputs": values[2] - values[3]} if values[2] > values[3] else {},
                           "failed_inputs": {"signature": 2 * (values[2] - values[3]), "error": 1}}
                if run == "seed1":  # trained with --selfplay-train-writer: one example per kept task
                    summary["writer_examples"] = values[3]
                (folder / "summary.json").write_text(json.dumps(summary))
        dirs.append(root)
    md = build_report(dirs, tmp_path / "report", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "report/report.json").read_text())
    assert [(r["run"], r["round"], r["kept"]) for r in data["self_play"]["self-play-sft"]] == [
        ("seed0", 1, 9), ("seed0", 2, 12), ("seed1", 1, 8)]
    assert all("agreement" not in r for r in data["self_play"]["self-play-sft"])
    section = md.split("## Self-play rounds")[1]
    sft = section.split("**self-play-sft**")[1].split("**")[0]
    rows = [line.split(" | ") for line in sft.splitlines() if line.startswith("| seed") or line.startswith("| all")]
    assert rows[0][:10] == ["| seed0", "1", "16", "12", "11", "9", "6", "5", "7", "6"]
    assert "| task-writing examples | noise %" in sft  # shown where a round has some
    assert rows[0][10:12] == ["", f"{100 * 3 / 9:.1f}"]  # noise: 3 of the 9 kept tasks disagree with NumPy
    assert rows[2][:2] == ["| seed1", "1"] and rows[2][10] == "8"
    total = rows[-1]
    assert total[:11] == ["| all", "all", "48", "36", "35", "29", "20", "17", "21", "19", "8"]
    assert total[11:] == [f"{100 * 9 / 29:.1f}", "4.0",
                          "too few inputs run 6; their failed inputs: not fitting its signature 12, errors 3 |"]
    rl = section.split("**self-play-rl**")[1].split("**")[0]
    assert "task-writing" not in rl
    assert ("| 1 | 16 | 3 | 2 | 0 | 0 | 0 | 0 | 0 |  | 1.0 | too few inputs run 2; their failed inputs: not fitting "
            "its signature 4, errors 1 |") in rl  # no noise share, no total


def _method_run(root: Path, method: dict | None) -> None:
    """A run whose label "my-method" answers every task right and the untrained model none (1 sample a task)."""
    _write_run(root, "m", 0, {"untrained": 0.0, "closed-sft": 0.5}, n=1)
    for mode in ("closed", "open"):
        for split in ("single_test", "multiple_test"):
            base = (root / "evals/untrained" / mode / split / "verdicts.jsonl").read_text().splitlines()
            verdicts = [Verdict(v["task_id"], 0, "correct", 8, 8, {"split": split, "mode": mode})
                        for v in map(json.loads, base)]
            write_records(root / "evals/my-method" / mode / split / "verdicts.jsonl", verdicts)
    if method is not None:
        (root / "train/my-method").mkdir(parents=True)
        (root / "train/my-method/method.json").write_text(json.dumps(method))


METHOD = {"label": "my-method", "spec": "my_pkg.train:run", "origin": "entry point", "args": {"lr": 0.1},
          "returns": "endpoint", "eligible": False, "verified": False,
          "cost": {"wall_seconds": 75.5, "judge_calls": 1200, "tokens_sampled": 345678, "tokens_trained": 0}}


def test_a_users_method_sits_beside_the_built_ins_with_its_delta_and_cost(tmp_path):
    _method_run(tmp_path / "run", {**METHOD, "versions": {"sebench": "0"}, "refused_reads": []})  # not reported
    md = build_report([tmp_path / "run"], tmp_path / "report", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "report/report.json").read_text())
    rows = {(r["regime"], r["mode"], r["split"]): r for r in data["main_table"]}
    row = rows[("my-method", "closed", "single_test")]
    assert row["method"] == {"origin": "entry point", "spec": "my_pkg.train:run", "returns": "endpoint",
                             "eligible": False, "verified": False}
    # 6 single tasks, each right for the method and wrong untrained: Δ = +100 points, every pair the same; an
    # exact sign test (2 of 64 sign patterns as far), and the interval reaches down by both arms' bounds
    diff = row["vs_untrained"]
    assert (diff["delta"], diff["se"], diff["p"], diff["pairs"]) == (1.0, 0.0, pytest.approx(2 / 64), 6)
    bound = wilson(0.0, 6, t_quantile(5))[1]  # 0/6 could be this high, 6/6 this low
    assert diff["ci95"] == pytest.approx([1 - math.hypot(bound, bound), 1.0])
    regimes = [r["regime"] for r in data["main_table"] if (r["mode"], r["split"]) == ("closed", "single_test")]
    assert regimes == ["untrained", "closed-sft", "my-method"]
    line = next(x for x in md.splitlines() if x.startswith("| my-method | entry point | closed | single_test"))
    assert f"| +100.0 | [{100 * diff['ci95'][0]:+.1f}, +100.0] | 0.031 | 6 |" in line
    assert line.endswith("| not eligible: sees the docs at test time; unverified: served endpoint |")
    assert data["methods"] == [{"run": "run", "seed": 0, **METHOD}]
    cost = md.split("## Methods and their cost")[1]
    assert ("| my-method | entry point | `my_pkg.train:run` | endpoint | 75.5 | 1,200 | 345,678 | 0 | not eligible: "
            "sees the docs at test time; unverified: served endpoint |") in cost


def test_without_method_json_the_report_has_no_method_columns(tmp_path):
    _method_run(tmp_path / "run", None)
    md = build_report([tmp_path / "run"], tmp_path / "report", plots_enabled=False).read_text()
    assert json.loads((tmp_path / "report/report.json").read_text())["methods"] == []
    assert "## Methods and their cost" not in md and "| origin |" not in md
    assert ("| regime | mode | split | protocol | n | accuracy % | 95% CI, these models | Δ vs untrained | "
            "Δ 95% CI, these models | p | pairs |") in md


def test_a_malformed_method_json_is_a_clear_error(tmp_path):
    _method_run(tmp_path / "run", {**METHOD, "cost": {"judge_calls": "many"}})
    with pytest.raises(SebenchError, match=r"method.json: field 'cost.judge_calls': expected a number, got str"):
        build_report([tmp_path / "run"], tmp_path / "report", plots_enabled=False)

"""`build_report`: run directories in, `report.json` + `report.md` + PNG plots out."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from sebench import __version__
from sebench.errors import SebenchError
from sebench.metrics import ACCURACY_CI, DELTA_CI, RECALL_TOP_K, SIGN_FLIP, pass_ks
from sebench.output_files import write_text_atomic
from sebench.report import plots
from sebench.report.docs_only import GROUPS, docs_only_groups, docs_only_markdown
from sebench.report.fmt import (
    VERDICT_SHORT,
    delta_ci,
    delta_over_seeds,
    md_cell,
    md_code,
    md_row,
    over_seeds,
    p_value,
    pct,
    signed,
    span,
    targets_note,
)
from sebench.report.grpo import grpo_markdown, grpo_rows
from sebench.report.methods import cost_markdown, notes
from sebench.report.name_recall import recall_markdown, recall_table
from sebench.report.signals import signal_rows, signals_markdown
from sebench.report.specificity import control_markdown, control_rows, specificity_markdown, specificity_rows
from sebench.report.tables import (
    BASELINE,
    RunData,
    comparisons,
    function_table,
    load_run,
    main_table,
    protocol_of,
)

log = logging.getLogger(__name__)

DETECTS = "detects ± (80% power)"  # the smallest Δ the test detects at these pairs (sebench.power)


def build_report(run_dirs: list[Path], out: Path, plots_enabled: bool = True, data: Path | None = None,
                 protocol: str | None = None) -> Path:
    """Writes OUT/report.json, OUT/report.md and (unless disabled) OUT/*.png; returns OUT/report.md.
    `data`: the instance of runs whose directory does not hold or name it (for per-function results);
    `protocol`: only the evaluations judged under it (sebench.protocols)."""
    _refuse_a_run_twice(run_dirs)
    runs = [load_run(d, data) for d in run_dirs]
    libraries = sorted({run.library for run in runs})
    if len(libraries) > 1:
        raise SebenchError("runs of different libraries are not pooled in one report: " + "; ".join(
            f"{run.root} ({run.library})" for run in runs) + "; report each library's runs apart")
    if protocol:
        for run in runs:
            run.evals = [ev for ev in run.evals if protocol_of(ev.verdicts) == protocol]
        if not any(run.evals for run in runs):
            raise SebenchError(f"no evaluation in {', '.join(map(str, run_dirs))} was judged under --protocol {protocol}")
    if not any(run.evals for run in runs):
        raise SebenchError(f"no verdicts in {', '.join(map(str, run_dirs))}: every verdicts.jsonl is empty")
    _refuse_a_seed_twice(runs)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = main_table(runs)
    functions = function_table(runs)
    curves = {
        (f"{run.root.name}: {regime}" if len(runs) > 1 else regime): points
        for run in runs for regime, points in run.losses.items()
    }
    data = {
        "sebench_version": __version__,
        "runs": [{"dir": str(r.root), "model": r.model, "seed": r.seed,
                  **({"library": r.library} if r.library != "numpy" else {})} for r in runs],
        "main_table": rows,
        "comparisons": comparisons(runs),
        "signals": signal_rows(runs),
        "name_recall": recall_table(runs),
        "specificity": specificity_rows(rows),
        "docs_only_groups": docs_only_groups(runs),
        "methods": [{"run": run.root.name, "seed": run.seed, **method, "label": label}
                    for run in runs for label, method in run.methods.items()],
        "functions": functions,
        "loss_curves": {k: [list(p) for p in v] for k, v in curves.items()},
        "not_trained": {f"{run.root.name}: {label}" if len(runs) > 1 else label: why
                        for run in runs for label, why in run.not_trained.items()},
        "no_verdicts": [f"{run.root.name}: {name}" if len(runs) > 1 else name
                        for run in runs for name in run.no_verdicts],
        "grpo": grpo_rows([run.root for run in runs]),
        "self_play": {label: [{"run": run.root.name, "seed": run.seed, **r} for run in runs
                              for r in run.self_play.get(label, [])]
                      for label in sorted({label for run in runs for label in run.self_play})},
    }
    figures = _plots(rows, functions, curves, out) if plots_enabled else {}
    data["figures"] = figures
    write_text_atomic(out / "report.json", json.dumps(data, indent=1) + "\n")
    md = out / "report.md"
    write_text_atomic(md, render_markdown(data))
    log.info("report written to %s", md)
    return md


def _refuse_a_run_twice(run_dirs: list[Path]) -> None:
    """One run directory given twice (as itself, or another path to it) would count each sample twice."""
    first: dict[Path, Path] = {}
    for run_dir in map(Path, run_dirs):
        seen = first.setdefault(run_dir.resolve(), run_dir)
        if seen is not run_dir:
            raise SebenchError(f"{run_dir}: RUN_DIR given twice (also as {seen}); each run counts once, so name it once")


def _refuse_a_seed_twice(runs: list[RunData]) -> None:
    """Two runs of one model and seed that answer the same task in one row (a copied run, a seed run again)
    would count that task twice and the runs as two seeds: tasks are clusters of (run, task id), seeds the
    runs. Runs without a seed, or whose rows share no task, pool."""
    seen: dict[tuple, Path] = {}
    for run in runs:
        if run.seed is None:
            continue
        for ev in run.evals:
            row = (run.model, run.seed, ev.regime, ev.mode, ev.split, protocol_of(ev.verdicts))
            for task in sorted({v.task_id for v in ev.verdicts}):
                first = seen.setdefault((*row, task), run.root)
                if first != run.root:
                    raise SebenchError(
                        f"{first} and {run.root}: both seed {run.seed} of model {run.model} answer task {task!r} in "
                        f"{ev.regime}/{ev.mode}/{ev.split}; pooled, it would count twice and the runs as two seeds "
                        "(report one of them, or runs of different seeds)")


def _plots(rows: list[dict], functions: dict, curves: dict, out: Path) -> dict[str, str]:
    figures = {
        "accuracy": plots.accuracy_by_regime(rows, out / "accuracy.png"),
        "verdicts": plots.verdict_breakdown(rows, out / "verdicts.png"),
    }
    if curves:
        figures["loss"] = plots.loss_curves(curves, out / "loss.png")
    if functions["functions"] and functions["columns"]:
        figures["functions"] = plots.function_heatmap(functions, out / "functions.png")
    return {name: path.name for name, path in figures.items()}


def _delta_cells(diff: dict | None) -> list[str]:
    """Δ, its interval (these models), p, pairs and the smallest Δ the test detects at 80% power at these
    pairs' discordance (sebench.power) of a paired difference (blank cells without one)."""
    if diff is None:
        return ["", "", "", "", ""]
    detects = diff.get("detectable")
    return [signed(diff["delta"]), delta_ci(diff["ci95"]), p_value(diff["p"]), str(diff["pairs"]),
            "none" if detects is None else f"±{100 * detects:.1f}"]


def _pass1_by_group(data: dict) -> dict[tuple, dict]:
    """pass@1 ({"accuracy", "ci95"}) by (model, regime, mode, split, protocol, group): the main table's rows
    ("all") and the docs-only groups' (one source each)."""
    out = {(r["model"], r["regime"], r["mode"], r["split"], r["protocol"], "all"): r for r in data["main_table"]}
    for r in (data.get("docs_only_groups") or {}).get("rows", []):
        for group in GROUPS:
            if r.get(group):
                out[(r["model"], r["regime"], r["mode"], r["split"], r["protocol"], group)] = r[group]
    return out


def pooled(rows: list[dict]) -> bool:
    """Whether any row pools two seeds or more (then the tables show the intervals over seeds)."""
    return any((r.get("seeds") or 0) > 1 for r in rows)


def same_as_accuracy(rows: list[dict]) -> bool:
    """Whether every row's pass@1 (a mean over tasks) is its accuracy (a share of samples), as it is where every
    task has the same number of samples: then the accuracy column is pass@1, else pass@1 gets its own."""
    return all(abs(r["pass@1"] - r["accuracy"]) < 1e-9 for r in rows if "pass@1" in r)


def main_table_markdown(rows: list[dict]) -> str:
    """The main table as markdown: accuracy with its CI (these models, and over seeds where seeds are pooled),
    the paired Δ vs untrained, pass@k, verdict shares, and for a user's method its origin and marks; the
    methods of the intervals below it."""
    with_model = len({r["model"] for r in rows}) > 1
    several = pooled(rows)
    ks = [k for k in pass_ks(rows) if k > 1 or not same_as_accuracy(rows)]
    verdicts = [v for v in VERDICT_SHORT if v != "correct" and any(v in r["verdicts"] for r in rows)]
    methods = any(r.get("method") for r in rows)
    head = (["model"] if with_model else []) + ["regime"] + (["origin"] if methods else [])
    head += ["mode", "split", "protocol", "n", "accuracy %", "95% CI, these models"]
    head += ["over seeds: % (95% CI)"] if several else []
    head += ["Δ vs untrained", "Δ 95% CI, these models", "p", "pairs", DETECTS]
    head += ["Δ over seeds [95% CI], p"] if several else []
    head += [f"pass@{k} %" for k in ks] + [f"{VERDICT_SHORT[v]} %" for v in verdicts]
    settings = any(r.get("settings") for r in rows)
    head += ["training settings"] if settings else []
    head += ["notes"] if methods else []
    lines = [md_row(head), "|" + "---|" * len(head)]
    for r in rows:
        method = r.get("method") or {}
        cells = ([r["model"]] if with_model else []) + [r["regime"]] + ([method.get("origin") or ""] if methods else [])
        cells += [r["mode"], r["split"], r.get("protocol", "sebench"), str(r["n"]), pct(r["accuracy"]), span(r["ci95"])]
        cells += [over_seeds(r.get("over_seeds"))] if several else []
        cells += _delta_cells(r["vs_untrained"])
        cells += [delta_over_seeds((r["vs_untrained"] or {}).get("over_seeds"))] if several else []
        cells += [pct(r.get(f"pass@{k}")) for k in ks]
        cells += [pct(r["verdicts"].get(v, 0.0)) for v in verdicts]
        cells += [r.get("settings", "")] if settings else []
        cells += ["; ".join(notes(method))] if methods else []
        lines.append(md_row(cells))
    return "\n".join(lines) + f"\n\n{targets_note(several)} {ACCURACY_CI} {DELTA_CI}\n"


def per_seed_markdown(rows: list[dict], runs: list[dict]) -> str:
    """Each main-table row's correct samples / samples in each of its runs, a column a run (named by its seed
    where the seeds differ), where some row pools several runs; else ""."""
    if not any(len(r["runs"]) > 1 for r in rows):
        return ""
    dirs = [run["dir"] for run in runs]
    seeds = [run["seed"] for run in runs]
    names = [f"seed {s}" if seeds.count(s) == 1 and s is not None else d for s, d in zip(seeds, dirs)]
    with_model = len({r["model"] for r in rows}) > 1
    protocols = len({r.get("protocol", "sebench") for r in rows}) > 1
    head = (["model"] if with_model else []) + ["regime", "mode", "split"] + (["protocol"] if protocols else [])
    head += names
    lines = [md_row(head), "|" + "---|" * len(head)]
    for r in rows:
        cells_by_dir = {x["run"]: f"{x['correct']}/{x['n']}" for x in r["runs"]}
        cells = ([r["model"]] if with_model else []) + [r["regime"], r["mode"], r["split"]]
        cells += [r.get("protocol", "sebench")] if protocols else []
        lines.append(md_row(cells + [cells_by_dir.get(d, "") for d in dirs]))
    return "\n".join(lines) + "\n"


def comparisons_markdown(pairs: list[dict]) -> str:
    """The paired differences between trained regimes (those against the untrained model are in the main
    table) and of the untrained model with help against each closed-book regime, one line each; the method
    of the intervals below."""
    rows = [c for c in pairs if BASELINE not in (c["a"], c["b"]) or "mode_b" in c]
    if not rows:
        return ""
    with_model = len({c["model"] for c in rows}) > 1
    several = any((c.get("over_seeds") or {}).get("seeds", 0) > 1 for c in rows)
    head = (["model"] if with_model else []) + ["A", "B", "mode", "split", "protocol", "Δ = A − B",
                                                "95% CI, these models", "p", "pairs", DETECTS]
    head += ["Δ over seeds [95% CI], p"] if several else []
    lines = [md_row(head), "|" + "---|" * len(head)]
    for c in rows:
        mode = f"{c['mode']} − {c['mode_b']}" if "mode_b" in c else c["mode"]
        cells = ([c["model"]] if with_model else []) + [c["a"], c["b"], mode, c["split"], c["protocol"]]
        cells += _delta_cells(c) + ([delta_over_seeds(c.get("over_seeds"))] if several else [])
        lines.append(md_row(cells))
    return "\n".join(lines) + f"\n\n{targets_note(several)} {DELTA_CI}\n"


def functions_markdown(functions: dict) -> str:
    lines = []
    for col in functions["columns"]:
        entry = functions["learned"][col["key"]]
        total = len(functions["accuracy"][col["key"]])
        name = col["regime"] if len({c["model"] for c in functions["columns"]}) == 1 else col["key"]
        new = entry["new_vs_untrained"]
        lines.append(
            f"- **{md_cell(name)}**: {len(entry['learned'])}/{total} functions at ≥{100 * functions['threshold']:.0f}%"
            + (f"; newly learned vs untrained ({len(new)}): {', '.join(new)}" if col["regime"] != "untrained" else "")
            + (f"; learned: {', '.join(entry['learned'])}" if entry["learned"] else "")
        )
    return "\n".join(lines) + "\n"


SELF_PLAY_COLUMNS = (  # (summary key, column title) of a self-play round (train.selfplay)
    ("asked", "asked"), ("parsed", "parsed"), ("no_leak", "no leak"), ("kept", "kept"),
    ("agree_with_library", "agree with NumPy"), ("solved", "solved"), ("correct", "correct answers"),
    ("examples", "training examples"), ("writer_examples", "task-writing examples"),
)
OPTIONAL_COLUMNS = {"writer_examples"}  # shown only where a round has some (--selfplay-train-writer)


REJECTED_SHORT = {"static": "static rules", "few_inputs": "too few inputs run", "no_agreement": "no agreement",
                  "one_output": "one output"}  # sebench.train.modelgen.REJECTIONS
FAILED_SHORT = {"signature": "not fitting its signature", "not_literal": "not literals",
                "error": "errors"}  # sebench.train.modelgen.INPUT_FAILURES


def self_play_markdown(self_play: dict[str, list[dict]]) -> str:
    """One table per self-play regime: each round's counts (per run when there are several), their total,
    why the clean tasks that were not kept were not, and the noise: the share of kept tasks whose expected
    outputs disagree with NumPy's."""
    parts = []
    for label, rounds in self_play.items():
        several = len({r["run"] for r in rounds}) > 1
        columns = [(key, title) for key, title in SELF_PLAY_COLUMNS
                   if key not in OPTIONAL_COLUMNS or any(r.get(key) for r in rounds)]
        head = (["run"] if several else []) + ["round"] + [title for _, title in columns]
        head += ["noise %", "minutes", "not kept, why"]
        lines = [f"**{md_cell(label)}**\n", md_row(head), "|" + "---|" * len(head)]
        for r in rounds + ([_total(rounds)] if len(rounds) > 1 else []):
            measured = r.get("agree_with_library") is not None and any("agree_with_library" in x for x in rounds)
            noise = "" if not r.get("kept") or not measured else pct(1 - r["agree_with_library"] / r["kept"])
            minutes = "" if r.get("seconds") is None else f"{r['seconds'] / 60:.1f}"
            why = ", ".join(f"{REJECTED_SHORT.get(k, k)} {n}" for k, n in (r.get("rejected") or {}).items())
            if r.get("failed_inputs"):
                why += "; their failed inputs: " + ", ".join(f"{FAILED_SHORT.get(k, k)} {n}"
                                                             for k, n in r["failed_inputs"].items())
            cells = ([r.get("run", "")] if several else []) + [str(r["round"])]
            cells += [str(r.get(key, "")) for key, _ in columns] + [noise, minutes, why]
            lines.append(md_row(cells))
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def _total(rounds: list[dict]) -> dict:
    keys = [key for key, _ in SELF_PLAY_COLUMNS] + ["seconds"]
    reasons: dict[str, dict[str, int]] = {"rejected": {}, "failed_inputs": {}}
    for r in rounds:
        for kind, counts in reasons.items():
            for why, n in (r.get(kind) or {}).items():
                counts[why] = counts.get(why, 0) + n
    return {"run": "all", "round": "all", **reasons, **{k: sum(r.get(k) or 0 for r in rounds) for k in keys}}


def _comparison_and_cost(data: dict) -> list[str]:
    """The paired comparisons (between trained regimes, and of the untrained model with help against the
    closed-book models) and the methods' cost, where there are some."""
    parts = []
    between = comparisons_markdown(data.get("comparisons", []))
    if between:
        parts += ["## Paired comparisons\n",
                  "Each trained regime against each other one of the same model in the same mode and split, and "
                  "the untrained model with help (open-book, memory) against each closed-book model (mode "
                  "\"memory − closed\", say), in percentage points.\n", between]
    if data.get("methods"):
        parts += ["## Methods and their cost\n",
                  "Each trained regime or method, built-in or a user's, as its run recorded it (train/<label>/method.json): where it "
                  "came from, what it returns, the wall time, judge calls and tokens it spent.\n",
                  cost_markdown(data["methods"])]
    return parts


def render_markdown(data: dict) -> str:
    runs = data["runs"]
    parts = [
        "# SE-Bench report\n",
        f"Runs ({len(runs)}): " + "; ".join(f"{md_code(r['dir'])} (model {md_cell(r['model'])}, seed {r['seed']}"
                                            + (f", library {md_cell(r['library'])}" if r.get("library") else "") + ")"
                                            for r in runs) + "\n",
        "## Main table\n",
        "Accuracy is the share of samples judged correct (pass@1 where every task has the same number of "
        "samples), with its 95% interval for these models (and, "
        "where seeds are pooled, the method's accuracy over new seeds); "
        "Δ is the difference with the untrained model in the same mode and split (percentage points), paired "
        f"by task, with its 95% interval, its p-value ({SIGN_FLIP}) and the number of tasks both "
        "answered; "
        "pass@k (the mean over tasks) is shown where every task has at least k samples; the other columns are the shares of "
        "each failing verdict.\n",
        main_table_markdown(data["main_table"]),
    ]
    by_run = per_seed_markdown(data["main_table"], runs)
    if by_run:
        parts += ["## Per seed\n", "Correct samples / samples of each row in each run it pools.\n", by_run]
    if data.get("signals"):
        parts += ["## Below the pass@1 floor\n",
                  "Where pass@1 ties (at 0, say), these tell methods apart. **Right call**: of the functions a task "
                  "needs, the share each answer calls, correct or not (from the calls the judge records); **tests "
                  "passed**: the share of test cases passed; each with its 95% interval for these models and its "
                  "paired Δ vs the untrained model (points, interval, p). Then the failure kinds: each answer that is "
                  "not correct falls in one (original used: an import of the library the package renames, NumPy by default; wrong name: a name the package lacks; wrong "
                  "arguments: a TypeError; wrong value: it ran and returned a wrong output; every other answer "
                  "under its verdict's name in the main table: no code, no pkg, error, syntax, timeout, ...).\n",
                  signals_markdown(data["signals"], _pass1_by_group(data))]
    if data.get("name_recall"):
        recall = data["name_recall"]
        parts += ["## Name recall\n",
                  "Closed-book, each studied function's behaviour (its documentation with its name blanked out) is "
                  f"given and all {recall['candidates']} names of the package are scored by the log-probability of "
                  "their tokens: **top-1** is the share of functions whose own name scores highest, "
                  f"**top-{RECALL_TOP_K}** the share whose name is among the {RECALL_TOP_K} best scored; each with its 95% interval for these models (a "
                  "function is a cluster) and Δ vs the untrained model (points, paired by function, interval, p); "
                  f"then the median rank. Chance: top-1 {pct(recall['chance']['top1'])}%, top-{RECALL_TOP_K} "
                  f"{pct(recall['chance'][f'top{RECALL_TOP_K}'])}%.\n",
                  recall_markdown(recall)]
    if data.get("specificity"):
        parts += ["## Specificity: NumPy before and after training\n",
                  "The same test tasks asked with real NumPy instead of the package (the numpy mode, after "
                  "CodeUpdateArena's specificity check): does learning the package cost the model what it knew? "
                  "Accuracy of the untrained and of each trained model with its 95% interval for these models, and "
                  "Δ (percentage points) paired by task, with its 95% interval and p (paired sign-flip test, as above); "
                  "a negative Δ is NumPy knowledge lost.\n",
                  specificity_markdown(data["specificity"])]
    control = control_rows(data.get("comparisons", []))
    if control:
        parts += ["## Random-FT control\n",
                  "closed-sft-random trains as closed-sft does, with the same settings and as many training tasks, "
                  "on another seed's package (seed + 1000), and is evaluated on this study's tests (after "
                  "CodeUpdateArena's Random-FT control). Δ = closed-sft − closed-sft-random (percentage points), "
                  "paired by task: what learning this package adds beyond the effect of training itself.\n",
                  control_markdown(control)]
    if data.get("not_trained"):
        parts.append("Not trained (no row): " + "; ".join(f"**{md_cell(label)}**: {md_cell(why)}"
                                                         for label, why in data["not_trained"].items()) + "\n")
    if data.get("no_verdicts"):
        parts.append("No verdicts (an empty verdicts.jsonl, no row): " + "; ".join(map(md_cell, data["no_verdicts"])) + "\n")
    if data.get("docs_only_groups"):
        parts += ["## Functions with tasks and docs-only functions\n",
                  "Each test result by the functions its task selects: **with tasks** when every one kept its "
                  "training tasks, **docs only** when at least one had only its documentation in training (the "
                  "run's docs-only functions, each seed its own). Per group: the tasks, the accuracy with its 95% "
                  "interval, and Δ (percentage points, with its 95% interval and p) against closed-sft and the "
                  "untrained model in the same mode, split and group, paired by task.\n",
                  docs_only_markdown(data["docs_only_groups"])]
    parts += _comparison_and_cost(data)
    if data.get("self_play"):
        parts += [
            "## Self-play rounds\n",
            "Per round: the tasks the model was asked to write, those that parsed, had no leak, and were kept "
            "(the solution uses the package and runs on enough of the task's inputs, --selfplay-min-cases, with "
            "two different outputs at least); the kept tasks whose expected "
            "outputs all agree with NumPy's original function called on the same inputs (noise: the share that "
            "do not); the kept tasks the model solved open-book at least once, its correct answers, and the "
            "training examples made from them (and, with --selfplay-train-writer, the task-writing examples: the kept "
            "tasks as answers to the prompt they were written from). Why the clean tasks not kept were not, and, for those, why their "
            "own solution failed on its inputs: an input that does not fit the task's own signature, one that is "
            "not a call's arguments in Python literals, or an error the solution raised.\n",
            self_play_markdown(data["self_play"]),
        ]
    figures = data.get("figures", {})
    for name, title in (("accuracy", "Accuracy by regime"), ("verdicts", "Verdict breakdown")):
        if name in figures:
            parts.append(f"![{title}]({figures[name]})\n")
    functions = data["functions"]
    if functions["functions"]:
        parts += [
            "## Per-function internalization\n",
            f"{functions['mode'].capitalize()}-book accuracy per function on {functions['split']} "
            f"(functions named by their originals, the renamed library's names, where the instance's mapping is "
            "available).\n",
            functions_markdown(functions),
        ]
        if "functions" in figures:
            parts.append(f"![Accuracy by function]({figures['functions']})\n")
    if "loss" in figures:
        parts += ["## Training loss\n", f"![Training loss]({figures['loss']})\n"]
    if data.get("grpo"):
        parts += ["## GRPO\n",
                  "Per trained label: samples drawn and rewarded, advantages' signs, the median log-ratio of the "
                  "rewarded samples between the training prompt (at their update) and the prompt they were sampled "
                  "from (summed over tokens, and per token), the PPO ratio's median distance from 1 in log space, "
                  "and the mean gradient norms of the positive- and negative-advantage samples with their cosine "
                  "(where recorded).\n", grpo_markdown(data["grpo"])]
    return "\n".join(parts)

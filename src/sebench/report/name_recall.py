"""Name recall in the report: each model's top-1 share and mean reciprocal rank of its studied functions'
names, with intervals and the paired difference with the untrained model.

A run's evals/<label>/name_recall.json (sebench.rollout.name_recall, written by `sebench run` when
RunConfig.name_recall is on) holds one Recall per studied function. Each function is a cluster (run,
function) of one trial: a hit for top-1 when its rank is 1, a share 1/rank for the reciprocal rank. So the
intervals are the accuracy's for these models (metrics.accuracy_counts) and the differences are paired by
function (metrics.paired_counts), pooled over runs as the main table pools them. In a run with docs-only
functions each function is also counted in its group ("with tasks", "docs only": report.docs_only).

report.json's "name_recall": {"candidates": int, "chance_top1", "chance_mrr", "rows": [{"model", "regime",
"group", "functions", "top1": Signal, "mrr": Signal, "logprob": mean log-probability of the right name}]},
Signal {"share", "ci95", "vs_untrained": null | Paired}; null when no run has name recall.
"""

from __future__ import annotations

from dataclasses import asdict

from sebench.metrics import Counts, accuracy_counts, paired_counts
from sebench.report.docs_only import TITLES
from sebench.report.fmt import p_value, pct, signed, span
from sebench.report.tables import BASELINE, RunData, row_sort_key

ALL = "all"
Row = tuple[str, str, str]  # (model, regime, group)


def _group(run: RunData, name: str) -> str:
    return "docs_only" if run.naming.get(name, name) in set(run.docs_only) else "with_tasks"


def _counts(runs: list[RunData]) -> tuple[dict[str, dict[Row, Counts]], dict[Row, list[float]], int]:
    """measure ("top1", "mrr") -> row -> cluster -> (1, hit), each row's log-probabilities, the candidates."""
    out: dict[str, dict[Row, Counts]] = {"top1": {}, "mrr": {}}
    logprobs: dict[Row, list[float]] = {}
    candidates = 0
    for run in runs:
        for label, recalls in run.recalls.items():
            for r in recalls:
                candidates = max(candidates, r["candidates"])
                groups = [ALL, _group(run, r["name"])] if run.docs_only else [ALL]
                for group in groups:
                    row = (run.model, label, group)
                    cluster = (str(run.root), run.naming.get(r["name"], r["name"]))
                    out["top1"].setdefault(row, {})[cluster] = (1, float(r["rank"] == 1))
                    out["mrr"].setdefault(row, {})[cluster] = (1, 1 / r["rank"])
                    logprobs.setdefault(row, []).append(r["logprob"])
    return out, logprobs, candidates


def _signal(counts: dict[Row, Counts], row: Row) -> dict:
    own = counts[row]
    stats = accuracy_counts(own)
    base = counts.get((row[0], BASELINE, row[2]))
    diff = paired_counts(own, base) if base and row[1] != BASELINE else None
    return {"share": stats["accuracy"], "ci95": stats["ci95"], "vs_untrained": None if diff is None else asdict(diff)}


def recall_table(runs: list[RunData]) -> dict | None:
    """report.json's "name_recall" (module docstring)."""
    counts, logprobs, candidates = _counts(runs)
    if not candidates:
        return None
    rows = sorted(counts["top1"], key=lambda r: (row_sort_key({"model": r[0], "regime": r[1], "mode": "", "split": ""}),
                                                 (ALL, "with_tasks", "docs_only").index(r[2])))
    return {"candidates": candidates, "chance_top1": 1 / candidates,
            "chance_mrr": sum(1 / k for k in range(1, candidates + 1)) / candidates,
            "rows": [{"model": r[0], "regime": r[1], "group": r[2], "functions": len(counts["top1"][r]),
                      "top1": _signal(counts["top1"], r), "mrr": _signal(counts["mrr"], r),
                      "logprob": sum(logprobs[r]) / len(logprobs[r])} for r in rows]}


def _cell(signal: dict) -> str:
    text = f"{pct(signal['share'])} ({span(signal['ci95'])})"
    diff = signal["vs_untrained"]
    if diff is not None:
        lo, hi = diff["ci95"]
        text += f"; Δ {signed(diff['delta'])} [{signed(lo)}, {signed(hi)}], p {p_value(diff['p'])}"
    return text


def recall_markdown(table: dict) -> str:
    """One line per model state (and group): functions, top-1 and MRR with intervals and Δ, mean log-prob."""
    rows = table["rows"]
    with_model = len({r["model"] for r in rows}) > 1
    grouped = any(r["group"] != ALL for r in rows)
    head = (["model"] if with_model else []) + ["regime"] + (["functions of"] if grouped else []) + [
        "functions", "top-1 % (95% CI); Δ vs untrained", "MRR % (95% CI); Δ vs untrained", "mean log-prob"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = ([r["model"]] if with_model else []) + [r["regime"]]
        cells += [TITLES.get(r["group"], r["group"])] if grouped else []
        cells += [str(r["functions"]), _cell(r["top1"]), _cell(r["mrr"]), f"{r['logprob']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

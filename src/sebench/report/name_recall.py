"""Name recall in the report: the share of each model's studied functions whose name it ranks first (top-1)
and among the first RECALL_TOP_K (top-10), with intervals and the paired difference with the untrained model.

A run's evals/<label>/name_recall.json (sebench.rollout.name_recall, written by `sebench run` when
RunConfig.name_recall is on) holds one Recall per studied function. Each function is a cluster (run,
function) of one trial, a hit when its rank is at most k. So the intervals are the accuracy's for these
models (metrics.accuracy_counts) and the differences are paired by function (metrics.paired_counts), pooled
over runs as the main table pools them. (A mean reciprocal rank is not a count of hits, which those
intervals assume.) In a run with docs-only functions each function is also counted in its group ("with
tasks", "docs only": report.docs_only).

report.json's "name_recall": {"candidates": int, "chance": {"top1", "top10"}, "rows": [{"model", "regime",
"group", "functions", "top1": Signal, "top10": Signal, "median_rank"}]}, Signal {"share", "ci95",
"vs_untrained": null | Paired}; null when no run has name recall.
"""

from __future__ import annotations

from dataclasses import asdict
from statistics import median

from sebench.metrics import RECALL_TOP_K, Counts, accuracy_counts, paired_counts
from sebench.report.docs_only import GROUPS, TITLES
from sebench.report.fmt import delta_ci, md_row, p_value, pct, signed, span
from sebench.report.tables import BASELINE, RunData, row_sort_key

ALL = "all"
SHARES = {"top1": 1, f"top{RECALL_TOP_K}": RECALL_TOP_K}  # share -> the ranks that count as a hit (at most k)
Row = tuple[str, str, str]  # (model, regime, group)


def _group(run: RunData, name: str) -> str:
    return "docs_only" if run.naming.get(name, name) in set(run.docs_only) else "with_tasks"


def _counts(runs: list[RunData]) -> tuple[dict[str, dict[Row, Counts]], dict[Row, list[int]], int]:
    """share -> row -> cluster -> (1, hit), each row's ranks, the candidates."""
    out: dict[str, dict[Row, Counts]] = {share: {} for share in SHARES}
    ranks: dict[Row, list[int]] = {}
    candidates = 0
    for run in runs:
        for label, recalls in run.recalls.items():
            for r in recalls:
                candidates = max(candidates, r["candidates"])
                groups = [ALL, _group(run, r["name"])] if run.docs_only else [ALL]
                for group in groups:
                    row = (run.model, label, group)
                    cluster = (str(run.root), run.naming.get(r["name"], r["name"]))
                    for share, k in SHARES.items():
                        out[share].setdefault(row, {})[cluster] = (1, float(r["rank"] <= k))
                    ranks.setdefault(row, []).append(r["rank"])
    return out, ranks, candidates


def _signal(counts: dict[Row, Counts], row: Row) -> dict:
    own = counts[row]
    stats = accuracy_counts(own)
    base = counts.get((row[0], BASELINE, row[2]))
    diff = paired_counts(own, base) if base and row[1] != BASELINE else None
    return {"share": stats["accuracy"], "ci95": stats["ci95"], "vs_untrained": None if diff is None else asdict(diff)}


def recall_table(runs: list[RunData]) -> dict | None:
    """report.json's "name_recall" (module docstring)."""
    counts, ranks, candidates = _counts(runs)
    if not candidates:
        return None
    rows = sorted(counts["top1"], key=lambda r: (row_sort_key({"model": r[0], "regime": r[1], "mode": "", "split": ""}),
                                                 (ALL, *GROUPS).index(r[2])))
    return {"candidates": candidates, "chance": {share: min(k, candidates) / candidates for share, k in SHARES.items()},
            "rows": [{"model": r[0], "regime": r[1], "group": r[2], "functions": len(ranks[r]),
                      **{share: _signal(counts[share], r) for share in SHARES}, "median_rank": median(ranks[r])}
                     for r in rows]}


def _cell(signal: dict) -> str:
    text = f"{pct(signal['share'])} ({span(signal['ci95'])})"
    diff = signal["vs_untrained"]
    if diff is not None:
        text += f"; Δ {signed(diff['delta'])} {delta_ci(diff['ci95'])}, p {p_value(diff['p'])}"
    return text


def recall_markdown(table: dict) -> str:
    """One line per model state (and group): functions, top-1 and top-10 with intervals and Δ, median rank."""
    rows = table["rows"]
    with_model = len({r["model"] for r in rows}) > 1
    grouped = any(r["group"] != ALL for r in rows)
    head = (["model"] if with_model else []) + ["regime"] + (["functions of"] if grouped else []) + [
        "functions", "top-1 % (95% CI); Δ vs untrained", f"top-{RECALL_TOP_K} % (95% CI); Δ vs untrained", "median rank"]
    lines = [md_row(head), "|" + "---|" * len(head)]
    for r in rows:
        cells = ([r["model"]] if with_model else []) + [r["regime"]]
        cells += [TITLES.get(r["group"], r["group"])] if grouped else []
        cells += [str(r["functions"]), *(_cell(r[share]) for share in SHARES), f"{r['median_rank']:g}"]
        lines.append(md_row(cells))
    return "\n".join(lines) + "\n"

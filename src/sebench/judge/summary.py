"""The judge's summary of a verdicts file: the statistics of `sebench.metrics`, overall and per group.

Each group's numbers (samples, tasks, accuracy with its 95% interval clustered by task, pass@k, verdict
shares) are `sebench.metrics.verdicts_stats`, the same function the report uses; see that module for the
interval and for the rule on tasks with fewer than k samples.
"""

from __future__ import annotations

from collections.abc import Iterable

from sebench.judge.original import OUTCOMES
from sebench.metrics import ACCURACY_CI, KS, group_by, pass_ks, verdicts_stats
from sebench.records import VERDICTS, Verdict

GROUPS = ("split", "kind", "mode", "model")


def summarize(verdicts: Iterable[Verdict], ks: Iterable[int] = KS) -> dict:
    """{"overall": stats, "split": {name: stats}, "kind": {...}, "mode": {...}, "model": {...}}."""
    verdicts = list(verdicts)
    ks = tuple(ks)
    summary = {"overall": verdicts_stats(verdicts, ks=ks)}
    judged_original = [v for v in verdicts if v.outcome]
    if judged_original:  # protocol "original": the shares of its five outcomes, as it reports them
        counts = {name: sum(v.outcome == name for v in judged_original) for name in OUTCOMES}
        summary["overall"]["original_outcomes"] = {name: n / len(judged_original) for name, n in counts.items()}
    for group in GROUPS:
        buckets = group_by(verdicts, lambda v, name=group: getattr(v, name))
        summary[group] = {name: verdicts_stats(rows, ks=ks) for name, rows in buckets.items()}
    return summary


def format_table(summary: dict) -> str:
    """The summary as a plain-text table: one row for overall and one per split, kind, mode and model."""
    rows = [("overall", summary["overall"])]
    for group in GROUPS:
        rows += [(f"{group}={name}", stats) for name, stats in summary.get(group, {}).items()]
    ks = pass_ks(stats for _, stats in rows)
    names = [n for n in VERDICTS if any(n in s["verdicts"] for _, s in rows)]
    head = ["group", "n", "acc %", "95% CI"] + [f"pass@{k} %" for k in ks] + names
    body = []
    for label, s in rows:
        lo, hi = s["ci95"]
        cells = [label, str(s["n"]), f"{100 * s['accuracy']:.1f}", f"{100 * lo:.1f}-{100 * hi:.1f}"]
        cells += [f"{100 * s[f'pass@{k}']:.1f}" if f"pass@{k}" in s else "-" for k in ks]
        cells += [f"{100 * s['verdicts'].get(n, 0.0):.1f}" for n in names]
        body.append(cells)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [head, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    outcomes = summary["overall"].get("original_outcomes")
    if outcomes:
        lines.append("original outcomes: " + ", ".join(f"{name} {100 * share:.1f}%" for name, share in outcomes.items()))
    unjudged = summary["overall"].get("counts", {}).get("judge_error", 0)
    if unjudged:
        lines.append(f"judge_error: {unjudged} samples could not be judged (see each verdict's detail.message)")
    return "\n".join(lines) + ("\n(verdict columns: % of samples; pass@k only where every task has k samples; "
                               f"{ACCURACY_CI})")

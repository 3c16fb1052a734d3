"""Summaries of verdicts: total, accuracy, unbiased pass@k and verdict shares, overall and per group.

Accuracy is the share of samples judged correct (the mean over samples). pass@k is the unbiased estimator
of Chen et al. (2021), 1 - C(n-c, k) / C(n, k) per task (n samples, c correct), averaged over the tasks
with n >= k; it is reported only for the k that at least one task reaches. A task is counted per
(task_id, mode, model), so mixing modes or models in one group never pools their samples.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb

from sebench.records import VERDICTS, Verdict

GROUPS = ("split", "kind", "mode")


def pass_at_k(n: int, c: int, k: int) -> float:
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples (got {n})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def group_stats(verdicts: list[Verdict], ks=(1, 5, 10)) -> dict:
    total = len(verdicts)
    counts = Counter(v.verdict for v in verdicts)
    per_task: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for v in verdicts:
        key = (v.task_id, v.detail.get("mode"), v.detail.get("model"))
        per_task[key][0] += 1
        per_task[key][1] += v.verdict == "correct"
    stats = {"total": total, "tasks": len(per_task),
             "accuracy": counts["correct"] / total if total else 0.0}
    for k in ks:
        eligible = [(n, c) for n, c in per_task.values() if n >= k]
        if eligible:
            stats[f"pass@{k}"] = sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible)
    order = [name for name in VERDICTS if counts[name]] + sorted(set(counts) - set(VERDICTS))
    stats["verdicts"] = {name: counts[name] / total for name in order}
    stats["counts"] = {name: counts[name] for name in order}
    return stats


def summarize(verdicts: list[Verdict], ks=(1, 5, 10)) -> dict:
    """{"overall": stats, "split": {name: stats}, "kind": {...}, "mode": {...}} (see group_stats)."""
    verdicts = list(verdicts)
    summary = {"overall": group_stats(verdicts, ks)}
    for group in GROUPS:
        buckets: dict[str, list[Verdict]] = defaultdict(list)
        for v in verdicts:
            name = v.detail.get(group)
            if name is not None:
                buckets[str(name)].append(v)
        summary[group] = {name: group_stats(rows, ks) for name, rows in sorted(buckets.items())}
    return summary


def format_table(summary: dict) -> str:
    """The summary as a plain-text table: one row for overall and one per split, kind and mode."""
    rows = [("overall", summary["overall"])]
    for group in GROUPS:
        rows += [(f"{group}={name}", stats) for name, stats in summary.get(group, {}).items()]
    ks = sorted({int(key[5:]) for _, s in rows for key in s if key.startswith("pass@")})
    names = [n for n in VERDICTS if any(n in s["verdicts"] for _, s in rows)]
    head = ["group", "total", "acc %"] + [f"pass@{k} %" for k in ks] + names
    body = []
    for label, s in rows:
        cells = [label, str(s["total"]), f"{100 * s['accuracy']:.1f}"]
        cells += [f"{100 * s[f'pass@{k}']:.1f}" if f"pass@{k}" in s else "-" for k in ks]
        cells += [f"{100 * s['verdicts'].get(n, 0.0):.1f}" for n in names]
        body.append(cells)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    unjudged = summary["overall"].get("counts", {}).get("judge_error", 0)
    if unjudged:
        lines.append(f"judge_error: {unjudged} samples could not be judged (see each verdict's detail.message)")
    return "\n".join(lines) + "\n(verdict columns: % of samples)"

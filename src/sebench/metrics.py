"""The numbers computed from verdicts, in one place: accuracy, Wilson intervals, pass@k, verdict shares.

The judge's summary (`sebench judge --summary`) and the report (`sebench report`) both count with
`verdict_stats`, so the same verdicts give the same numbers in both.

* A *task* is identified by a task key: the task id with the mode and model of the sample (and the run
  directory, for pooled runs), so samples of different modes, models or runs are never pooled into one task.
* Accuracy is the share of samples judged correct; its 95% interval is Wilson's score interval over samples.
* pass@k is the unbiased estimator of Chen et al. (2021), 1 - C(n-c, k) / C(n, k) for a task with n
  samples of which c are correct, averaged over the tasks of a group.
* **Tasks with fewer than k samples**: pass@k of a group is reported only when *every* task of the group
  has at least k samples; otherwise the group has no pass@k value (the key is absent). Averaging over the
  tasks that happen to have enough samples would describe a different, self-selected set of tasks.
  `min_samples` (the fewest samples of any task) tells which k are available.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from sebench.records import VERDICTS, Verdict

KS = (1, 5, 10)
Z95 = 1.959964  # the standard normal quantile of a two-sided 95% interval

T = TypeVar("T")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with n samples of which c are correct; needs n >= k."""
    if not 0 <= c <= n:
        raise ValueError(f"pass@{k}: correct samples ({c}) must lie between 0 and n ({n})")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples (got {n})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 0) when there are no samples."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_pass_at_k(per_task: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass@k of a group from its tasks' (n, c); None when the group is empty or a task has n < k."""
    tasks = list(per_task)
    if not tasks or any(n < k for n, _ in tasks):
        return None
    return sum(pass_at_k(n, c, k) for n, c in tasks) / len(tasks)


def task_key(verdict: Verdict, run: str = "") -> tuple[str, str, str, str]:
    """The key that identifies a task's samples: (run, task id, mode, model)."""
    return (run, verdict.task_id, verdict.mode, verdict.model)


def verdict_stats(samples: Iterable[tuple[Hashable, str]], ks: Iterable[int] = KS) -> dict:
    """The statistics of one group of samples, each given as (task key, verdict name).

    Returns {"n", "tasks", "min_samples", "correct", "accuracy", "ci95": [lo, hi], "pass@K" for each
    available K, "verdicts": {name: share of samples}, "counts": {name: samples}}."""
    per_task: dict[Hashable, list[int]] = defaultdict(lambda: [0, 0])
    counts: Counter[str] = Counter()
    for key, verdict in samples:
        per_task[key][0] += 1
        per_task[key][1] += verdict == "correct"
        counts[verdict] += 1
    n = sum(counts.values())
    correct = counts["correct"]
    lo, hi = wilson(correct, n)
    stats: dict = {
        "n": n,
        "tasks": len(per_task),
        "min_samples": min((tn for tn, _ in per_task.values()), default=0),
        "correct": correct,
        "accuracy": correct / n if n else 0.0,
        "ci95": [lo, hi],
    }
    for k in ks:
        value = mean_pass_at_k(((tn, tc) for tn, tc in per_task.values()), k)
        if value is not None:
            stats[f"pass@{k}"] = value
    order = [name for name in VERDICTS if counts[name]] + sorted(set(counts) - set(VERDICTS))
    stats["verdicts"] = {name: counts[name] / n for name in order}
    stats["counts"] = {name: counts[name] for name in order}
    return stats


def verdicts_stats(verdicts: Iterable[Verdict], run: str = "", ks: Iterable[int] = KS) -> dict:
    """`verdict_stats` of Verdict records (tasks keyed by `task_key`)."""
    return verdict_stats(((task_key(v, run), v.verdict) for v in verdicts), ks)


def group_by(items: Iterable[T], key: Callable[[T], str | None]) -> dict[str, list[T]]:
    """Items bucketed by `key` (e.g. the verdict's mode, split or model), sorted by name; None is skipped."""
    buckets: dict[str, list[T]] = defaultdict(list)
    for item in items:
        name = key(item)
        if name is not None and name != "":
            buckets[str(name)].append(item)
    return dict(sorted(buckets.items()))


def pass_ks(groups: Iterable[dict]) -> list[int]:
    """The k of every pass@k that appears in any of these stats dicts, ascending."""
    return sorted({int(name[5:]) for stats in groups for name in stats if name.startswith("pass@")})

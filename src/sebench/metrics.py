"""The numbers computed from verdicts, in one place: accuracy and its interval, paired differences, pass@k,
verdict shares.

The judge's summary (`sebench judge --summary`) and the report (`sebench report`) both count with
`verdict_stats`, so the same verdicts give the same numbers in both.

* A *task key* is (run, task id, mode, model): samples of different modes, models or runs are never pooled
  into one task for pass@k. A *cluster* is (run, task id): every sample of one task in one run. A run is one
  seed, and each seed builds its own instance and draws its own tasks, so clusters are nested in seeds.
* Accuracy is the share p of the n samples judged correct (score 1, else 0). Its variance is clustered by
  task, after Miller, "Adding Error Bars to Evals" (arXiv 2411.00640), clustered standard errors: with
  residuals e = score - p,
      V_task = sum over clusters c of (sum of e in c)^2 / n^2.
  Where a row pools G >= 2 runs (seeds), seeds are a second level (a seed's tasks share its training run and
  the functions it drew, so they are not independent draws):
      V_seed = G / (G - 1) * sum over runs g of (sum of e in g)^2 / n^2,   V = max(V_task, V_seed).
  Adapted from Miller: clustering at the seed level counts the tasks nested in it too, so the maximum is
  V_task plus a between-seed component estimated by moments and truncated at zero; G / (G - 1), which
  Miller's formula omits, makes V_seed unbiased with few seeds.
* The 95% interval of an accuracy is Wilson's score interval at the effective sample size
  n_eff = p (1 - p) / V (Kish's design effect), at most n; when every sample has the same verdict (p = 0 or
  1, V = 0) n_eff is the number of clusters. Adapted from Miller, whose interval p +- 1.96 sqrt(V) has zero
  width at 0% and is too narrow with fewer than a few hundred tasks (Bowyer et al., arXiv 2503.01747).
  With one sample a task and one seed, n_eff = n: Wilson's interval over samples.
* A difference Δ = A - B is paired by cluster, after Miller's paired differences: over the N clusters both
  answered, d_c = A's mean score on c - B's; Δ = mean of d_c (tasks weigh the same; with equal samples a
  task and every task answered by both it equals A's accuracy minus B's). Its variance is V above with each
  d_c as one score; the interval is Δ +- 1.96 sqrt(V) within [-1, 1] (the central limit theorem, as in
  Miller), and p is two-sided from the normal (p = 1 when Δ = 0 and V = 0; p = 0 when only V = 0).
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sebench.records import VERDICTS, Verdict

KS = (1, 5, 10)
Z95 = 1.959964  # the standard normal quantile of a two-sided 95% interval
ACCURACY_CI = ("95% CI: Wilson score interval at the effective sample size given by standard errors clustered "
               "by task (Miller 2024, arXiv 2411.00640), with seeds as a second level where runs are pooled.")
DELTA_CI = ("Δ: paired by task (run, task id) over the tasks both answered (pairs); its 95% CI from the central "
            "limit theorem and its two-sided p from the normal (Miller 2024).")

T = TypeVar("T")
TaskKey = tuple[str, str, str, str]  # (run, task id, mode, model)
Cluster = tuple[str, str]  # (run, task id)
Score = tuple[Cluster, float]  # one sample's (or one pair's) score in its cluster


@dataclass(frozen=True)
class Paired:
    """A paired difference A - B over the clusters both answered (see the module's docstring)."""

    delta: float
    se: float
    ci95: tuple[float, float]
    p: float
    pairs: int


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with n samples of which c are correct; needs n >= k."""
    if not 0 <= c <= n:
        raise ValueError(f"pass@{k}: correct samples ({c}) must lie between 0 and n ({n})")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples (got {n})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion p over n (possibly effective) samples; (0, 0) for n = 0."""
    if n <= 0:
        return (0.0, 0.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def clustered_variance(scores: Sequence[Score]) -> float:
    """The variance of the mean score: Miller's clustered standard error squared, clustered by (run, task id),
    with runs (seeds) as a second level where there are several (module docstring)."""
    n = len(scores)
    mean = sum(value for _, value in scores) / n
    by_task: dict[Cluster, float] = defaultdict(float)
    by_seed: dict[str, float] = defaultdict(float)
    for cluster, value in scores:
        by_task[cluster] += value - mean
        by_seed[cluster[0]] += value - mean
    v_task = sum(e * e for e in by_task.values()) / n**2
    g = len(by_seed)
    if g < 2:
        return v_task
    return max(v_task, g / (g - 1) * sum(e * e for e in by_seed.values()) / n**2)


def effective_size(p: float, n: int, variance: float, clusters: int) -> float:
    """Kish's effective sample size p (1 - p) / variance, at most n; the clusters when p is 0 or 1."""
    if p in (0.0, 1.0):
        return float(clusters)
    if variance <= 0:
        return float(n)
    return min(float(n), p * (1 - p) / variance)


def two_sided_p(delta: float, se: float) -> float:
    """The two-sided p-value of delta under a normal with standard error se (1 or 0 when se = 0)."""
    if se <= 0:
        return 1.0 if delta == 0 else 0.0
    return math.erfc(abs(delta) / se / math.sqrt(2))


def task_means(samples: Iterable[tuple[TaskKey, str]]) -> dict[Cluster, float]:
    """Each cluster's mean score (share of its samples judged correct)."""
    counts: dict[Cluster, list[int]] = defaultdict(lambda: [0, 0])
    for key, verdict in samples:
        counts[(key[0], key[1])][0] += 1
        counts[(key[0], key[1])][1] += verdict == "correct"
    return {cluster: c / n for cluster, (n, c) in counts.items()}


def paired_difference(a: Iterable[tuple[TaskKey, str]], b: Iterable[tuple[TaskKey, str]]) -> Paired | None:
    """A - B paired by cluster (run, task id) after Miller's paired differences, over the clusters both
    answered; None when there are none."""
    mean_a, mean_b = task_means(a), task_means(b)
    diffs = [(c, mean_a[c] - mean_b[c]) for c in sorted(mean_a.keys() & mean_b.keys())]
    if not diffs:
        return None
    delta = sum(d for _, d in diffs) / len(diffs)
    se = math.sqrt(clustered_variance(diffs))
    ci = (max(-1.0, delta - Z95 * se), min(1.0, delta + Z95 * se))
    return Paired(delta=delta, se=se, ci95=ci, p=two_sided_p(delta, se), pairs=len(diffs))


def mean_pass_at_k(per_task: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass@k of a group from its tasks' (n, c); None when the group is empty or a task has n < k."""
    tasks = list(per_task)
    if not tasks or any(n < k for n, _ in tasks):
        return None
    return sum(pass_at_k(n, c, k) for n, c in tasks) / len(tasks)


def task_key(verdict: Verdict, run: str = "") -> TaskKey:
    """The key that identifies a task's samples: (run, task id, mode, model)."""
    return (run, verdict.task_id, verdict.mode, verdict.model)


def _accuracy(scores: Sequence[Score]) -> dict:
    """The samples' accuracy with its "se", "effective_n" and "ci95" (module docstring)."""
    n = len(scores)
    if not n:
        return {"accuracy": 0.0, "se": 0.0, "effective_n": 0.0, "ci95": [0.0, 0.0]}
    p = sum(value for _, value in scores) / n
    variance = clustered_variance(scores)
    n_eff = effective_size(p, n, variance, len({cluster for cluster, _ in scores}))
    return {"accuracy": p, "se": math.sqrt(variance), "effective_n": n_eff, "ci95": list(wilson(p, n_eff))}


def verdict_stats(samples: Iterable[tuple[TaskKey, str]], ks: Iterable[int] = KS) -> dict:
    """The statistics of one group of samples, each given as (task key, verdict name).

    Returns {"n", "tasks", "min_samples", "correct", "accuracy", "se", "effective_n", "ci95": [lo, hi],
    "pass@K" for each available K, "verdicts": {name: share of samples}, "counts": {name: samples}}."""
    samples = list(samples)
    per_task: dict[TaskKey, list[int]] = defaultdict(lambda: [0, 0])
    counts: Counter[str] = Counter()
    for key, verdict in samples:
        per_task[key][0] += 1
        per_task[key][1] += verdict == "correct"
        counts[verdict] += 1
    n = len(samples)
    stats: dict = {
        "n": n,
        "tasks": len(per_task),
        "min_samples": min((tn for tn, _ in per_task.values()), default=0),
        "correct": counts["correct"],
        **_accuracy([((key[0], key[1]), float(verdict == "correct")) for key, verdict in samples]),
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

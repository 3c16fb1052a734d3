"""The numbers computed from verdicts, in one place: accuracy and its intervals, paired differences and their
test, pass@k, verdict shares. The interval arithmetic is sebench.intervals (vectorised, so that the coverage
simulation in the tests measures the same functions); docs/statistics.md explains each choice and quotes
its measured coverage.

The judge's summary (`sebench judge --summary`) and the report (`sebench report`) both count with
`verdict_stats`, so the same verdicts give the same numbers in both.

* A *task key* is (run, task id, mode, model): samples of different modes, models or runs are never pooled
  into one task for pass@k. A *cluster* is (run, task id): every sample of one task in one run. A run is one
  seed, and each seed builds its own instance and draws its own tasks, so clusters are nested in seeds.
* Every interval says its *target*:
  - **these models** ("ci95"): the trained models at hand, their tasks a sample of the task distribution.
    Wilson's score interval at the effective sample size n_eff = p (1 - p) / V, with V the variance clustered
    by (run, task) (Miller, arXiv 2411.00640) times C / (C - 1), and a t quantile on C - 1 degrees of
    freedom (C clusters); at a few (effective) correct or wrong answers the bound is the one-sided Poisson
    bound instead (the modified Wilson interval of Brown, Cai & DasGupta 2001, with a wider range of small
    counts); made monotone (one more correct answer never lowers a bound, see intervals.accuracy_interval). Seeds pooled here are strata, not a second random level.
  - **the method over new seeds** ("over_seeds"): the seed is the unit, the estimate the mean of the seeds'
    accuracies, se^2 = max(between-seed variance / G, these models' variance), the interval Wilson's at the
    effective size mean (1 - mean) / se^2 with t on G - 1 df; with one seed no interval ("too few seeds for
    an interval over seeds").
* A difference Δ = A - B is paired by cluster over the clusters both answered: Δ is A's accuracy minus B's
  there; its interval (these models) is Newcombe's hybrid score interval built from the two accuracy
  intervals and the correlation of the paired task means less half a pair (so of positive width, and
  excluding 0 whenever the two accuracy intervals do not overlap); its p is the two-sided paired sign-flip
  test of the tasks' shares of Δ (A's correct answers on the task over A's samples less B's over B's: the
  task differences when every task has the same samples; exact up to 16 nonzero, else 20000 seeded draws);
  se is sd / sqrt(N) of the task differences in accuracy, with N - 1. The printed p is the test's, and the interval is moved at 0 to read the
  same (intervals.agree): it reaches 0 unless the test rejects at 5%, and where the test rejects it stops
  short of 0 by at least one answer's worth. `detectable`: the smallest Δ the test detects with 80% power
  at these pairs and their discordance (sebench.power). Over new seeds: the mean of the seeds' Δ,
  Newcombe's interval from the arms' intervals over seeds (uncorrelated), p from t on G - 1 df with
  variance max(between-seed, these models'), read together the same way.
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

import numpy as np

from sebench import intervals, power
from sebench.records import VERDICTS, Verdict

KS = (1, 5, 10)
RECALL_TOP_K = 10  # name recall's second share: the right name among the RECALL_TOP_K best scored
Z95 = intervals.Z95  # the standard normal quantile of a two-sided 95% interval
THESE_MODELS = "these models"
OVER_SEEDS = "the method over new seeds"
TOO_FEW_SEEDS = "too few seeds for an interval over seeds"
ACCURACY_CI = ("95% CI (these models): Wilson score interval at the effective sample size given by standard errors "
               "clustered by task (Miller 2024, arXiv 2411.00640), t on tasks − 1 degrees of freedom, monotone in "
               "the correct answers. Over seeds (the method over new seeds): the mean of the seeds' accuracies, "
               "Wilson at the size its between-seed variance allows (never surer than these models), t on seeds − 1 "
               "degrees of freedom.")
SIGN_FLIP = (f"paired sign-flip test over tasks, exact up to {intervals.EXACT_MAX} tasks that differ, else on "
             f"{intervals.DRAWS:,} random sign patterns")
DELTA_CI = (f"Δ: paired by task (run, task id) over the tasks both answered (pairs); p is the {SIGN_FLIP}; "
            "its 95% CI (these models) is Newcombe's hybrid score interval from the two accuracy "
            "intervals, moved at 0 to read as the test does (it excludes 0 exactly when p < 0.05); \"detects\" is "
            "the smallest Δ the test finds with 80% power at these pairs and their discordance. Over seeds: "
            "Newcombe's interval from the arms' intervals over seeds, p from t on seeds − 1 degrees of freedom.")

T = TypeVar("T")
TaskKey = tuple[str, str, str, str]  # (run, task id, mode, model)
Cluster = tuple[str, str]  # (run, task id)
Counts = dict[Cluster, tuple[int, float]]  # cluster -> (samples, correct samples, or summed scores)


@dataclass(frozen=True)
class OverSeeds:
    """An estimate for the method over new seeds: the mean over seeds, its se, and its 95% interval and p
    (None, with `note`, where there are too few seeds)."""

    estimate: float
    se: float | None
    ci95: tuple[float, float] | None
    seeds: int
    p: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Paired:
    """A paired difference A - B over the clusters both answered, for these models, with the same difference
    for the method over new seeds (see the module's docstring)."""

    delta: float
    se: float
    ci95: tuple[float, float]
    p: float
    pairs: int
    test: str = ""
    over_seeds: OverSeeds | None = None
    detectable: float | None = None  # the smallest Δ the test detects at 80% power here (sebench.power)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with n samples of which c are correct; needs n >= k."""
    _check_k(k)
    if not 0 <= c <= n:
        raise ValueError(f"pass@{k}: correct samples ({c}) must lie between 0 and n ({n})")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples (got {n})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _check_k(k: int) -> None:
    """Refuse a pass@k no samples could give: k a whole number >= 1."""
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1):
        raise ValueError(f"pass@k: k must be a whole number >= 1 (got {k!r})")


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion p over n (possibly effective) samples; (0, 1) for n = 0."""
    if not (0 <= p <= 1 and 0 <= n < math.inf):
        raise ValueError(f"wilson: p must lie in [0, 1] and n be a finite number >= 0 (got p={p!r}, n={n!r})")
    lo, hi = intervals.wilson_bounds(np.array(p), np.array(n), np.array(z))
    return (float(lo), float(hi))


def cluster_counts(samples: Iterable[tuple[TaskKey, str]]) -> Counts:
    """Each cluster's (samples, correct samples)."""
    tally: dict[Cluster, list[int]] = defaultdict(lambda: [0, 0])
    for key, verdict in samples:
        tally[(key[0], key[1])][0] += 1
        tally[(key[0], key[1])][1] += verdict == "correct"
    return {cluster: (n, c) for cluster, (n, c) in tally.items()}


def task_means(samples: Iterable[tuple[TaskKey, str]]) -> dict[Cluster, float]:
    """Each cluster's mean score (share of its samples judged correct)."""
    return {cluster: c / n for cluster, (n, c) in cluster_counts(samples).items()}


def _check_counts(counts: Counts) -> None:
    """Refuse counts no verdicts could give: samples a whole number >= 0, correct (or summed scores) a finite
    number between 0 and the samples."""
    for cluster, (n, c) in counts.items():
        if not (isinstance(n, (int, np.integer)) and n >= 0):
            raise ValueError(f"cluster {cluster}: samples must be a whole number >= 0 (got {n!r})")
        if not (math.isfinite(c) and 0 <= c <= n):
            raise ValueError(f"cluster {cluster}: correct answers must lie between 0 and its {n} samples (got {c!r})")


def _answered(counts: Counts) -> Counts:
    """The clusters with at least one sample (validated)."""
    _check_counts(counts)
    return {cluster: nc for cluster, nc in counts.items() if nc[0] > 0}


def _arrays(groups: Sequence[Counts], keys: Sequence[Cluster] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(correct, size) arrays of shape (groups, clusters) over `keys` (default: every cluster of the first)."""
    keys = sorted(groups[0]) if keys is None else keys
    correct = np.array([[g.get(k, (0, 0))[1] for k in keys] for g in groups], float).reshape(len(groups), len(keys))
    size = np.array([[g.get(k, (0, 0))[0] for k in keys] for g in groups], float).reshape(len(groups), len(keys))
    return correct, size


def _by_seed(counts: Counts, keys: Sequence[Cluster]) -> tuple[np.ndarray, np.ndarray]:
    """(correct, size) of shape (1, seeds, clusters of the largest seed), padded with empty clusters."""
    runs = sorted({run for run, _ in keys})
    width = max(sum(1 for k in keys if k[0] == run) for run in runs)
    correct, size = np.zeros((1, len(runs), width)), np.zeros((1, len(runs), width))
    for g, run in enumerate(runs):
        for i, key in enumerate(k for k in keys if k[0] == run):
            size[0, g, i], correct[0, g, i] = counts[key]
    return correct, size


def over_seeds_accuracy(counts: Counts) -> OverSeeds:
    """The method's accuracy over new seeds from one row's clusters (module docstring)."""
    counts = _answered(counts)
    if not counts:
        return OverSeeds(estimate=0.0, se=None, ci95=None, seeds=0, note=TOO_FEW_SEEDS)
    keys = sorted(counts)
    correct, size = _by_seed(counts, keys)
    mean, se, lo, hi = (float(x[0]) for x in intervals.over_seeds_interval(correct, size))
    seeds = correct.shape[1]
    if seeds < 2:
        return OverSeeds(estimate=mean, se=None, ci95=None, seeds=seeds, note=TOO_FEW_SEEDS)
    return OverSeeds(estimate=mean, se=se, ci95=(lo, hi), seeds=seeds)


def paired_counts(a: Counts, b: Counts) -> Paired | None:
    """A - B over the clusters both answered (module docstring); None when there are none."""
    a, b = _answered(a), _answered(b)
    keys = sorted(a.keys() & b.keys())
    if not keys:
        return None
    ca, na = _arrays([a], keys)
    cb, nb = _arrays([b], keys)
    delta, se, lo, hi = (float(x[0]) for x in intervals.paired_interval(ca, na, cb, nb))
    d = ca / na - cb / nb
    shares = _shares_of_delta(ca, na, cb, nb)
    p = float(intervals.sign_flip_p(shares)[0])
    lo, hi = _bounds(intervals.agree(delta, lo, hi, p, _one_answer(na, nb)))
    exact = int(np.count_nonzero(shares)) <= intervals.EXACT_MAX
    test = "sign-flip, exact" if exact else f"sign-flip, {intervals.DRAWS} draws"
    return Paired(delta=delta, se=0.0 if math.isnan(se) else se, ci95=(lo, hi), p=p, pairs=len(keys), test=test,
                  over_seeds=_over_seeds_delta(a, b, keys, p), detectable=power.observed_detectable(d[0]))


def _shares_of_delta(ca: np.ndarray, na: np.ndarray, cb: np.ndarray, nb: np.ndarray) -> np.ndarray:
    """Each task's share of Δ, A's correct answers over A's samples minus B's over B's (summing to Δ): the
    sign-flip test's differences, so that the test and Δ have one direction. With the same number of samples
    in every task this is each task's difference in accuracy over the tasks' count (the same p)."""
    return ca / na.sum() - cb / nb.sum()


def _one_answer(na: np.ndarray, nb: np.ndarray) -> float:
    """The smallest difference one answer makes to Δ: 1 / the larger arm's samples."""
    return 1.0 / max(float(na.sum()), float(nb.sum()), 1.0)


def _bounds(pair: Sequence[np.ndarray] | tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    return float(np.ravel(pair[0])[0]), float(np.ravel(pair[1])[0])


def _over_seeds_delta(a: Counts, b: Counts, keys: Sequence[Cluster], p_these: float) -> OverSeeds:
    ca, na = _by_seed(a, keys)
    cb, nb = _by_seed(b, keys)
    mean, se, lo, hi, p = (float(x[0]) for x in intervals.over_seeds_paired(ca, na, cb, nb, p_these=p_these))
    seeds = ca.shape[1]
    if seeds < 2:
        return OverSeeds(estimate=mean, se=None, ci95=None, seeds=seeds, note=TOO_FEW_SEEDS)
    lo, hi = _bounds(intervals.agree(mean, lo, hi, p, _one_answer(na, nb)))
    return OverSeeds(estimate=mean, se=se, ci95=(lo, hi), seeds=seeds, p=p)


def paired_difference(a: Iterable[tuple[TaskKey, str]], b: Iterable[tuple[TaskKey, str]]) -> Paired | None:
    """A - B paired by cluster (run, task id) over the clusters both answered; None when there are none."""
    return paired_counts(cluster_counts(a), cluster_counts(b))


def mean_pass_at_k(per_task: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass@k of a group from its tasks' (n, c); None when the group is empty or a task has n < k."""
    _check_k(k)
    tasks = list(per_task)
    if not tasks or any(n < k for n, _ in tasks):
        return None
    return sum(pass_at_k(n, c, k) for n, c in tasks) / len(tasks)


def task_key(verdict: Verdict, run: str = "") -> TaskKey:
    """The key that identifies a task's samples: (run, task id, mode, model)."""
    return (run, verdict.task_id, verdict.mode, verdict.model)


def accuracy_counts(counts: Counts) -> dict:
    """The accuracy of these clusters with its "se", "effective_n", "ci95" (these models) and "over_seeds"
    (the method over new seeds, as a dict of OverSeeds' fields)."""
    counts = _answered(counts)
    if not counts:
        return {"accuracy": 0.0, "se": 0.0, "effective_n": 0.0, "ci95": [0.0, 1.0], "seeds": 0, "over_seeds": None}
    correct, size = _arrays([counts])
    p, se, n_eff, lo, hi = (float(x[0]) for x in intervals.accuracy_interval(correct, size))
    seeds = over_seeds_accuracy(counts)
    return {"accuracy": p, "se": se, "effective_n": n_eff, "ci95": [lo, hi], "seeds": seeds.seeds,
            "over_seeds": _as_dict(seeds)}


def _as_dict(seeds: OverSeeds) -> dict:
    return {"estimate": seeds.estimate, "se": seeds.se, "ci95": None if seeds.ci95 is None else list(seeds.ci95),
            "seeds": seeds.seeds, "p": seeds.p, "note": seeds.note}


def verdict_stats(samples: Iterable[tuple[TaskKey, str]], ks: Iterable[int] = KS) -> dict:
    """The statistics of one group of samples, each given as (task key, verdict name).

    Returns {"n", "tasks", "min_samples", "correct", "accuracy", "se", "effective_n", "ci95": [lo, hi] (these
    models), "seeds", "over_seeds": {"estimate", "se", "ci95": [lo, hi] | None, "seeds", "p", "note"},
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
        **accuracy_counts(cluster_counts(samples)),
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

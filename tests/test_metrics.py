"""sebench.metrics against direct computations, and the typed verdict/rollout fields of old files."""

import json
import math
import random
import tracemalloc
from itertools import combinations, combinations_with_replacement, product

import numpy as np
import pytest

from sebench import intervals, metrics
from sebench.intervals import (
    accuracy_interval,
    modified_wilson_bounds,
    paired_interval,
    poisson_lower,
    sign_flip_p,
    t_quantile,
    t_two_sided_p,
)
from sebench.metrics import (
    group_by,
    mean_pass_at_k,
    paired_difference,
    pass_at_k,
    verdict_stats,
    verdicts_stats,
    wilson,
)
from sebench.records import Rollout, Verdict, read_records


def _pass_at_k_by_enumeration(n: int, c: int, k: int) -> float:
    """The share of k-subsets of the n samples that hold at least one correct one."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n,c,k", [(5, 0, 1), (5, 2, 1), (6, 1, 5), (7, 3, 4), (8, 8, 3), (4, 1, 4)])
def test_pass_at_k_is_the_chance_that_k_draws_hold_a_correct_one(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(_pass_at_k_by_enumeration(n, c, k))


def test_pass_at_k_refuses_too_few_samples():
    with pytest.raises(ValueError, match="at least 5"):
        pass_at_k(3, 1, 5)
    assert mean_pass_at_k([(6, 1), (3, 0)], 5) is None
    assert mean_pass_at_k([], 1) is None


def test_wilson_contains_the_proportion_and_matches_the_formula():
    lo, hi = wilson(0.7, 10)
    z = 1.959964
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    assert lo < 0.7 < hi and (lo + hi) / 2 == pytest.approx(centre)
    assert wilson(0.0, 10)[0] == 0.0 and wilson(1.0, 10)[1] == pytest.approx(1.0) and wilson(0.0, 0) == (0.0, 1.0)


# Student's t, two-sided 97.5% points from a printed table (Fisher & Yates)
T_TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 16: 2.120, 29: 2.045, 59: 2.001, 120: 1.980}


@pytest.mark.parametrize("df,q", T_TABLE.items())
def test_t_quantile_matches_the_table(df, q):
    assert t_quantile(df) == pytest.approx(q, abs=6e-4)


@pytest.mark.parametrize("t", [0.3, 1.0, 2.5, 9.0])
def test_t_p_value_matches_the_closed_forms_of_one_and_two_df(t):
    assert t_two_sided_p(t, 1) == pytest.approx(1 - 2 / math.pi * math.atan(t), abs=1e-12)
    assert t_two_sided_p(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), abs=1e-12)


def _samples(outcomes: dict[str, list[int]], run: str = "r") -> list:
    """(task key, verdict) samples: task id -> its samples' scores (1 correct, 0 wrong)."""
    return [((run, task, "closed", "m"), "correct" if score else "wrong_answer")
            for task, scores in outcomes.items() for score in scores]


def _by_counts(counts: list[int], m: int, run: str = "r") -> list:
    return _samples({f"t{i}": [1] * c + [0] * (m - c) for i, c in enumerate(counts)}, run)


def _upper_by_brute_force(counts: list[int], m: int) -> float:
    """These models' upper bound from its definition: the largest modified Wilson upper bound (t on C - 1 df,
    effective size from the CR1 clustered variance) over every way of keeping some of the correct answers."""
    tasks, n = len(counts), len(counts) * m
    q = T_EXACT[tasks - 1]
    best = 0.0
    for kept in product(*(range(c + 1) for c in counts)):
        p = sum(kept) / n
        variance = sum((k - m * p) ** 2 for k in kept) / n**2 * tasks / (tasks - 1)
        size = tasks if p in (0.0, 1.0) else min(n, p * (1 - p) / variance) if variance > 0 else n
        best = max(best, float(modified_wilson_bounds(p, size, q)[1]))
    return best


T_EXACT = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 4: 2.776445105, 5: 2.570581836}


@pytest.mark.parametrize("counts,m", [([0, 1, 3], 3), ([2, 2, 0, 1], 2), ([1, 0, 0, 0, 4], 4), ([3, 3, 3], 3),
                                      ([0, 0, 0, 1, 2, 2], 2)])
def test_the_interval_is_its_definition_by_brute_force(counts, m):
    stats = verdict_stats(_by_counts(counts, m))
    lo, hi = stats["ci95"]
    assert hi == pytest.approx(_upper_by_brute_force(counts, m), abs=1e-9)
    assert lo == pytest.approx(1 - _upper_by_brute_force([m - c for c in counts], m), abs=1e-9)
    assert lo <= stats["accuracy"] <= hi


def _bounds(configs: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    _, _, _, lo, hi = accuracy_interval(configs, np.full(configs.shape, float(m)))
    return lo, hi


@pytest.mark.parametrize("tasks,m", [(t, m) for t in range(1, 6) for m in range(1, 5)])
def test_one_more_correct_answer_never_lowers_a_bound(tasks, m):
    before, after = [], []
    for counts in combinations_with_replacement(range(m + 1), tasks):
        for i in range(tasks):
            if counts[i] < m:
                before.append(counts)
                after.append((*counts[:i], counts[i] + 1, *counts[i + 1:]))
    lo0, hi0 = _bounds(np.array(before, float), m)
    lo1, hi1 = _bounds(np.array(after, float), m)
    assert np.all(lo1 >= lo0 - 1e-12) and np.all(hi1 >= hi0 - 1e-12)


def test_the_poisson_bound_is_half_the_chi2_quantile():
    # 0.5 chi2_{2x, 0.05}: closed forms for x = 1 (-ln 0.95) and x = 2 (e^-l (1 + l) = 0.95), tables above
    assert poisson_lower(np.array([1.0]))[0] == pytest.approx(-math.log(0.95), rel=1e-12)
    two = poisson_lower(np.array([2.0]))[0]
    assert math.exp(-two) * (1 + two) == pytest.approx(0.95, rel=1e-12)
    assert poisson_lower(np.array([3.0, 4.0, 5.0])) == pytest.approx([1.635383 / 2, 2.732637 / 2, 3.940299 / 2],
                                                                     rel=1e-6)
    # real counts lie in between, and one more event never lowers the bound
    grid = np.linspace(0.01, 6, 600)
    assert np.all(np.diff(poisson_lower(grid)) > 0)


def test_the_modified_wilson_interval_replaces_the_bounds_at_small_counts():
    q = t_quantile(119)
    lo, hi = modified_wilson_bounds(np.arange(121) / 120, 119.0, q)
    w_lo, w_hi = wilson(4 / 120, 119, q)
    # at 4 of 120 (effective count 4 x 119/120) Wilson's lower bound 1.29% is the Poisson bound's 1.13%
    assert lo[4] == pytest.approx(float(poisson_lower(np.array([4 * 119 / 120]))[0]) / 119) and lo[4] < w_lo
    assert hi[4] == pytest.approx(w_hi)  # the upper bound is Wilson's
    assert lo[8] < wilson(8 / 120, 119, q)[0]  # x* = 8 above 100 samples
    assert lo[9] == pytest.approx(wilson(9 / 120, 119, q)[0])  # 9 is more than x*
    assert lo[0] == 0.0 and hi[120] == 1.0
    assert lo == pytest.approx(1 - hi[::-1])  # symmetric: few wrong answers move the upper bound
    assert np.all(np.diff(lo) > 0) and np.all(np.diff(hi) > 0)
    # x* = 4 up to 100 samples (docs/statistics.md: the exact coverage grid)
    for n, small in ((60.0, 4), (40.0, 4), (10.0, 4)):
        lo, _ = modified_wilson_bounds(np.arange(7) / n, n - 1, t_quantile(n - 1))
        plain = [wilson(x / n, n - 1, t_quantile(n - 1))[0] for x in range(7)]
        assert all((lo[x] < plain[x] - 1e-12) == (1 <= x <= small) for x in range(7)), (n, lo, plain)


@pytest.mark.parametrize("tasks,m", [(40, 1), (60, 1), (120, 1), (30, 3), (56, 5)])
def test_one_more_correct_answer_never_lowers_a_bound_at_the_poisson_counts(tasks, m):
    # the correct answers added one at a time, spread over the tasks and piled into few, near 0 and near 100%
    for spread in (True, False):
        configs = []
        for c in range(0, 16):
            counts = np.zeros(tasks)
            for i in range(c):
                counts[i % tasks if spread else i // m] += 1
            configs.append(counts)
        configs = np.array(configs)
        for near_one in (False, True):
            cfg = m - configs[::-1] if near_one else configs
            lo, hi = _bounds(cfg, m)
            assert np.all(np.diff(lo) >= -1e-12) and np.all(np.diff(hi) >= -1e-12), (tasks, m, spread, near_one)


def test_near_zero_the_upper_bound_never_falls_as_answers_turn_correct():
    # 56 tasks x 5 samples: 0/280 used to give 0-6.4% and 1/280 0.06-2.0%
    uppers = [verdict_stats(_by_counts([1] * c + [0] * (56 - c), 5))["ci95"][1] for c in range(8)]
    assert uppers == sorted(uppers) and uppers[0] == pytest.approx(wilson(0.0, 56, t_quantile(55))[1])


def test_five_identical_samples_a_task_give_the_interval_of_one():
    once = {f"t{i}": [int(i % 3 == 0)] for i in range(20)}  # 7 of 20 tasks correct
    five = {task: scores * 5 for task, scores in once.items()}
    one, many = verdict_stats(_samples(once)), verdict_stats(_samples(five))
    assert many["n"] == 100 and many["accuracy"] == one["accuracy"] == pytest.approx(7 / 20)
    assert many["se"] == pytest.approx(one["se"])
    # one sample a task: Wilson over the samples, at n - 1 (CR1) with t on n - 1 df
    assert one["ci95"] == pytest.approx(wilson(7 / 20, 19, t_quantile(19)))
    assert many["ci95"][0] == pytest.approx(one["ci95"][0], abs=0.01)
    assert many["ci95"][1] == pytest.approx(one["ci95"][1], abs=0.01)


def test_clustering_widens_the_interval_of_correlated_samples():
    # 10 tasks of 5 samples, each task all right or all wrong: 10 tasks' worth of evidence, not 50 samples'
    stats = verdict_stats(_samples({f"t{i}": [i % 2] * 5 for i in range(10)}))
    lo, hi = stats["ci95"]
    independent = wilson(0.5, 50)
    assert hi - lo > 1.5 * (independent[1] - independent[0])
    assert stats["effective_n"] == pytest.approx(9)  # 10 tasks, CR1: 10 - 1


def test_accuracy_interval_by_hand():
    stats = verdict_stats(_samples({"a": [1, 1], "b": [1, 0], "c": [0, 0]}))
    # n = 6, p = 0.5; residuals summed per task: a +1, b 0, c -1; V = 2/36 * 3/2 = 1/12, SE = 0.288675
    # n_eff = 0.25 * 12 = 3
    assert stats["se"] == pytest.approx(0.288675, abs=1e-6)
    assert stats["effective_n"] == pytest.approx(3.0)
    assert stats["ci95"][1] == pytest.approx(_upper_by_brute_force([2, 1, 0], 2))


def test_pooled_seeds_are_strata_for_these_models_and_units_over_seeds():
    # seed r1 answers tasks a, b, c right, seed r2 all wrong
    rows = _samples({"a": [1], "b": [1], "c": [1]}, "r1") + _samples({"a": [0], "b": [0], "c": [0]}, "r2")
    stats = verdict_stats(rows)
    # these models: 6 clusters, p = 0.5, V = 6 * 0.25 / 36 * 6/5 = 0.05 (no max with the seeds any more)
    assert stats["se"] == pytest.approx(math.sqrt(0.05)) and stats["seeds"] == 2
    over = stats["over_seeds"]
    # over seeds: mean of (1, 0) = 0.5; between = ((0.5)^2 + (0.5)^2) / (2 * 1) = 0.25; t on 1 df
    within = ((stats["ci95"][1] - stats["ci95"][0]) / (2 * t_quantile(5))) ** 2
    se = math.sqrt(max(0.25, within))
    assert over["estimate"] == 0.5 and over["se"] == pytest.approx(se)
    # Wilson at the effective size 0.25 / se^2 with t on 1 df (12.706205)
    assert over["ci95"] == pytest.approx(list(wilson(0.5, 0.25 / se**2, 12.706205)), abs=1e-6)
    one = verdict_stats(_samples({"a": [1], "b": [0]}))["over_seeds"]
    assert one["ci95"] is None and one["note"] == "too few seeds for an interval over seeds"


def _sign_flip_by_enumeration(d: list[float]) -> float:
    observed = abs(sum(d))
    flips = list(product((1, -1), repeat=len(d)))
    return sum(abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-12 for signs in flips) / len(flips)


@pytest.mark.parametrize("d", [[0.5, 0.5, 0.0], [1.0, -0.2, 0.4, 0.6, 0.0, 0.8], [0.2] * 7, [0.3, -0.3]])
def test_sign_flip_test_is_exact_enumeration(d):
    assert sign_flip_p(np.array(d))[()] == pytest.approx(_sign_flip_by_enumeration(d))


def test_sign_flip_with_many_tasks_draws_from_a_fixed_seed():
    d = np.array([0.2, -0.4, 0.6, 0.2, 0.8, -0.2, 0.4, 0.6, 0.2, 0.4, -0.6, 0.2, 0.4, 0.2, 0.6, -0.2, 0.4, 0.2])
    exact = sign_flip_p(d, exact_max=20)[()]
    drawn = sign_flip_p(d)[()]
    assert drawn == sign_flip_p(d)[()] and drawn == pytest.approx(exact, abs=0.01)


def test_sign_flip_with_very_many_tasks_draws_its_patterns_in_blocks(monkeypatch):
    # the same p as all 4,000 patterns drawn at once, without holding them all: 2,000 tasks x 4,000 patterns
    # would be 64 MiB of signs; with blocks of 2^18 signs the test stays under a quarter of that
    d = np.random.default_rng(1).choice([-1.0, 0.5, 1.0], 2000)
    patterns = np.random.default_rng(0).choice(np.array([-1.0, 1.0]), size=(4000, 2000))
    expected = (1 + (np.abs(patterns @ d) >= abs(d.sum()) - 1e-9 * np.abs(d).sum()).sum()) / 4001
    del patterns
    monkeypatch.setattr(intervals, "PATTERN_VALUES", 2 ** 18, raising=False)
    tracemalloc.start()
    try:
        p = sign_flip_p(d, draws=4000)[()]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert p == expected and peak < 16 * 2 ** 20


@pytest.mark.parametrize("tasks,p", [(1, 1.0), (2, 0.5), (3, 0.25), (6, 1 / 32)])
def test_the_same_difference_on_every_task_is_a_sign_test(tasks, p):
    diff = paired_difference(_by_counts([1] * tasks, 1), _by_counts([0] * tasks, 1))
    assert diff is not None and diff.p == pytest.approx(p) and diff.ci95[1] > diff.ci95[0]


def test_a_tie_reads_as_a_tie_with_its_bound():
    zeros = _by_counts([0] * 30, 1)
    diff = paired_difference(zeros, list(zeros))
    assert diff is not None and diff.delta == 0.0 and diff.p == 1.0
    lo, hi = diff.ci95
    bound = verdict_stats(zeros)["ci95"][1]  # each arm could be as high as its own upper bound
    assert lo == pytest.approx(-bound) and hi == pytest.approx(bound) and bound > 0.05


def test_paired_difference_by_hand():
    a = _samples({"a": [1, 1], "b": [1, 0], "c": [0, 0]})
    b = _samples({"a": [1, 0], "b": [0, 0], "c": [0, 0], "d": [1, 1]})  # d: answered by B only, no pair
    diff = paired_difference(a, b)
    assert diff is not None and diff.pairs == 3
    # d_c = 0.5, 0.5, 0; delta = 3/6 - 1/6 = 1/3; se = sd(d) / sqrt(3) = sqrt(1/12) / sqrt(3) = 1/6
    assert diff.delta == pytest.approx(1 / 3) and diff.se == pytest.approx(1 / 6)
    # Newcombe's hybrid score interval from the arms' intervals over the paired tasks, phi of the task means
    sa = verdict_stats(a)
    sb = verdict_stats(b[:6])
    mean_a, mean_b = [1.0, 0.5, 0.0], [0.5, 0.0, 0.0]
    ca, cb = np.array(mean_a) - np.mean(mean_a), np.array(mean_b) - np.mean(mean_b)
    # the correlation of the task means less half a pair (AD - BC - N/2 in a 2 x 2 table), clipped at 0
    phi = max(0.0, float((ca @ cb - 0.5) / np.sqrt((ca @ ca) * (cb @ cb))))
    (la, ua), (lb, ub), pa, pb = sa["ci95"], sb["ci95"], 0.5, 1 / 6
    down = math.sqrt((pa - la) ** 2 - 2 * phi * (pa - la) * (ub - pb) + (ub - pb) ** 2)
    up = math.sqrt((ua - pa) ** 2 - 2 * phi * (ua - pa) * (pb - lb) + (pb - lb) ** 2)
    assert diff.ci95 == pytest.approx((1 / 3 - down, 1 / 3 + up))
    assert diff.p == pytest.approx(_sign_flip_by_enumeration([0.5, 0.5]))  # zero differences flip to zero


@pytest.mark.parametrize("tasks,m", [(10, 2), (12, 3), (29, 5)])
def test_accuracy_and_delta_rows_cannot_contradict_each_other(tasks, m):
    rng = np.random.default_rng(tasks)
    shape = (400, tasks)
    size = np.full(shape, float(m))
    a = rng.binomial(m, rng.uniform(0, 1, (400, 1)), shape).astype(float)
    b = rng.binomial(m, rng.uniform(0, 0.3, (400, 1)), shape).astype(float)
    _, _, _, la, ua = accuracy_interval(a, size)
    _, _, _, lb, ub = accuracy_interval(b, size)
    delta, _, lo, hi = paired_interval(a, size, b, size)
    assert np.all((lo <= delta) & (delta <= hi) & (lo < hi))
    assert np.all(lo[la > ub] > 0) and np.all(hi[ua < lb] < 0)  # arms apart: the paired interval excludes 0
    assert (la > ub).sum() > 20  # the property was exercised


@pytest.mark.parametrize("correct", [3, 5, 6, 9])
def test_the_interval_and_p_read_the_same(correct):
    # A right on `correct` of 56 tasks, B on none: the exact sign test gives 2 / 2^correct
    diff = paired_difference(_by_counts([1] * correct + [0] * (56 - correct), 1), _by_counts([0] * 56, 1))
    assert diff is not None and diff.p >= 2 / 2**correct - 1e-12
    assert (diff.ci95[0] > 0) == (diff.p < 0.05)
    if correct == 5:  # the sign test does not reject: the interval reaches 0, though Newcombe's alone would not
        assert diff.ci95[0] == 0.0 and diff.p == pytest.approx(1 / 16)


def test_two_identical_models_differ_by_zero():
    a = _samples({f"t{i}": [i % 2, i % 3 == 0, 1] for i in range(12)})
    diff = paired_difference(a, list(a))
    assert diff is not None and diff.delta == 0.0 and diff.pairs == 12
    assert diff.ci95[0] < 0.0 < diff.ci95[1] and diff.p == 1.0
    assert paired_difference(a, _samples({"other": [1]})) is None  # no task in common


def _over_seeds_by_hand(per_seed: list[float], pooled: tuple[float, float], clusters: int) -> tuple[float, float,
                                                                                                     float]:
    """(mean, se, Wilson upper-minus-mean and mean-minus-lower) over seeds, from the seeds' accuracies and
    these models' interval of the pooled seeds."""
    g = len(per_seed)
    mean = sum(per_seed) / g
    between = sum((x - mean) ** 2 for x in per_seed) / (g * (g - 1))
    within = ((pooled[1] - pooled[0]) / (2 * t_quantile(clusters - 1))) ** 2
    se = math.sqrt(max(between, within))
    return mean, se, wilson(mean, min(clusters, mean * (1 - mean) / se**2), T_EXACT[g - 1])  # one sample a task


def diff_arm(samples: list) -> list[float]:
    return verdict_stats(samples)["ci95"]


def test_delta_over_seeds_needs_two_seeds_and_uses_t_on_seeds_minus_one():
    a = _by_counts([1, 1, 0, 1], 1, "r1") + _by_counts([1, 0, 0, 1], 1, "r2") + _by_counts([1, 1, 1, 1], 1, "r3")
    b = _by_counts([0, 1, 0, 0], 1, "r1") + _by_counts([0, 0, 0, 1], 1, "r2") + _by_counts([0, 1, 0, 0], 1, "r3")
    diff = paired_difference(a, b)
    assert diff is not None and diff.over_seeds is not None
    over = diff.over_seeds
    seeds = [0.5, 0.25, 0.75]  # each seed's A - B
    mean = sum(seeds) / 3
    between = sum((x - mean) ** 2 for x in seeds) / (3 * 2)
    within = ((diff.ci95[1] - diff.ci95[0]) / (2 * t_quantile(11))) ** 2
    se = math.sqrt(max(between, within))
    assert over.estimate == pytest.approx(mean) and over.se == pytest.approx(se)
    p_t = t_two_sided_p(mean / se, 2)
    assert over.p >= p_t and (over.p == pytest.approx(p_t) or over.p > 0.05)
    # the interval: Newcombe's from each arm's interval over seeds, uncorrelated, reaching 0 unless p_t < 0.05
    pa, _, (la, ua) = _over_seeds_by_hand([0.75, 0.5, 1.0], diff_arm(a), 12)
    pb, _, (lb, ub) = _over_seeds_by_hand([0.25, 0.25, 0.25], diff_arm(b), 12)
    lo, hi = mean - math.hypot(pa - la, ub - pb), mean + math.hypot(ua - pa, pb - lb)
    if p_t >= 0.05:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    assert over.ci95 == pytest.approx((lo, hi))
    assert (over.ci95[0] > 0) == (over.p < 0.05)  # the interval and p read the same
    single = paired_difference(a[:4], b[:4])
    assert single is not None and single.over_seeds is not None and single.over_seeds.ci95 is None


def test_a_task_answered_in_two_modes_is_one_cluster():
    verdicts = [Verdict(task, 0, "correct" if task in "ab" else "wrong_answer", 0, 1, mode=mode, model="m")
                for task in "abcd" for mode in ("closed", "open")]
    stats = verdicts_stats(verdicts)
    # 8 task keys (pass@k), but 4 clusters: each task's two answers sum their residuals (+-1 a task),
    # V = 4 * 1 / 8^2 * 4/3 = 1/12, n_eff = 0.25 * 12 = 3 (as 8 independent samples it would be 7)
    assert stats["tasks"] == 8 and stats["effective_n"] == pytest.approx(3)


def test_tasks_are_keyed_by_mode_and_model():
    verdicts = [Verdict("a", 0, "correct", 1, 1, mode="open", model="m1"),
                Verdict("a", 0, "wrong_answer", 0, 1, mode="closed", model="m1"),
                Verdict("a", 1, "wrong_answer", 0, 1, mode="closed", model="m1")]
    stats = verdicts_stats(verdicts, ks=(1, 2))
    assert stats["tasks"] == 2 and stats["min_samples"] == 1 and "pass@2" not in stats
    assert stats["pass@1"] == pytest.approx((1 + 0) / 2)
    assert set(group_by(verdicts, lambda v: v.mode)) == {"closed", "open"}
    assert stats["counts"] == {"correct": 1, "wrong_answer": 2}
    assert stats["verdicts"]["wrong_answer"] == pytest.approx(2 / 3)
    assert math.isclose(sum(stats["verdicts"].values()), 1.0)


def test_old_files_with_join_keys_in_detail_and_usage_still_read(tmp_path):
    old_verdict = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1,
                   "detail": {"split": "train", "kind": "single", "mode": "open", "model": "m", "tests": []}}
    old_rollout = {"task_id": "a", "sample_idx": 0, "mode": "retrieval", "model": "m", "prompt": [],
                   "response": "", "code": None, "finish_reason": "error",
                   "usage": {"prompt_tokens": 3, "completion_tokens": 0, "error": "boom", "searches": ["mean"]}}
    (tmp_path / "v.jsonl").write_text(json.dumps(old_verdict) + "\n")
    (tmp_path / "r.jsonl").write_text(json.dumps(old_rollout) + "\n")
    [v] = read_records(tmp_path / "v.jsonl", Verdict)
    assert (v.split, v.kind, v.mode, v.model, v.detail) == ("train", "single", "open", "m", {"tests": []})
    [r] = read_records(tmp_path / "r.jsonl", Rollout)
    assert (r.error, r.searches) == ("boom", ["mean"])
    assert r.usage == {"prompt_tokens": 3, "completion_tokens": 0}


def test_typed_join_keys_are_checked(tmp_path):
    bad = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1, "mode": 3}
    (tmp_path / "v.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(Exception, match=r"v.jsonl:1: field 'mode': expected str"):
        read_records(tmp_path / "v.jsonl", Verdict)


@pytest.mark.parametrize("tasks,m", [(60, 1), (17, 5), (3, 2)])
def test_every_interval_holds_its_own_estimate_even_at_100_percent(tasks, m):
    for correct in (0, m):
        stats = verdict_stats(_by_counts([correct] * tasks, m))
        lo, hi = stats["ci95"]
        assert lo <= stats["accuracy"] <= hi  # 60/60 once gave 93.7-99.99999999999998%


@pytest.mark.parametrize("counts", [{("r", "t"): (2, 3)}, {("r", "t"): (2, -1)}, {("r", "t"): (1, float("nan"))},
                                    {("r", "t"): (-1, 0)}, {("r", "t"): (1.5, 1)}])
def test_counts_no_verdicts_could_give_are_refused_with_the_cluster_named(counts):
    for compute in (metrics.accuracy_counts, metrics.over_seeds_accuracy, lambda c: metrics.paired_counts(c, c)):
        with pytest.raises(ValueError, match=r"cluster \('r', 't'\)"):
            compute(counts)


def test_a_cluster_without_samples_is_not_a_pair():
    a = {("r", "t1"): (0, 0), ("r", "t2"): (1, 1)}
    b = {("r", "t1"): (1, 1), ("r", "t2"): (1, 1)}
    diff = metrics.paired_counts(a, b)
    assert diff.pairs == 1 and diff.p == 1.0 and diff.ci95[0] < 0 < diff.ci95[1]
    assert metrics.paired_counts({("r", "t1"): (0, 0)}, {("r", "t1"): (1, 0)}) is None
    assert metrics.accuracy_counts(a)["accuracy"] == 1.0


def test_wilson_refuses_a_share_outside_0_to_1():
    with pytest.raises(ValueError, match="p must lie in"):
        metrics.wilson(1.5, 10)


@pytest.mark.parametrize("k", [0, -1])
def test_pass_at_k_refuses_a_k_below_1(k):
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        metrics.pass_at_k(5, 2, k)
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        metrics.mean_pass_at_k([(5, 2)], k)
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        metrics.verdict_stats([(("r", "t", "closed", "m"), "correct")], ks=(k,))


def test_over_seeds_accuracy_of_no_answered_cluster_has_no_interval():
    for counts in ({}, {("r", "t"): (0, 0)}):
        seeds = metrics.over_seeds_accuracy(counts)
        assert seeds.seeds == 0 and seeds.ci95 is None and seeds.note == metrics.TOO_FEW_SEEDS


def test_one_task_a_seed_all_for_a_is_not_established_over_seeds():
    # two seeds of one task each, A right and B wrong on both: the exact test over the 2 tasks gives p 0.5,
    # so the method over new seeds is not established either (the t test alone gave p 0.035 and [+50, +100])
    a = {("s0", "t"): (1, 1), ("s1", "t"): (1, 1)}
    b = {("s0", "t"): (1, 0), ("s1", "t"): (1, 0)}
    diff = metrics.paired_counts(a, b)
    assert diff.p == 0.5 and diff.ci95[0] <= 0
    assert diff.over_seeds.p >= diff.p and diff.over_seeds.ci95[0] <= 0 < diff.over_seeds.ci95[1]


def test_over_seeds_p_is_never_below_these_models_p_on_small_studies():
    rng = random.Random(3)
    for _ in range(300):
        seeds, tasks, samples = rng.choice((2, 3)), rng.randint(1, 4), rng.choice((1, 3))
        pa, pb = rng.random(), rng.random()
        a = {(f"s{g}", f"t{t}"): (samples, sum(rng.random() < pa for _ in range(samples)))
             for g in range(seeds) for t in range(tasks)}
        b = {key: (samples, sum(rng.random() < pb for _ in range(samples))) for key in a}
        diff = metrics.paired_counts(a, b)
        over = diff.over_seeds
        assert over.p >= diff.p, (a, b)
        assert (over.ci95[0] > 0 or over.ci95[1] < 0) == (over.p < 0.05)


@pytest.mark.parametrize("n", [math.inf, math.nan, -1.0])
def test_wilson_refuses_a_size_that_is_not_a_finite_count(n):
    with pytest.raises(ValueError, match="finite number >= 0"):  # at n = inf it read (0.5, 0.5), no width
        metrics.wilson(0.5, n)


def test_two_identical_seeds_give_an_interval_over_seeds_no_surer_than_these_models():
    # no spread between the seeds: the between-seed variance is 0, and the interval over seeds rests on the
    # floor at these models' variance (and t on 1 df), never on a point
    seed = {f"t{t}": (1, int(t < 4)) for t in range(10)}
    counts = {(run, task): nc for run in ("s0", "s1") for task, nc in seed.items()}
    stats = metrics.accuracy_counts(counts)
    over = stats["over_seeds"]
    assert over["estimate"] == pytest.approx(0.4) and over["se"] > 0 and over["seeds"] == 2
    assert over["ci95"][0] < stats["ci95"][0] and over["ci95"][1] > stats["ci95"][1]
    diff = metrics.paired_counts(counts, counts)
    assert diff.delta == 0 and diff.over_seeds.se > 0 and diff.over_seeds.ci95[0] < 0 < diff.over_seeds.ci95[1]


def test_unequal_seeds_partial_overlap_and_unequal_samples_keep_every_number_in_range():
    # A and B with 1-3 seeds each, a task missing from a seed now and then, 1-4 samples a task: Δ pairs the
    # clusters both answered; every bound in [0, 1] or [-1, 1], finite, and each interval reads as its p
    rng = np.random.default_rng(5)
    for _ in range(150):
        arms = []
        tasks = int(rng.integers(1, 7))
        for _arm in range(2):
            chance = rng.random()
            arms.append({(f"s{g}", f"t{t}"): (int(m), int(rng.binomial(m, chance)))
                         for g in range(int(rng.integers(1, 4))) for t in range(tasks)
                         if rng.random() < 0.85 for m in [rng.integers(1, 5)]})
        for arm in arms:
            if not arm:
                continue
            stats = metrics.accuracy_counts(arm)
            assert 0 <= stats["ci95"][0] <= stats["accuracy"] <= stats["ci95"][1] <= 1
            over = stats["over_seeds"]
            assert (over["ci95"] is None) == (over["seeds"] < 2) and (over["note"] == metrics.TOO_FEW_SEEDS) == (
                over["seeds"] < 2)
            if over["ci95"]:
                assert 0 <= over["ci95"][0] <= over["estimate"] <= over["ci95"][1] <= 1 and math.isfinite(over["se"])
        diff = metrics.paired_counts(*arms)
        if diff is None:
            assert not set(arms[0]) & set(arms[1])
            continue
        assert diff.pairs == len(set(arms[0]) & set(arms[1]))
        assert -1 <= diff.ci95[0] <= diff.delta <= diff.ci95[1] <= 1 and 0 < diff.p <= 1 and math.isfinite(diff.se)
        assert (diff.ci95[0] > 0 or diff.ci95[1] < 0) == (diff.p < 0.05)
        over = diff.over_seeds
        if over.ci95 is not None:
            assert -1 <= over.ci95[0] <= over.estimate <= over.ci95[1] <= 1 and over.p >= diff.p
            assert (over.ci95[0] > 0 or over.ci95[1] < 0) == (over.p < 0.05)
        else:
            assert over.note == metrics.TOO_FEW_SEEDS and over.p is None

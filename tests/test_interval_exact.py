"""The intervals' properties computed exactly, not simulated: the one-seed accuracy interval's coverage over
a grid of true accuracies and task counts (binomial sums), a paired Δ interval never a point, bounds that
never fall when one more answer is correct (unequal samples a task too), and the printed p the test's."""

import itertools

import numpy as np
import pytest

from sebench.intervals import accuracy_interval, agree, sign_flip_p
from sebench.metrics import paired_counts

FLOOR = 0.93


def one_seed_bounds(tasks: int) -> tuple[np.ndarray, np.ndarray]:
    """The interval at x = 0 .. tasks correct, one sample a task."""
    x = np.arange(tasks + 1)
    correct = (np.arange(tasks)[None, :] < x[:, None]).astype(float)
    _, _, _, lo, hi = accuracy_interval(correct, np.ones_like(correct))
    return lo, hi


def exact_coverage(lo: np.ndarray, hi: np.ndarray, truths: np.ndarray) -> np.ndarray:
    """The share of studies whose interval holds each true accuracy, the intervals at x = 0 .. tasks correct
    given: sum over x of P(X = x) [lo(x) <= truth <= hi(x)], X ~ Binomial(tasks, truth)."""
    tasks = len(lo) - 1
    x = np.arange(tasks + 1)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, tasks + 1)))])
    t = truths[:, None]
    pmf = np.exp(log_fact[tasks] - log_fact[x] - log_fact[tasks - x] + x * np.log(t) + (tasks - x) * np.log1p(-t))
    return (pmf * ((lo <= t) & (t <= hi))).sum(1)


def coverage_grid(counts, grid: int = 240) -> tuple[float, int, float]:
    """(lowest coverage, its task count, its truth) over `grid` true accuracies in (0, 1) and, at each task
    count, the truths just outside each bound (where coverage drops)."""
    worst = (1.0, 0, 0.0)
    for tasks in counts:
        lo, hi = one_seed_bounds(tasks)
        truths = np.concatenate([(np.arange(grid) + 0.5) / grid, lo - 1e-9, hi + 1e-9])
        truths = truths[(truths > 0) & (truths < 1)]
        cover = exact_coverage(lo, hi, truths)
        i = int(np.argmin(cover))
        if cover[i] < worst[0]:
            worst = (float(cover[i]), tasks, float(truths[i]))
    return worst


def test_the_coverage_computation_is_the_binomial_sum():
    # 3 tasks at truth 0.5: each x in 0..3 has chance 1/8, 3/8, 3/8, 1/8; the interval at x holds 0.5 or not
    lo, hi = one_seed_bounds(3)
    by_hand = sum(w for w, a, b in zip([1 / 8, 3 / 8, 3 / 8, 1 / 8], lo, hi) if a <= 0.5 <= b)
    assert exact_coverage(lo, hi, np.array([0.5]))[0] == pytest.approx(by_hand)


def test_one_seed_accuracy_covers_at_least_93_percent_at_every_truth():
    # every task count 3..300, 240 true accuracies and every bound's edge (the coverage's infimum is there)
    lowest, tasks, truth = coverage_grid(range(3, 301))
    assert lowest >= FLOOR, f"coverage {lowest:.4f} at {tasks} tasks, true accuracy {truth:.4f}"


def test_the_grid_finds_a_dip_where_there_is_one():
    # the check can fail: lower bounds pushed up by 2 points drop coverage below the floor somewhere
    lo, hi = one_seed_bounds(34)
    truths = np.concatenate([lo - 1e-9, hi + 1e-9, np.linspace(0.001, 0.999, 240)])
    truths = truths[(truths > 0) & (truths < 1)]
    assert exact_coverage(lo, hi, truths).min() >= FLOOR
    assert exact_coverage(np.minimum(lo + 0.02, hi), hi, truths).min() < FLOOR


@pytest.mark.parametrize("tasks,accuracy", [(17, 0.5), (56, 0.5), (30, 0.3), (30, 0.0)])
def test_identical_answers_give_a_delta_interval_of_positive_width(tasks, accuracy):
    right = round(tasks * accuracy)
    counts = {("r", f"t{i}"): (1, int(i < right)) for i in range(tasks)}
    diff = paired_counts(counts, dict(counts))
    assert diff is not None and diff.delta == 0.0 and diff.p == 1.0
    lo, hi = diff.ci95
    assert lo < 0 < hi and hi - lo > 0.02


def _bounds(correct: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _, _, _, lo, hi = accuracy_interval(correct, size)
    return lo, hi


@pytest.mark.parametrize("tasks", [5, 17, 56])
def test_one_more_correct_answer_never_lowers_a_bound_with_unequal_samples(tasks):
    # random answers with 1-9 samples a task (the signal rows' trials vary by task), each study beside the
    # same study with one more correct answer in one task
    rng = np.random.default_rng(tasks)
    studies = 3000
    size = rng.integers(1, 10, (studies, tasks)).astype(float)
    level = rng.beta(0.4, 0.4, (studies, 1)) * rng.uniform(0, 1, (studies, 1))
    correct = rng.binomial(size.astype(int), np.clip(level * rng.uniform(0.2, 1.8, (studies, tasks)), 0, 1))
    correct = correct.astype(float)
    room = size - correct
    pick = np.argmax(rng.uniform(size=(studies, tasks)) * (room > 0), axis=1)
    has_room = room[np.arange(studies), pick] > 0
    after = correct.copy()
    after[np.arange(studies), pick] += has_room
    lo0, hi0 = _bounds(correct, size)
    lo1, hi1 = _bounds(after, size)
    assert has_room.sum() > studies * 0.9
    assert np.all(lo1 >= lo0 - 1e-12), np.max(lo0 - lo1)
    assert np.all(hi1 >= hi0 - 1e-12), np.max(hi0 - hi1)


def test_the_audit_s_unequal_case_no_longer_falls():
    # 9 correct of 52 over 17 tasks: every arrangement and its one-more-correct neighbours
    rng = np.random.default_rng(9)
    size = rng.integers(1, 6, (400, 17)).astype(float)
    size[:, 0] += 52 - size.sum(1)  # 52 samples in all
    size = np.clip(size, 1, None)
    correct = np.zeros_like(size)
    for row in range(len(size)):
        for _ in range(9):
            free = np.flatnonzero(correct[row] < size[row])
            correct[row, rng.choice(free)] += 1
    lo0, hi0 = _bounds(correct, size)
    for task in range(17):
        after = correct.copy()
        room = after[:, task] < size[:, task]
        after[room, task] += 1
        lo1, hi1 = _bounds(after, size)
        assert np.all(lo1[room] >= lo0[room] - 1e-12) and np.all(hi1[room] >= hi0[room] - 1e-12)


def test_the_printed_p_is_the_sign_flip_p_and_the_interval_agrees():
    # 17 tasks each 1 of 5 right against 0 of 5: the sign-flip p is 2 / 2^17
    a = {("r", f"t{i}"): (5, 1) for i in range(17)}
    b = {("r", f"t{i}"): (5, 0) for i in range(17)}
    diff = paired_counts(a, b)
    assert diff is not None
    assert diff.p == pytest.approx(float(sign_flip_p(np.full(17, 0.2))[()])) and diff.p < 1e-3
    assert diff.ci95[0] > 0  # p < 0.05: the interval excludes 0
    assert diff.ci95[0] <= diff.delta <= diff.ci95[1]


def test_interval_excludes_zero_exactly_when_p_is_below_five_percent():
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(120):
        tasks, m = int(rng.integers(3, 40)), int(rng.integers(1, 6))
        pa, pb = rng.uniform(0, 1, 2)
        a = {("r", f"t{i}"): (m, int(rng.binomial(m, pa))) for i in range(tasks)}
        b = {("r", f"t{i}"): (m, int(rng.binomial(m, pb))) for i in range(tasks)}
        diff = paired_counts(a, b)
        assert diff is not None
        excludes = diff.ci95[0] > 0 or diff.ci95[1] < 0
        assert excludes == (diff.p < 0.05), (tasks, m, diff)
        seen.add(excludes)
    assert seen == {True, False}


def test_a_p_of_exactly_five_percent_does_not_reject():
    # "p < 0.05" rejects; an alpha of 1 - 0.95 (0.050000000000000044) let p = 0.05 move the bound off 0
    lo, hi = agree(0.1, -0.05, 0.3, 0.05, 0.01)
    assert lo <= 0 <= hi
    lo, hi = agree(0.1, -0.05, 0.3, np.nextafter(0.05, 0), 0.01)
    assert lo > 0


def _enumerated_p(d: list[float]) -> float:
    """The two-sided sign-flip p by listing every sign pattern of the nonzero differences."""
    d = [x for x in d if x != 0]
    observed = abs(sum(d))
    patterns = list(itertools.product((1, -1), repeat=len(d)))
    return sum(abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-12 for signs in patterns) / len(patterns)


def test_with_unequal_samples_the_test_and_delta_have_one_direction():
    # one task of 10 test cases B passes and A fails, 8 tasks of one case A passes and B fails: A is better on
    # 8 of 9 tasks but Δ over the 18 cases is -2/18; the test is of the tasks' shares of Δ, so it cannot
    # reject toward A while the interval excludes 0 toward B
    a = {("r", "t0"): (10, 0), **{("r", f"t{i}"): (1, 1) for i in range(1, 9)}}
    b = {("r", "t0"): (10, 10), **{("r", f"t{i}"): (1, 0) for i in range(1, 9)}}
    diff = paired_counts(a, b)
    assert diff is not None and diff.delta == pytest.approx(-2 / 18)
    assert diff.p == pytest.approx(_enumerated_p([-10 / 18] + [1 / 18] * 8)) and diff.p == 1.0
    assert diff.ci95[0] < 0 < diff.ci95[1]


def test_the_interval_excludes_zero_on_the_side_of_the_test_with_unequal_samples():
    rng = np.random.default_rng(11)
    rejected = 0
    for _ in range(150):
        tasks = int(rng.integers(4, 13))
        size = rng.integers(1, 10, tasks)
        ca, cb = rng.binomial(size, rng.uniform()), rng.binomial(size, rng.uniform())
        a = {("r", f"t{i}"): (int(size[i]), int(ca[i])) for i in range(tasks)}
        b = {("r", f"t{i}"): (int(size[i]), int(cb[i])) for i in range(tasks)}
        diff = paired_counts(a, b)
        assert diff is not None
        shares = list((ca - cb) / size.sum())
        assert diff.p == pytest.approx(_enumerated_p(shares))
        assert (diff.ci95[0] > 0) == (diff.p < 0.05 and sum(shares) > 0)
        assert (diff.ci95[1] < 0) == (diff.p < 0.05 and sum(shares) < 0)
        rejected += diff.p < 0.05
    assert rejected > 10

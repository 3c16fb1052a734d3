"""The power formula against a simulation of the very test the report prints (sebench.intervals.sign_flip_p):
one sample a task, task chances from a U-shaped Beta distribution, the arms sharing each task's difficulty."""

import tracemalloc
from math import comb

import numpy as np
import pytest

from sebench import power
from sebench.intervals import sign_flip_p
from sebench.metrics import paired_counts
from sebench.power import (
    independent_discordance,
    observed_detectable,
    planned_detectable,
    sign_test_power,
)


def _task_chances(rng: np.random.Generator, shape: tuple[int, ...], lift: float) -> tuple[np.ndarray, np.ndarray]:
    """B's chance on each task from Beta(0.5, 0.5) (U-shaped: many tasks near 0 or 1), A's the same lifted."""
    b = rng.beta(0.5, 0.5, shape)
    return np.clip(b + lift, 0.0, 1.0), b


def simulated_power(tasks: int, lift: float, studies: int, seed: int) -> tuple[float, float, float]:
    """(share of studies whose sign-flip p < 0.05, the model's true Δ, its discordance)."""
    rng = np.random.default_rng(seed)
    a, b = _task_chances(np.random.default_rng(seed + 1000), (400_000,), lift)
    delta = float(np.mean(a - b))
    psi = float(np.mean(a * (1 - b) + b * (1 - a)))  # independent answers given the task
    ta, tb = _task_chances(rng, (studies, tasks), lift)
    d = (rng.uniform(size=ta.shape) < ta).astype(float) - (rng.uniform(size=tb.shape) < tb)
    p = sign_flip_p(d, draws=4000)  # every study at once (exact up to 16 pairs, else 4,000 drawn patterns)
    return float(np.mean(p < 0.05)), delta, psi


@pytest.mark.parametrize("tasks,lift,studies", [(17, 0.12, 1500), (56, 0.12, 1500), (56, 0.2, 1000)])
def test_the_exact_power_matches_a_simulation_of_the_test(tasks, lift, studies):
    simulated, delta, psi = simulated_power(tasks, lift, studies, seed=tasks)
    predicted = sign_test_power(tasks, delta, psi)
    se = np.sqrt(max(predicted * (1 - predicted), 0.01) / studies)
    assert abs(simulated - predicted) < 4 * se + 0.01, (simulated, predicted, delta, psi)


def test_the_audit_s_designs():
    # +10 points at a discordance of 0.25: 17 pairs see it about 1 time in 40, 136 about 6 in 10, 408 nearly always
    assert sign_test_power(17, 0.1, 0.25) == pytest.approx(0.025, abs=0.005)
    assert sign_test_power(56, 0.1, 0.25) == pytest.approx(0.235, abs=0.01)
    assert 0.55 < sign_test_power(136, 0.1, 0.25) < 0.68
    assert sign_test_power(408, 0.1, 0.25) > 0.97


def test_the_sign_test_power_is_its_binomial_sum_by_hand():
    # 6 pairs, every one discordant and for A: the test rejects only at 6 of 6 (p = 2/64); 5 of 6 gives 14/64
    assert sign_test_power(6, 1.0, 1.0) == pytest.approx(1.0)
    assert sign_test_power(6, 0.5, 1.0) == pytest.approx(0.75 ** 6 + 0.25 ** 6)
    assert sign_test_power(5, 1.0, 1.0) == 0.0  # 5 pairs can never reach p < 0.05


def test_the_detectable_difference_has_the_power_it_claims():
    for pairs, base in ((51, 0.02), (120, 0.02), (120, 0.3)):
        mde = planned_detectable(pairs, base)
        assert mde is not None
        assert sign_test_power(pairs, mde, independent_discordance(base, mde)) >= 0.8
        assert sign_test_power(pairs, mde - 0.002, independent_discordance(base, mde - 0.002)) < 0.8
    assert planned_detectable(5, 0.0) is None  # no difference is detectable on 5 pairs
    assert planned_detectable(120, 0.02) < planned_detectable(51, 0.02)


def test_the_observed_detectable_difference_uses_the_observed_discordance():
    quiet = np.array([1.0] * 3 + [0.0] * 97)  # 3 discordant pairs of 100
    loud = np.array([1.0, -1.0] * 20 + [0.0] * 60)  # 40 of 100
    assert observed_detectable(quiet) < observed_detectable(loud)
    assert observed_detectable(quiet) == pytest.approx(planned_detectable(100, 0.0), abs=0.02)


def test_many_pairs_take_the_normal_approximation_close_to_the_exact_sum(monkeypatch):
    # the exact sum holds (pairs + 1)^2 terms (5,000 pairs: 200 MB an array); above power.EXACT_PAIRS the
    # normal approximation, within 0.1 point of the exact detectable difference where they meet
    tracemalloc.start()
    try:
        far = sign_test_power(5000, 0.03, 0.3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.5 < far < 1 and peak < 16 * 2 ** 20
    assert observed_detectable(np.array([1.0, -1.0, 0.0, 0.0] * 25000)) < 0.01  # 10^5 pairs
    exact = {psi: power._detectable_at.__wrapped__(1000, psi, 0.8, 0.05) for psi in (0.05, 0.25, 1.0)}
    monkeypatch.setattr(power, "EXACT_PAIRS", 0)
    for psi, value in exact.items():
        assert power._detectable_at.__wrapped__(1000, psi, 0.8, 0.05) == pytest.approx(value, abs=0.001)


@pytest.mark.parametrize("call, name", [
    (lambda: power.sign_test_power(-3, 0.1, 0.2), "pairs"),
    (lambda: power.sign_test_power(2.5, 0.1, 0.2), "pairs"),
    (lambda: power.sign_test_power(10, 1.5, 0.2), "delta"),
    (lambda: power.sign_test_power(10, 0.1, 1.5), "discordance"),
    (lambda: power.sign_test_power(10, 0.1, 0.2, alpha=0.0), "alpha"),
    (lambda: power.planned_detectable(100, 1.5), "base"),
    (lambda: power.planned_detectable(100, 0.5, power=1.2), "power"),
    (lambda: power.observed_detectable(np.array([np.nan, 1.0])), "task differences"),
])
def test_inputs_outside_their_range_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("pairs", [6, 40, 120, 400])
def test_a_planned_difference_never_puts_a_above_100_percent(pairs):
    # A sits at B's accuracy plus Δ: with B at 90%, 40 pairs detected "19.0 points" (A at 109%)
    for base in (0.5, 0.8, 0.9, 0.95, 1.0):
        found = power.planned_detectable(pairs, base)
        assert found is None or found <= 1 - base + 1e-12, (pairs, base, found)
    assert power.planned_detectable(40, 0.9) is None and power.planned_detectable(pairs, 1.0) is None


def _power_by_listing(pairs: int, delta: float, psi: float) -> float:
    """The power of the exact two-sided sign test, summed over every count D of discordant pairs and b of them
    for A, its p by counting the sign patterns at least as far from D / 2 (docs/statistics.md's model)."""
    favour, total = (psi + delta) / (2 * psi), 0.0
    for d in range(pairs + 1):
        weight = comb(pairs, d) * psi ** d * (1 - psi) ** (pairs - d)
        for b in range(d + 1):
            far = sum(comb(d, j) for j in range(d + 1) if abs(2 * j - d) >= abs(2 * b - d)) / 2 ** d
            if far < 0.05:
                total += weight * comb(d, b) * favour ** b * (1 - favour) ** (d - b)
    return total


def test_detects_is_the_smallest_difference_the_printed_test_finds_four_times_in_five():
    # docs/statistics.md's example, 5 of 56 tasks right against none: "detects ±13.8" is the smallest Δ that
    # the exact sign test rejects with 80% power at 56 pairs, the discordance the pairs show (5/56) raised to Δ
    diff = paired_counts({("r", f"t{i}"): (1, int(i < 5)) for i in range(56)}, {("r", f"t{i}"): (1, 0) for i in range(56)})
    assert diff is not None and diff.detectable is not None and f"{100 * diff.detectable:.1f}" == "13.8"
    found = diff.detectable
    assert _power_by_listing(56, found, max(5 / 56, found)) >= 0.8
    assert _power_by_listing(56, found - 0.002, max(5 / 56, found - 0.002)) < 0.8


@pytest.mark.parametrize("pairs", [0, 1, 5])
def test_no_pairs_or_too_few_detect_nothing(pairs):
    assert observed_detectable(np.zeros(pairs)) is None and planned_detectable(pairs, 0.3) is None
    assert sign_test_power(pairs, 1.0, 1.0) == 0.0


def test_pairs_that_never_differ_detect_what_b_at_zero_would():
    # no discordance seen: psi is raised to Δ, as for arms of which B never answers (psi = Δ (1 - 0))
    assert observed_detectable(np.zeros(40)) == planned_detectable(40, 0.0) is not None

"""How large a paired difference the study's Δ test can see: the smallest difference it detects with 80%
power at the 5% level, two-sided (the minimum detectable difference), for the test the report prints
(the paired sign-flip test over tasks, sebench.intervals.sign_flip_p, taken as exact).

The model: each pair (one task of one seed, answered by both arms) gives a difference d of +1 (A right, B
wrong), -1 (B right, A wrong) or 0, with P(d = +1) = (psi + delta) / 2 and P(d = -1) = (psi - delta) / 2,
where psi is the *discordance* (the share of pairs on which the arms differ) and delta the true Δ. With one
sample a task this is exact: the pairs are independent draws however the tasks' difficulties spread, and
the sign-flip test of ±1 differences is the exact sign test over the discordant pairs, so the power is an
exact binomial sum (`sign_test_power`; above EXACT_PAIRS pairs its normal approximation). With several
samples a task, `observed_detectable` takes the mean of d^2 for psi (the share the test sees per pair under
its null), which counts a task's difference as one answer's: an approximation.

Two sources of psi:
* planned (`planned_detectable`): the arms answer independently given their accuracies, B at an assumed
  accuracy and A at B's plus Δ, so psi = a (1 - b) + b (1 - a). Arms that share task difficulty differ on
  fewer tasks and give more power: independence is the cautious case.
* observed (`observed_detectable`): the discordance the data show, at least |Δ| (a difference needs that
  many discordant pairs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from sebench.intervals import ALPHA

POWER = 0.8
EXACT_PAIRS = 1000  # the exact power up to this many pairs, the normal approximation above


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])


def _log_binomial(n: int, p: float) -> np.ndarray:
    """log P(X = k) of X ~ Binomial(n, p), k = 0 .. n."""
    k = np.arange(n + 1)
    log_fact = _log_factorials(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return log_fact[n] - log_fact[k] - log_fact[n - k] + k * np.where(k > 0, np.log(p), 0.0) \
            + (n - k) * np.where(k < n, np.log1p(-p), 0.0)


@lru_cache(maxsize=64)
def _rejection(pairs: int, alpha: float) -> np.ndarray:
    """rejects[D, b]: whether the exact two-sided sign test rejects at alpha (p < alpha) when b of D
    discordant pairs favour A, D = 0 .. pairs. Its p is the share of sign patterns at least as far from
    D / 2 as b, as sign_flip_p counts them: 2 P(B >= max(b, D - b)) with B ~ Binomial(D, 1/2), 1 at D / 2."""
    d = np.arange(pairs + 1)[:, None]
    b = np.arange(pairs + 1)[None, :]
    log_fact = _log_factorials(pairs)
    valid = b <= d
    with np.errstate(invalid="ignore"):
        log_pmf = np.where(valid, log_fact[d] - log_fact[np.minimum(b, d)] - log_fact[np.maximum(d - b, 0)]
                           - d * math.log(2.0), -np.inf)
    tail = np.cumsum(np.exp(log_pmf)[:, ::-1], axis=1)[:, ::-1]  # P(B >= b)
    far = np.maximum(b, d - b)
    p = np.where(2 * b == d, 1.0, 2 * np.take_along_axis(tail, np.minimum(far, pairs), axis=1))
    return valid & (p < alpha * (1 - 1e-12))


def _check(name: str, value: float, low: float, high: float, closed: bool = False) -> None:
    """Refuse a value outside (low, high), or [low, high] when `closed`, naming it."""
    inside = low <= value <= high if closed else low < value < high
    if not (isinstance(value, (int, float, np.integer, np.floating)) and inside):
        brackets = "[]" if closed else "()"
        raise ValueError(f"power: {name} must lie in {brackets[0]}{low:g}, {high:g}{brackets[1]} (got {value!r})")


def _check_levels(power: float, alpha: float) -> None:
    _check("power", power, 0.0, 1.0)
    _check("alpha", alpha, 0.0, 1.0)


def sign_test_power(pairs: int, delta: float, discordance: float, alpha: float = ALPHA) -> float:
    """The exact power of the two-sided sign-flip test over `pairs` pairs at true Δ `delta` and discordance
    `discordance` (module docstring); psi is raised to |Δ| where below it. Above EXACT_PAIRS pairs (the exact
    sum needs (pairs + 1)^2 terms) the normal approximation (`_normal_power`)."""
    if not (isinstance(pairs, (int, np.integer)) and pairs >= 0):
        raise ValueError(f"power: pairs must be a whole number >= 0 (got {pairs!r})")
    _check("delta", delta, -1.0, 1.0, closed=True)
    _check("discordance", discordance, 0.0, 1.0, closed=True)
    _check("alpha", alpha, 0.0, 1.0)
    if pairs <= 0:
        return 0.0
    delta = abs(delta)
    psi = min(1.0, max(discordance, delta))
    if psi <= 0:
        return 0.0
    if pairs > EXACT_PAIRS:
        return _normal_power(pairs, delta, psi, alpha)
    favour = min(1.0, (psi + delta) / (2 * psi))  # P(a discordant pair favours A)
    d = np.arange(pairs + 1)[:, None]
    b = np.arange(pairs + 1)[None, :]
    log_fact = _log_factorials(pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_within = (log_fact[d] - log_fact[np.minimum(b, d)] - log_fact[np.maximum(d - b, 0)]
                      + b * (np.log(favour) if favour > 0 else -np.inf)
                      + (d - b) * (np.log1p(-favour) if favour < 1 else -np.inf))
        log_within = np.where(b == 0, np.where(d == 0, 0.0, log_within), log_within)
        log_within = np.where((favour == 1) & (b == d), 0.0, log_within)
    with np.errstate(over="ignore"):  # the entries b > D, masked out
        within = np.where(_rejection(pairs, alpha), np.exp(log_within), 0.0).sum(axis=1)
    return float(np.exp(_log_binomial(pairs, psi)) @ within)


def _normal_power(pairs: int, delta: float, psi: float, alpha: float) -> float:
    """The power of the test read as a z test of the sum of the pairs' d: under its null the sum has variance
    pairs psi, under Δ mean pairs Δ and variance pairs (psi - Δ^2)."""
    z = NormalDist().inv_cdf(1 - alpha / 2)
    spread = math.sqrt(pairs * max(psi - delta * delta, 0.0))
    edge, shift = z * math.sqrt(pairs * psi) + 1.0, pairs * delta  # + 1: the sum moves in steps of 2 given D
    if spread == 0:
        return float(shift > edge)
    return NormalDist().cdf((shift - edge) / spread) + NormalDist().cdf((-shift - edge) / spread)


def detectable(pairs: int, discordance_of: Callable[[float], float], power: float = POWER, alpha: float = ALPHA,
               largest: float = 1.0) -> float | None:
    """The smallest Δ in (0, 1] whose power reaches `power`, psi = discordance_of(Δ); None when even Δ =
    `largest` (1: every pair for A; less where A cannot gain more) is not detected that often."""
    _check_levels(power, alpha)
    if largest <= 0 or sign_test_power(pairs, largest, discordance_of(largest), alpha) < power:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(16):  # to 1/65536: well below the 0.1 point it is printed to
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if sign_test_power(pairs, mid, discordance_of(mid), alpha) >= power else (mid, hi)
    return hi


def independent_discordance(base: float, delta: float) -> float:
    """psi of arms answering independently, B at `base` and A at base + delta (at most 1)."""
    a = min(1.0, base + delta)
    return a * (1 - base) + base * (1 - a)


def planned_detectable(pairs: int, base: float, power: float = POWER, alpha: float = ALPHA) -> float | None:
    """The smallest Δ the design detects: `pairs` pairs (tasks x seeds), B at accuracy `base`, independent
    arms (module docstring); A is at most 100%, so None where even A at 100% (Δ = 1 - base) is not detected."""
    _check("base", base, 0.0, 1.0, closed=True)
    return detectable(pairs, lambda delta: independent_discordance(base, delta), power, alpha, largest=1.0 - base)


def observed_detectable(d: np.ndarray, power: float = POWER, alpha: float = ALPHA) -> float | None:
    """The smallest Δ the test detects at these pairs' number and discordance: psi the mean of d^2 over the
    pairs' task differences `d` (module docstring)."""
    d = np.asarray(d, float)
    if not np.all(np.isfinite(d)) or np.any(np.abs(d) > 1):
        raise ValueError("power: task differences must be finite and lie in [-1, 1]")
    if d.size == 0:
        return None
    _check_levels(power, alpha)
    return _detectable_at(int(d.size), round(float(np.mean(d * d)), 9), power, alpha)


@lru_cache(maxsize=4096)
def _detectable_at(pairs: int, psi: float, power: float, alpha: float) -> float | None:
    return detectable(pairs, lambda delta: psi, power, alpha)

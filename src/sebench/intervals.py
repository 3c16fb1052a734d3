"""The interval arithmetic behind sebench.metrics, vectorised over studies so that the coverage simulation
(tests/test_coverage.py) measures the very functions the report prints.

Arrays of counts have the shape (..., clusters): `correct[..., c]` of `size[..., c]` samples in cluster c (a
cluster of size 0 is padding and counts for nothing). Seeds add an axis: (..., seeds, clusters).

Two targets, as docs/statistics.md explains (with each interval's measured coverage):
* *these models*: the trained models at hand, tasks a sample of the task distribution; the unit is the
  cluster (run, task). Accuracy: Wilson's interval at the effective sample size, with the clustered variance
  (CR1: times C / (C - 1)) and a t quantile on C - 1 degrees of freedom, modified at small counts as Brown,
  Cai & DasGupta (2001) propose (`modified_wilson_bounds`), made monotone in the correct answers
  (`accuracy_interval`). Δ: Newcombe's hybrid score interval from the two accuracy intervals and the
  correlation of the paired task means (less half a pair); p from a paired sign-flip test over tasks.
* *the method over new seeds*: the seed is the unit; t on G - 1 degrees of freedom with the variance the
  larger of the between-seed one and that of these models' interval; Wilson's shape for accuracy,
  Newcombe's (uncorrelated arms) for Δ.
`agree` makes an interval read as its test does at 0; the printed p is always the test's.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]
Z95 = 1.959963984540054  # the standard normal quantile of a two-sided 95% interval
LEVEL = 0.95
ALPHA = 0.05  # a test rejects where p < ALPHA (not 1 - LEVEL, which is 0.050000000000000044 in floating point)
EXACT_MAX = 16  # a sign-flip test enumerates every sign pattern up to this many nonzero differences
DRAWS = 20000  # else this many random sign patterns, from a fixed seed
PATTERN_VALUES = 2 ** 24  # at most this many signs drawn at once (128 MiB), whatever the number of tasks


# ---- the t distribution -------------------------------------------------------------------------------


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    out = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            out *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return out


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t on df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return _incomplete_beta(df / 2, 0.5, df / (df + t * t))


@lru_cache(maxsize=4096)
def t_quantile(df: float, level: float = LEVEL) -> float:
    """The quantile q of Student's t with P(|T| <= q) = level (two-sided): Newton's method on the tail, kept
    inside a bisection bracket; the normal's for df above 10^6."""
    if df > 1e6:
        return Z95 if level == LEVEL else _normal_quantile(level)
    tail = 1 - level
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > tail:
        lo, hi = hi, hi * 2
    x = (lo + hi) / 2
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    for _ in range(100):
        gap = t_two_sided_p(x, df) - tail
        lo, hi = (x, hi) if gap > 0 else (lo, x)
        density = 2 * math.exp(log_norm - (df + 1) / 2 * math.log1p(x * x / df))
        step = x + gap / density if density > 0 else (lo + hi) / 2
        step = step if lo < step < hi else (lo + hi) / 2
        if abs(step - x) < 1e-14 * max(1.0, x):
            return step
        x = step
    return x


def _normal_quantile(level: float) -> float:
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erfc(mid / math.sqrt(2)) > 1 - level else (lo, mid)
    return (lo + hi) / 2


def t_quantiles(df: NDArray, level: float = LEVEL) -> Array:
    """`t_quantile` of each df (an array of degrees of freedom; NaN where df < 1)."""
    flat = np.asarray(df, dtype=float)
    out = np.full(flat.shape, np.nan)
    for value in np.unique(flat[flat >= 1]):
        out[flat == value] = t_quantile(float(value), level)
    return out


# ---- accuracy ---------------------------------------------------------------------------------------------


def wilson_bounds(p: NDArray, n: NDArray, q: NDArray) -> tuple[Array, Array]:
    """Wilson's score interval of a proportion p over n (effective) samples at quantile q."""
    p, n, q = np.broadcast_arrays(np.asarray(p, float), np.asarray(n, float), np.asarray(q, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        q2n = q * q / n
        centre = (p + q2n / 2) / (1 + q2n)
        half = q * np.sqrt(p * (1 - p) / n + q2n / (4 * n)) / (1 + q2n)
    lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return lo, hi


def _lower_gamma(a: Array, y: Array, log_gamma: Array) -> Array:
    """P(a, y), the regularized lower incomplete gamma function (a > 0, y >= 0; log_gamma = ln Gamma(a + 1)),
    by its power series y^a e^-y / Gamma(a + 1) * sum over k of y^k / ((a + 1) ... (a + k))."""
    term = np.ones_like(y)
    total = term.copy()
    for k in range(1, 1000):
        term = term * y / (a + k)
        total = total + term
        if np.all(term <= 1e-17 * total):
            break
    with np.errstate(divide="ignore"):
        return np.exp(a * np.log(y) - y - log_gamma) * total


def poisson_lower(x: NDArray, alpha: float = 1 - LEVEL) -> Array:
    """The one-sided 100 (1 - alpha)% lower bound of a Poisson mean from x events, 0.5 chi2_{2x, alpha}: the
    lambda with P(Poisson(lambda) >= x) = P(x, lambda) = alpha (x real, > 0). Newton's method on P, kept
    inside a bisection bracket, over the distinct values of x (to 10 decimals)."""
    x = np.asarray(x, float)
    rounded = np.round(x, 10)  # counts equal but for rounding share one root (the bound moves by < 1e-10)
    values, inverse = np.unique(np.where(rounded > 0, rounded, x), return_inverse=True)
    log_gamma = np.array([math.lgamma(v + 1) for v in values])
    lo, hi = np.zeros_like(values), values + 10 * np.sqrt(values) + 10  # above the quantile for alpha <= 0.999
    with np.errstate(under="ignore"):  # the root of y^x / Gamma(x + 1) = alpha: near it for small x
        start = np.maximum(np.exp((np.log(alpha) + log_gamma) / values), 1e-300)
    y = np.where(values < 1, np.minimum(start, hi / 2), np.minimum(values, hi / 2))
    for _ in range(200):
        gap = _lower_gamma(values, y, log_gamma) - alpha
        lo, hi = np.where(gap < 0, y, lo), np.where(gap < 0, hi, y)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            density = np.exp((values - 1) * np.log(y) - y - log_gamma + np.log(values))  # y^(x-1) e^-y / Gamma(x)
            step = y - gap / density
        step = np.where((step > lo) & (step < hi), step, (lo + hi) / 2)
        step = np.where(np.abs(gap) <= 1e-13, y, step)  # P at alpha within its own precision: y is the root
        done = np.abs(step - y) <= 1e-10 * y + 1e-15  # a mean below 1e-15 is 0 to any bound
        y = step
        if np.all(done):
            break
    return y[inverse].reshape(np.shape(x))


def small_counts(n: NDArray) -> Array:
    """x*, the largest (effective) count whose Wilson bound the modified interval replaces: 4 up to n = 100 and
    8 above. Brown, Cai & DasGupta (2001) give 2 up to 50 and 3 up to 100; the exact coverage of the one-seed
    interval over every task count 3-300 (tests/test_interval_exact.py, docs/statistics.md) fell to 92.2% just
    under the lower bound at 3 correct of 45-51 tasks, and to 93.0% near 98.6% at 290-300 tasks, where Wilson's
    bound at 5-8 wrong answers is too tight while the other side misses 0 wrong answers at 1.7%."""
    n = np.asarray(n, float)
    return np.where(n <= 100, 4.0, 8.0)


def modified_wilson_bounds(p: NDArray, n: NDArray, q: NDArray, alpha: float = 1 - LEVEL) -> tuple[Array, Array]:
    """The modified Wilson interval of Brown, Cai & DasGupta ("Interval Estimation for a Binomial Proportion",
    Statistical Science 16(2), 2001, section 4.1.1): Wilson's score interval, except that for x = p n in
    (0, x*] (`small_counts`) the lower bound is the one-sided Poisson bound 0.5 chi2_{2x, alpha} / n, and the
    upper bound likewise 1 - 0.5 chi2_{2(n - x), alpha} / n for n - x in (0, x*]. This removes Wilson's
    coverage dips just below its bounds at small counts. n and x may be real (an effective size); a bound
    is only ever moved outwards (the wider of Wilson's and the Poisson bound is kept)."""
    p, n, q = np.broadcast_arrays(np.asarray(p, float), np.asarray(n, float), np.asarray(q, float))
    lo, hi = wilson_bounds(p, n, q)
    return _poisson_bound(p * n, n, lo, alpha, lower=True), _poisson_bound((1.0 - p) * n, n, hi, alpha, lower=False)


def _poisson_bound(count: Array, n: Array, bound: Array, alpha: float, lower: bool) -> Array:
    """Wilson's `bound` modified where the count (of correct answers for the lower bound, of wrong ones for the
    upper) is in (0, x*]: at most 0.5 chi2_{2 count, alpha} / n, or at least 1 minus that."""
    small = (n > 0) & (count > 0) & (count <= small_counts(n) * (1 + 1e-9))
    if not np.any(small):
        return bound
    poisson = poisson_lower(count[small], alpha) / n[small]
    out = np.array(bound, float, copy=True)
    out[small] = np.minimum(out[small], poisson) if lower else np.maximum(out[small], 1.0 - poisson)
    return out


def clustered(correct: NDArray, size: NDArray) -> tuple[Array, Array, Array, Array]:
    """(accuracy p, CR1 clustered variance of p, samples n, clusters C) over the last axis."""
    correct, size = np.asarray(correct, float), np.asarray(size, float)
    n = size.sum(-1)
    clusters = (size > 0).sum(-1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, correct.sum(-1) / n, 0.0)
        resid = correct - size * p[..., None]
        cr1 = np.where(clusters > 1, clusters / (clusters - 1), 1.0)
        variance = np.where(n > 0, (resid * resid).sum(-1) / (n * n) * cr1, 0.0)
    return p, variance, n, clusters


def effective_n(p: NDArray, variance: NDArray, n: NDArray, clusters: NDArray) -> Array:
    """Kish's effective sample size p (1 - p) / variance, at most n (also where the variance is 0); the
    clusters where p is 0 or 1 (no variance to estimate a design effect from)."""
    p, variance = np.asarray(p, float), np.asarray(variance, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        kish = np.where(variance > 0, p * (1 - p) / variance, np.inf)
    return np.where((p > 0) & (p < 1), np.minimum(n, kish), clusters)


def accuracy_interval(correct: NDArray, size: NDArray, level: float = LEVEL) -> tuple[
        Array, Array, Array, Array, Array]:
    """These models' accuracy and its 95% interval over the last axis (clusters): (p, se, n_eff, lo, hi).

    The modified Wilson interval (`modified_wilson_bounds`) at the effective size with t on C - 1 df, made
    monotone: the upper bound is the largest over every count of correct answers that these answers could be
    cut down to (`_upper_envelope`), the lower bound the same for the wrong answers (the Poisson bound at few
    correct answers is the upper one's at few wrong answers). One more correct answer therefore never lowers
    either bound."""
    correct, size = np.asarray(correct, float), np.asarray(size, float)
    p, variance, n, clusters = clustered(correct, size)
    q = t_quantiles(np.maximum(clusters - 1, 1), level)
    alpha = 1 - level
    hi = np.maximum(_upper_envelope(correct, size, q, alpha), p)  # never below p by rounding (1 - 2e-16 at 100%)
    lo = np.minimum(1.0 - _upper_envelope(size - correct, size, q, alpha), p)
    return p, np.sqrt(variance), effective_n(p, variance, n, clusters), lo, hi


def _raw_upper(p: NDArray, variance: NDArray, n: NDArray, clusters: NDArray, q: NDArray, alpha: float) -> Array:
    """The modified Wilson upper bound at the effective size (the clusters where the variance is 0)."""
    p, n_eff, q = np.broadcast_arrays(np.asarray(p, float), effective_n(p, variance, n, clusters), np.asarray(q, float))
    return _poisson_bound((1.0 - p) * n_eff, n_eff, wilson_bounds(p, n_eff, q)[1], alpha, lower=False)


def _upper_envelope(correct: Array, size: Array, q: Array, alpha: float = 1 - LEVEL) -> Array:
    """The largest modified Wilson upper bound over the answers with k = 0 .. c of the c correct ones kept, each k
    at a bound of the largest clustered variance any such answers have: sum of x_i^2 at its largest (the
    clusters with the most correct answers kept whole) and sum of m_i x_i at its smallest (the smallest
    clusters filled first), each over the same kept answers x_i <= c_i. With equal cluster sizes that is the
    largest variance itself; with unequal sizes an upper bound of it. Either way it grows with c, so the
    envelope never falls when an answer turns correct."""
    lead = correct.shape[:-1]
    flat_c = correct.reshape(-1, correct.shape[-1])
    flat_n = size.reshape(-1, size.shape[-1])
    n = flat_n.sum(-1)
    clusters = (flat_n > 0).sum(-1).astype(float)
    qq = np.broadcast_to(q, lead).reshape(-1)
    top = int(flat_c.sum(-1).max()) if len(flat_c) else 0
    kept = np.arange(top + 1, dtype=float)
    by_count = np.argsort(-flat_c, axis=-1, kind="stable")
    caps = np.take_along_axis(flat_c, by_count, -1)
    sum_sq = _greedy_fill(caps, caps, kept, square=True)
    by_size = np.argsort(flat_n, axis=-1, kind="stable")
    sum_mc = _greedy_fill(np.take_along_axis(flat_c, by_size, -1), np.take_along_axis(flat_n, by_size, -1), kept)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_k = kept[None, :] / n[:, None]
        cr1 = np.where(clusters > 1, clusters / (clusters - 1), 1.0)[:, None]
        var_k = (sum_sq - 2 * p_k * sum_mc + p_k ** 2 * (flat_n ** 2).sum(-1)[:, None]) / n[:, None] ** 2 * cr1
    valid = kept[None, :] <= flat_c.sum(-1)[:, None]  # k beyond a row's correct answers: k = 0 in its place
    p_k, var_k = np.where(valid, p_k, 0.0), np.where(valid, np.maximum(var_k, 0.0), 0.0)
    upper = _raw_upper(p_k, var_k, n[:, None], clusters[:, None], qq[:, None], alpha)
    out = upper.max(-1)
    return np.where(n > 0, out, 1.0).reshape(lead)


def _greedy_fill(caps: Array, weights: Array, kept: Array, square: bool = False) -> Array:
    """For each k in `kept`, k answers poured into the clusters in their order, each up to its cap: the sum
    of weight x x over the clusters (or of x^2 with `square`), shape (rows, len(kept))."""
    zero = np.zeros((len(caps), 1))
    cum = np.concatenate([zero, np.cumsum(caps, -1)], -1)
    cum_w = np.concatenate([zero, np.cumsum(caps * caps if square else weights * caps, -1)], -1)
    weights = np.concatenate([weights, zero], -1)
    # the cluster being filled for each k: the first whose cumulative count exceeds k (searchsorted per row)
    width = float(kept[-1] + 2) if len(kept) else 2.0
    offsets = np.arange(len(cum))[:, None] * width
    idx = np.searchsorted((cum[:, 1:] + offsets).ravel(), (kept[None, :] + offsets).ravel(), side="right")
    idx = idx.reshape(len(cum), -1) - np.arange(len(cum))[:, None] * caps.shape[-1]
    rest = kept[None, :] - np.take_along_axis(cum, idx, -1)
    filling = rest * rest if square else np.take_along_axis(weights, idx, -1) * rest
    return np.take_along_axis(cum_w, idx, -1) + filling


def over_seeds_interval(correct: NDArray, size: NDArray, level: float = LEVEL) -> tuple[Array, Array, Array, Array]:
    """The method's accuracy over new seeds from counts shaped (..., seeds, clusters): (mean of the seeds'
    accuracies, se, lo, hi); NaN bounds with fewer than 2 seeds.

    t on G - 1 df with variance max(between-seed, these models' interval's): the seeds' spread estimated
    from 2-3 values can be near 0 by chance, and the mean over seeds is never surer than these models."""
    seeds = (np.asarray(size).sum(-1) > 0).sum(-1).astype(float)
    p_seed, _, n_seed, _ = clustered(correct, size)
    used = n_seed > 0
    mean = np.where(seeds > 0, (p_seed * used).sum(-1) / np.maximum(seeds, 1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (((p_seed - mean[..., None]) * used) ** 2).sum(-1) / (seeds * (seeds - 1))
    within = _pooled_variance(correct, size)
    variance = np.maximum(between, within)
    q = t_quantiles(np.maximum(seeds - 1, 1), level)
    n = np.asarray(size, float).sum((-2, -1))
    clusters = (np.asarray(size) > 0).sum((-2, -1)).astype(float)
    lo, hi = wilson_bounds(mean, effective_n(mean, variance, n, clusters), q)
    lo, hi = np.minimum(lo, mean), np.maximum(hi, mean)
    se = np.sqrt(variance)
    few = seeds < 2
    return mean, se, np.where(few, np.nan, lo), np.where(few, np.nan, hi)


def _pooled_variance(correct: NDArray, size: NDArray) -> Array:
    """The variance implied by these models' interval of the seeds pooled: ((hi - lo) / (2 q))^2."""
    flat_c = np.asarray(correct, float).reshape(*np.shape(correct)[:-2], -1)
    flat_n = np.asarray(size, float).reshape(*np.shape(size)[:-2], -1)
    _, _, _, lo, hi = accuracy_interval(flat_c, flat_n)
    clusters = (flat_n > 0).sum(-1)
    q = t_quantiles(np.maximum(clusters - 1, 1))
    return ((hi - lo) / (2 * q)) ** 2


# ---- paired differences -----------------------------------------------------------------------------------


def paired_interval(correct_a: NDArray, size_a: NDArray, correct_b: NDArray, size_b: NDArray,
                    level: float = LEVEL) -> tuple[Array, Array, Array, Array]:
    """These models' Δ = A - B over paired clusters (last axis; both arms answered every cluster that is not
    padding): (Δ, se over N - 1, lo, hi), Newcombe's hybrid score interval (method 10) from the two accuracy
    intervals with the correlation of the paired cluster means, clipped at 0 (never narrower than for
    uncorrelated arms)."""
    mean_a, mean_b, used = _cluster_means(correct_a, size_a, correct_b, size_b)
    pa, _, _, la, ua = accuracy_interval(np.asarray(correct_a, float) * used, np.asarray(size_a, float) * used, level)
    pb, _, _, lb, ub = accuracy_interval(np.asarray(correct_b, float) * used, np.asarray(size_b, float) * used, level)
    d = (mean_a - mean_b) * used
    pairs = used.sum(-1)
    delta = pa - pb
    with np.errstate(divide="ignore", invalid="ignore"):
        centred_d = (d - (d.sum(-1) / pairs)[..., None]) * used
        se = np.sqrt((centred_d ** 2).sum(-1) / (pairs * (pairs - 1)))
        ca = (mean_a - (mean_a * used).sum(-1, keepdims=True) / pairs[..., None]) * used
        cb = (mean_b - (mean_b * used).sum(-1, keepdims=True) / pairs[..., None]) * used
        # the correlation with a continuity correction of half a pair (in a 2 x 2 table: AD - BC - N/2 over
        # sqrt(efgh)), so that it stays below 1 and the interval never shrinks to a point
        phi = ((ca * cb).sum(-1) - 0.5) / np.sqrt((ca * ca).sum(-1) * (cb * cb).sum(-1))
    phi = np.clip(np.nan_to_num(phi, nan=0.0), 0.0, 1.0)
    se = np.where(pairs > 1, se, np.nan)
    down = np.sqrt(np.maximum((pa - la) ** 2 - 2 * phi * (pa - la) * (ub - pb) + (ub - pb) ** 2, 0.0))
    up = np.sqrt(np.maximum((ua - pa) ** 2 - 2 * phi * (ua - pa) * (pb - lb) + (pb - lb) ** 2, 0.0))
    return delta, se, np.minimum(np.maximum(delta - down, -1.0), delta), np.maximum(np.minimum(delta + up, 1.0), delta)


def _cluster_means(correct_a: NDArray, size_a: NDArray, correct_b: NDArray, size_b: NDArray) -> tuple[
        Array, Array, Array]:
    """Each cluster's mean score in A and in B, and 1.0 where both answered it (else 0.0)."""
    size_a, size_b = np.asarray(size_a, float), np.asarray(size_b, float)
    used = ((size_a > 0) & (size_b > 0)).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_a = np.where(size_a > 0, np.asarray(correct_a, float) / size_a, 0.0)
        mean_b = np.where(size_b > 0, np.asarray(correct_b, float) / size_b, 0.0)
    return mean_a, mean_b, used


def sign_flip_p(d: NDArray, exact_max: int = EXACT_MAX, draws: int = DRAWS, seed: int = 0) -> Array:
    """The two-sided p of the paired sign-flip (permutation) test of mean(d) = 0 over the last axis: the share
    of sign patterns whose |sum| is at least the observed one. Exact (every pattern) when at most
    `exact_max` positions are nonzero in some study, else `draws` random patterns from `seed`, counting the
    observed one ((1 + hits) / (1 + draws))."""
    d = np.asarray(d, float)
    d = d[..., np.any(d != 0, axis=tuple(range(d.ndim - 1)))] if d.ndim > 1 else d[d != 0]
    k = d.shape[-1]
    observed = np.abs(d.sum(-1))
    if k == 0:
        return np.ones(d.shape[:-1])
    tolerance = 1e-9 * np.maximum(1.0, np.abs(d).sum(-1))
    if k <= exact_max:
        patterns = 1 - 2 * ((np.arange(2 ** k)[:, None] >> np.arange(k)) & 1)
        hits = (np.abs(d @ patterns.T) >= (observed - tolerance)[..., None]).mean(-1)
        return np.asarray(hits, float)
    rng = np.random.default_rng(seed)
    hits = np.zeros(d.shape[:-1])
    rows = max(1, PATTERN_VALUES // k)  # patterns drawn in blocks (the same stream as all at once)
    for start in range(0, draws, rows):
        patterns = rng.choice(np.array([-1.0, 1.0]), size=(min(rows, draws - start), k))
        hits = hits + (np.abs(d @ patterns.T) >= (observed - tolerance)[..., None]).sum(-1)
    return np.asarray((1 + hits) / (1 + draws), float)


def over_seeds_paired(correct_a: NDArray, size_a: NDArray, correct_b: NDArray, size_b: NDArray,
                      level: float = LEVEL, p_these: ArrayLike = 0.0) -> tuple[Array, Array, Array, Array, Array]:
    """The method's Δ over new seeds from counts shaped (..., seeds, clusters): (mean of the seeds' Δ, se,
    lo, hi, p); NaN bounds and p with fewer than 2 seeds. The interval is Newcombe's from the two arms'
    intervals over seeds, uncorrelated (each arm's training effect is its own); p is t on G - 1 df with
    variance max(between-seed, these models' Newcombe interval's), and never below `p_these`, these models'
    p (the paired test over the same tasks): a difference the tasks at hand do not establish is not one the
    method would show over new seeds. (With one task a seed, Newcombe's interval clipped at ±1 gave t a
    variance small enough for p 0.035 at 2 seeds, where the exact test over the 2 tasks gives 0.5.)"""
    _, _, used = _cluster_means(correct_a, size_a, correct_b, size_b)
    ca, na = np.asarray(correct_a, float) * used, np.asarray(size_a, float) * used
    cb, nb = np.asarray(correct_b, float) * used, np.asarray(size_b, float) * used
    pa, _, la, ua = over_seeds_interval(ca, na, level)
    pb, _, lb, ub = over_seeds_interval(cb, nb, level)
    seed_used = (used.sum(-1) > 0).astype(float)
    seeds = seed_used.sum(-1)
    d_seed = (clustered(ca, na)[0] - clustered(cb, nb)[0]) * seed_used
    mean = pa - pb
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (((d_seed - mean[..., None]) * seed_used) ** 2).sum(-1) / (seeds * (seeds - 1))
    flat = [x.reshape(*x.shape[:-2], -1) for x in (ca, na, cb, nb)]
    _, _, lo_p, hi_p = paired_interval(flat[0], flat[1], flat[2], flat[3])
    pairs = (flat[1] > 0).sum(-1)
    within = ((hi_p - lo_p) / (2 * t_quantiles(np.maximum(pairs - 1, 1)))) ** 2
    se = np.sqrt(np.maximum(between, within))
    df = np.maximum(seeds - 1, 1)
    t = np.abs(mean) / se
    p = np.array([t_two_sided_p(float(tv), float(dv)) for tv, dv in zip(np.ravel(t), np.ravel(df))]).reshape(t.shape)
    p = np.maximum(p, p_these)
    lo = np.maximum(mean - np.hypot(pa - la, ub - pb), -1.0)
    hi = np.minimum(mean + np.hypot(ua - pa, pb - lb), 1.0)
    few = seeds < 2
    return mean, se, np.where(few, np.nan, lo), np.where(few, np.nan, hi), np.where(few, np.nan, p)


# ---- one reading for the interval and the test ----------------------------------------------------------


def agree(delta: ArrayLike, lo: ArrayLike, hi: ArrayLike, p: ArrayLike, step: ArrayLike,
          alpha: float = ALPHA) -> tuple[Array, Array]:
    """The interval made to read as the test does at 0, so that "the interval excludes 0" and "p < alpha"
    are one statement: where the test does not reject, the interval reaches to 0; where it rejects and the
    interval still reaches 0 on the far side of the estimate, that bound moves to the estimate's side, at
    `step` (one answer's worth of difference) or the estimate if that is nearer 0."""
    d, low, high, test_p, one = np.broadcast_arrays(*(np.asarray(x, float) for x in (delta, lo, hi, p, step)))
    keep = test_p < alpha
    cut = np.minimum(np.abs(d), one)
    low = np.where(keep, np.where((d > 0) & (low <= 0), cut, low), np.minimum(low, 0.0))
    high = np.where(keep, np.where((d < 0) & (high >= 0), -cut, high), np.maximum(high, 0.0))
    return low, high

"""Synthetic name-recall studies for measuring the coverage of the report's top-1 and top-10 intervals
(tests/test_coverage.py; run this file to print the sweep that docs/statistics.md quotes).

A study scores F functions drawn from a package. Function f's knowledge is k_f ~ N(mu, sd); each of the
other NAMES - 1 names scores above its own with chance sigmoid(-k_f), so its rank is 1 + Binomial(NAMES - 1,
sigmoid(-k_f)). The truths (the model's top-1 and top-10 shares over the package's functions) are computed
by Gauss-Hermite quadrature and the binomial distribution, never from the intervals' code.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass

import numpy as np

from sebench.metrics import accuracy_counts

NAMES = 278
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


@dataclass(frozen=True)
class RecallSetting:
    functions: int
    mu: float
    sd: float


def _above(k):
    """The chance that another name scores above the right one."""
    return 1.0 / (1.0 + np.exp(k))


def truths(s: RecallSetting) -> dict[str, float]:
    """The top-1 and top-10 shares over the package's functions: P(Binomial(NAMES - 1, q) < k)."""
    q = _above(s.mu + s.sd * NODES)
    n = NAMES - 1
    below = [math.comb(n, j) * q ** j * (1 - q) ** (n - j) for j in range(10)]  # P(j names score above)
    return {f"top-{k}": float((sum(below[:k]) * WEIGHTS).sum()) for k in (1, 10)}


def coverage(s: RecallSetting, studies: int, seed: int) -> dict[str, float]:
    """The share of studies whose printed 95% interval holds the truth, for top-1 and top-10."""
    rng = np.random.default_rng(seed)
    truth = truths(s)
    held = dict.fromkeys(truth, 0)
    for _ in range(studies):
        ranks = 1 + rng.binomial(NAMES - 1, _above(rng.normal(s.mu, s.sd, s.functions)))
        for name in truth:
            values = (ranks <= int(name.split("-")[1])).astype(float)
            lo, hi = accuracy_counts({("run", f"f{i}"): (1, float(v)) for i, v in enumerate(values)})["ci95"]
            held[name] += lo <= truth[name] <= hi
    return {name: count / studies for name, count in held.items()}


SWEEP = [RecallSetting(f, mu, sd) for f, mu, sd in itertools.product((4, 8, 24, 60), (-2.0, 2.0, 4.0, 6.0, 9.0),
                                                                       (1.0, 3.0))]  # shares from 0 to about 97%

if __name__ == "__main__":
    studies = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    for s in SWEEP:
        truth, got = truths(s), coverage(s, studies, seed=s.functions)
        print(f"{s.functions:3d} functions  mu {s.mu:5.1f}  sd {s.sd:.1f}  "
              + "  ".join(f"{k} {100 * truth[k]:5.1f}% covered {100 * got[k]:5.1f}%" for k in truth))

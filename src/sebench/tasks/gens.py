"""Seeded generators of test inputs (plain Python data), with shapes and edge cases varied by case index.

Every helper takes the task's `random.Random` first; `i` is the test case's index, used to schedule
shapes (1-D, 2-D, a single element, a single row, ...) and edge cases (empty, NaN) at fixed positions so
that every task gets them. Generators get a `BudgetedRandom`: a runaway redraw loop ends in
`DrawsExhausted` after a fixed number of draws instead of hanging, and `redraw` is the one bounded way to
sample until a condition holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

NAN = float("nan")
INF = float("inf")

# Shape schedule by case index for arrays of 1 or 2 dimensions: ("1", n) or ("2", rows, cols).
_SCHEDULE = ("1m", "2m", "1one", "2m", "1l", "2row", "1m", "empty", "nan", "2m", "1m", "2col")
REDRAWS = 100  # draws `redraw` tries before giving up

V = TypeVar("V")


class DrawsExhausted(Exception):
    """A generator ran out of its draw budget (or of redraws) before producing a test case."""


class BudgetedRandom(random.Random):
    """random.Random (the same values for the same seed) that counts its draws and raises DrawsExhausted
    once more than `limit` draws have been made since the last `allow(limit)`.

    Integer draws (randint, choice, shuffle, ...) go through `_randbelow`, overridden here with the
    standard library's own algorithm calling the base `getrandbits` directly: one Python call less per
    draw, the same values."""

    def __init__(self, seed: str, limit: int):
        self.draws = 0
        self.allow(limit)
        super().__init__(seed)

    def allow(self, limit: int) -> None:
        """Allows `limit` more draws from now on."""
        self._limit = limit
        self._stop = self.draws + limit

    def _count(self) -> None:
        self.draws += 1
        if self.draws > self._stop:
            raise DrawsExhausted(f"more than {self._limit} random draws for one test case")

    def random(self) -> float:
        self._count()
        return _RANDOM(self)

    def getrandbits(self, k: int) -> int:
        self._count()
        return _GETRANDBITS(self, k)

    def _randbelow(self, n: int) -> int:
        self._count()
        k = n.bit_length()
        r = _GETRANDBITS(self, k)
        while r >= n:  # rejection sampling (each try accepts with probability > 1/2)
            self._count()
            r = _GETRANDBITS(self, k)
        return r


_RANDOM, _GETRANDBITS = random.Random.random, random.Random.getrandbits


def redraw(draw: Callable[[], V], ok: Callable[[V], bool], tries: int = REDRAWS) -> V:
    """The first of up to `tries` fresh draws that satisfies ok; each try redraws everything ok tests."""
    for _ in range(tries):
        value = draw()
        if ok(value):
            return value
    raise DrawsExhausted(f"no valid draw in {tries} tries")


def sampler(r: random.Random, lo: float, hi: float, dec: int = 2) -> Callable[[], float]:
    """A function drawing numbers in [lo, hi] from r: ints when dec == 0 (the values r.randint gives),
    else floats rounded to dec decimals (the values of r.uniform). It skips their per-call argument
    checks: every generator draws most of its numbers here."""
    if dec == 0:
        lo, hi = int(lo), int(hi)
        if hi < lo:
            raise ValueError(f"empty range [{lo}, {hi}]")
        below, width = r._randbelow, hi - lo + 1
        return lambda: lo + below(width)
    draw, width = r.random, hi - lo
    return lambda: round(lo + width * draw(), dec)


def num(r: random.Random, lo: float, hi: float, dec: int = 2):
    """A number in [lo, hi]: an int when dec == 0, else a float rounded to dec decimals."""
    return sampler(r, lo, hi, dec)()


def vec(r: random.Random, n: int, lo: float, hi: float, dec: int = 2) -> list:
    draw = sampler(r, lo, hi, dec)
    return [draw() for _ in range(n)]


def mat(r: random.Random, rows: int, cols: int, lo: float, hi: float, dec: int = 2) -> list:
    draw = sampler(r, lo, hi, dec)
    return [[draw() for _ in range(cols)] for _ in range(rows)]


def arr(r: random.Random, i: int, lo: float = -10, hi: float = 10, dec: int = 2, nd: tuple = (1, 2),
        empty: bool = True, nan: bool = False, n: tuple = (2, 7)):
    """A 1-D or 2-D nested list; case i picks the shape (and the empty / NaN edge cases)."""
    slot = _SCHEDULE[i % len(_SCHEDULE)] if i < len(_SCHEDULE) else r.choice(("1m", "2m"))
    if slot == "empty" and not empty:
        slot = "1m"
    if slot == "nan" and (not nan or dec == 0):
        slot = "2m"
    if slot.startswith("2") and 2 not in nd:
        slot = "1m"
    if slot.startswith("1") and 1 not in nd:
        slot = "2m"
    if slot == "empty":
        return []
    if slot == "nan":
        out = vec(r, r.randint(3, 6), lo, hi, dec)
        out[r.randrange(len(out))] = NAN
        return out
    if slot == "1one":
        return vec(r, 1, lo, hi, dec)
    if slot == "1l":
        return vec(r, r.randint(n[1], n[1] + 3), lo, hi, dec)
    if slot == "1m":
        return vec(r, r.randint(*n), lo, hi, dec)
    if slot == "2row":
        return mat(r, 1, r.randint(*n), lo, hi, dec)
    if slot == "2col":
        return mat(r, r.randint(*n), 1, lo, hi, dec)
    return mat(r, r.randint(2, 4), r.randint(2, 5), lo, hi, dec)


def vec1(r: random.Random, i: int, lo: float = -10, hi: float = 10, dec: int = 2, empty: bool = True,
         nan: bool = False, n: tuple = (2, 8)) -> list:
    """A 1-D list whose length varies with i (an empty one at i == 7 when allowed)."""
    return arr(r, i, lo, hi, dec, nd=(1,), empty=empty, nan=nan, n=n)


def same_shape(r: random.Random, like, lo: float, hi: float, dec: int = 2):
    """Random data with the same nested-list shape as `like`."""
    if isinstance(like, list):
        return [same_shape(r, v, lo, hi, dec) for v in like]
    return num(r, lo, hi, dec)


def square(r: random.Random, n: int, lo: float = -5, hi: float = 5, dec: int = 0) -> list:
    return mat(r, n, n, lo, hi, dec)


def spd(r: random.Random, n: int) -> list:
    """A symmetric positive definite integer matrix (A^T A + n I)."""
    a = mat(r, n, n, -3, 3, 0)
    return [[sum(a[k][i] * a[k][j] for k in range(n)) + (n if i == j else 0) for j in range(n)]
            for i in range(n)]


def symmetric(r: random.Random, n: int, lo: int = -5, hi: int = 5) -> list:
    a = mat(r, n, n, lo, hi, 0)
    return [[a[min(i, j)][max(i, j)] for j in range(n)] for i in range(n)]


def invertible(r: random.Random, n: int) -> list:
    """An integer matrix with a nonzero determinant of moderate size (diagonally dominant)."""
    a = mat(r, n, n, -3, 3, 0)
    for k in range(n):
        a[k][k] = sum(abs(v) for v in a[k]) + r.randint(1, 3)
    return a

"""Seeded generators of test inputs (plain Python data), with shapes and edge cases varied by case index.

Every helper takes the task's `random.Random` first; `i` is the test case's index, used to schedule
shapes (1-D, 2-D, a single element, a single row, ...) and edge cases (empty, NaN) at fixed positions so
that every task gets them.
"""

from __future__ import annotations

import random

NAN = float("nan")
INF = float("inf")

# Shape schedule by case index for arrays of 1 or 2 dimensions: ("1", n) or ("2", rows, cols).
_SCHEDULE = ("1m", "2m", "1one", "2m", "1l", "2row", "1m", "empty", "nan", "2m", "1m", "2col")


def num(r: random.Random, lo: float, hi: float, dec: int = 2):
    """A number in [lo, hi]: an int when dec == 0, else a float rounded to dec decimals."""
    if dec == 0:
        return r.randint(int(lo), int(hi))
    return round(r.uniform(lo, hi), dec)


def vec(r: random.Random, n: int, lo: float, hi: float, dec: int = 2) -> list:
    return [num(r, lo, hi, dec) for _ in range(n)]


def mat(r: random.Random, rows: int, cols: int, lo: float, hi: float, dec: int = 2) -> list:
    return [vec(r, cols, lo, hi, dec) for _ in range(rows)]


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

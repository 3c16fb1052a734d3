"""Shared pieces of the more-itertools families: the template helper and seeded input generators.

Inputs are plain JSON data (lists of small integers, words, short strings); a generator part is a
function (rng, i) -> value, where i is the test case's index (case 0 is the edge case: an empty list
where the task allows one). Statements describe the computation in words and never name a function.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from sebench.tasks import Template

LIBRARY = "more_itertools"
Part = Callable[[random.Random, int], Any]

# Plain nouns for word lists (none is a more-itertools name).
WORDS = ("apple", "river", "stone", "cloud", "maple", "tiger", "lemon", "piano", "ocean", "amber", "delta",
         "ember", "falcon", "garden", "harbor", "island", "jungle", "kettle", "ladder", "meadow", "nectar",
         "orbit", "pepper", "quartz", "rocket", "saddle", "tunnel", "violet", "walnut", "yonder", "zebra",
         "ant", "bee", "cat", "dog", "elk", "fox", "gnu", "hen", "ibis", "jay", "koi", "owl", "yak")
LETTERS = "abcde"


def S(name: str, entry: str, params: str, body: str, texts: tuple[str, ...], gen: Callable, **kw) -> Template:
    """A single-function template on `name` (key "mit.<name>.<entry>")."""
    return T(f"mit.{name}.{entry}", entry, params, body, texts, gen, **kw)


def T(key: str, entry: str, params: str, body: str, texts: tuple[str, ...], gen: Callable, **kw) -> Template:
    return Template(key=key, entry=entry, params=tuple(params.split()), body=body.strip("\n"),
                    texts=tuple(" ".join(t.split()) for t in texts), gen=gen, library=LIBRARY, **kw)


def G(**parts: Part) -> Callable[[random.Random, int], dict]:
    """A generator drawing each parameter from its part, in the given order."""
    def gen(r: random.Random, i: int) -> dict:
        return {k: f(r, i) for k, f in parts.items()}
    return gen


def ints(r: random.Random, i: int, lo: int = 0, hi: int = 9, n: tuple[int, int] = (1, 9),
         empty: bool = True) -> list[int]:
    if empty and i == 0:
        return []
    return [r.randint(lo, hi) for _ in range(r.randint(*n))]


def L(lo: int = 0, hi: int = 9, n: tuple[int, int] = (1, 9), empty: bool = True) -> Part:
    """A list of integers in [lo, hi] (empty at case 0 when allowed)."""
    return lambda r, i: ints(r, i, lo, hi, n, empty)


def I(lo: int, hi: int) -> Part:  # noqa: E743 - a short name reads well in the tables
    return lambda r, i: r.randint(lo, hi)


def C(*options: Any) -> Part:
    return lambda r, i: r.choice(options)


def W(n: tuple[int, int] = (1, 8), empty: bool = True, pool: tuple[str, ...] = WORDS) -> Part:
    """A list of words (empty at case 0 when allowed)."""
    return lambda r, i: [] if empty and i == 0 else [r.choice(pool) for _ in range(r.randint(*n))]


def text(r: random.Random, n: tuple[int, int], alphabet: str = LETTERS) -> str:
    return "".join(r.choice(alphabet) for _ in range(r.randint(*n)))


def Str(n: tuple[int, int] = (1, 8), alphabet: str = LETTERS) -> Part:
    return lambda r, i: text(r, (n[0], n[1]), alphabet)


def distinct(r: random.Random, k: int, lo: int = 0, hi: int = 30) -> list[int]:
    return r.sample(range(lo, hi + 1), k)


__all__ = ["LETTERS", "WORDS", "C", "G", "I", "L", "S", "Str", "T", "W", "distinct", "ints", "text"]

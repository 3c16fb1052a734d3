"""A leaderboard row: a bundle's or a reported one's (leaderboard.py builds them, page.py draws them)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

SPLITS = ("single_test", "multiple_test")
COSTS = ("wall_seconds", "judge_calls", "tokens_sampled", "tokens_trained")


@dataclass(frozen=True)
class Cell:
    """Closed-book accuracy on one split, its 95% interval, and its paired difference from the base with p."""

    accuracy: float
    ci95: tuple[float, float] | None = None
    delta: float | None = None
    p: float | None = None


@dataclass(frozen=True)
class Entry:
    """One row of the leaderboard."""

    method: str
    base_model: str
    preset: str
    seeds: str
    cells: dict[str, Cell]  # split -> its cell
    cost: dict = field(default_factory=dict)
    marks: dict = field(default_factory=dict)
    band: int | None = None
    reported: bool = False
    source: str = ""  # the bundle's file name
    level: str = "reported"  # sebench.submit.verify.LEVELS, "fails", or "reported"
    tasks: dict = field(default_factory=dict)  # split -> its test tasks
    group: str = ""  # the benchmark it was measured on: entries are ranked only within one group
    answers: str = ""  # the digest of the method's answers (leaderboard.answers_digest): one result, one entry

    @property
    def name(self) -> str:
        """The entry's own name (the plot's label): its method with its bundle, or "(paper)"."""
        return f"{self.method} ({self.source or 'paper'})"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

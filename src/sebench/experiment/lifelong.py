"""Lifelong internalization (`sebench run --preset lifelong`): its settings and its schedule.

Libraries L1..Lk are learned one after another with Closed-SFT, each from the previous stage's checkpoint,
and after each stage the model is evaluated closed-book on every library's test tasks. Each library is
an instance of its own (seed `LIBRARY_SEED_STEP * run seed + i`: its own package and names), studied on
`functions` of its functions, in one of two designs:

  same      every library renames the same NumPy functions (two names for one behaviour: interference);
  disjoint  each library its own functions, none of them an earlier library's function or a relative of
            one (an alias or a function whose doc names it: `warmup.excluded_functions`): capacity.

Both designs start with the same L1 (the run seed's choice of functions, as the quick preset's) and share
its first stage. Every library's tasks are generated with the run seed, so in the same design library j's
tasks are library 1's problems, only the names differ. The schedules (tracks) of each design:

  sequential        L1 from the base, then L2 from that checkpoint, ... (replay share 0)
  replay s          the same, stage i also trained on a share s of every earlier library's training examples
  at once           one Closed-SFT from the base on every library's examples: the upper reference

The base is the warmed-up base (experiment/warmup.py) trained on a library of its own (instance seed
`LIBRARY_SEED_STEP * run seed`), on functions that no library studies nor their relatives, so no library's
package is known to it. This module is pure (no training, no files); lifelong_study.py runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sebench.cliflags import option
from sebench.errors import SebenchError

DESIGNS = ("same", "disjoint")
BASE = "base"  # the model label of the base (the warmed-up base, else --model)
LIBRARY_SEED_STEP = 1000  # library i of run seed s is the instance of seed 1000 * s + i (i = 0: the base's)


@dataclass
class LifelongConfig:
    """The lifelong section of `sebench run` (`--set lifelong.FIELD=VALUE`)."""

    libraries: int = option(3, "libraries learned one after another (L1..Lk)", minimum=2,
                            maximum=LIBRARY_SEED_STEP - 1)
    designs: list = option(factory=lambda: list(DESIGNS), help="same (every library renames the same NumPy "
                           "functions) and/or disjoint (each its own)")
    replay: list = option(factory=lambda: [0.0], help="replay shares, one sequential schedule each: stage i also "
                          "trains on this share of every earlier library's training examples (0: no replay)")
    at_once: bool = option(False, "also learn every library at once from the base, the upper reference")

    def __post_init__(self) -> None:
        if not isinstance(self.designs, list) or not self.designs or len(set(self.designs)) < len(self.designs) \
                or any(d not in DESIGNS for d in self.designs):
            raise SebenchError(f"lifelong.designs: expected distinct values of {', '.join(DESIGNS)}, got {self.designs!r}")
        if not isinstance(self.replay, list) or not self.replay or len(set(self.replay)) < len(self.replay) or any(
                isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1 for s in self.replay):
            raise SebenchError(f"lifelong.replay: expected distinct shares between 0 and 1, got {self.replay!r}")


@dataclass(frozen=True)
class Library:
    """One library of the schedule: `label` names its data folder and its evaluations."""

    label: str  # "L1" (both designs), "same.L2", "disjoint.L2", ...
    position: int  # i of Li: its place in the learning order
    design: str | None  # None for L1, which both designs share


@dataclass(frozen=True)
class Step:
    """One Closed-SFT run: from `start` (a step's label; None: the base) on `library`'s training examples,
    with `mix_share` of each `mixed` library's."""

    label: str  # the model it makes: its checkpoint folder and evaluation folder name
    start: str | None
    library: str
    mixed: tuple[str, ...] = ()
    mix_share: float = 1.0


@dataclass(frozen=True)
class Track:
    """One design under one schedule: the rows of its accuracy matrix, each the model of one stage."""

    name: str  # "same", "same, replay 0.25", "same, at once"
    design: str
    replay: float | None  # the replay share of a sequential track, None for the at-once reference
    libraries: tuple[str, ...]  # library labels in learning order
    rows: tuple[tuple[str, str], ...]  # (row name, model label), the base first

    def to_dict(self) -> dict:
        return {"name": self.name, "design": self.design, "replay": self.replay, "libraries": list(self.libraries),
                "rows": [list(row) for row in self.rows]}


@dataclass(frozen=True)
class Schedule:
    libraries: tuple[Library, ...]
    steps: tuple[Step, ...]  # in training order: each after the step it starts from
    tracks: tuple[Track, ...]

    def evaluated_on(self, model: str) -> list[str]:
        """The libraries a model is evaluated on: those of every track it is a row of."""
        labels = [lib for t in self.tracks if any(m == model for _, m in t.rows) for lib in t.libraries]
        return list(dict.fromkeys(labels))


def schedule(cfg: LifelongConfig) -> Schedule:
    """The libraries, the training steps and the tracks of `cfg` (see the module docstring)."""
    k = cfg.libraries
    first = Library("L1", 1, None)
    libraries = [first] + [Library(f"{d}.L{i}", i, d) for d in cfg.designs for i in range(2, k + 1)]
    steps = {"after-L1": Step("after-L1", None, "L1")}
    tracks = []
    for design in cfg.designs:
        own = ["L1"] + [f"{design}.L{i}" for i in range(2, k + 1)]
        for share in cfg.replay:
            tag = f"+replay{share:g}" if share else ""
            rows, previous = [(BASE, BASE), ("after L1", "after-L1")], "after-L1"
            for i in range(2, k + 1):
                label = f"{design}{tag}.after-L{i}"
                mixed = tuple(own[:i - 1]) if share else ()
                steps[label] = Step(label, previous, own[i - 1], mixed, share if share else 1.0)
                rows.append((f"after L{i}", label))
                previous = label
            name = design + (f", replay {share:g}" if share else "")
            tracks.append(Track(name, design, float(share), tuple(own), tuple(rows)))
        if cfg.at_once:
            label = f"{design}.at-once"
            steps[label] = Step(label, None, "L1", tuple(own[1:]), 1.0)
            tracks.append(Track(f"{design}, at once", design, None, tuple(own), ((BASE, BASE), ("all at once", label))))
    return Schedule(tuple(libraries), tuple(steps.values()), tuple(tracks))


def library_functions(k: int, choose: Callable[[int, frozenset[str]], list[str]],
                      relatives: Callable[[int, list[str]], set[str]]) -> dict[str, list[str]]:
    """The studied functions (mapping keys) of every library of both designs, whichever designs a command
    runs (the warm-up leaves them all out, so that its checkpoint does not depend on the designs run).
    `choose(position, exclude)` picks the functions of the library at that position; `relatives(position,
    functions)` are the functions that this library relates to `functions` (themselves included). The same
    design reuses L1's functions; the disjoint design leaves out every earlier library's and their relatives."""
    chosen = {"L1": choose(1, frozenset())}
    for i in range(2, k + 1):
        chosen[f"same.L{i}"] = chosen["L1"]
        earlier = sorted({f for label in ["L1"] + [f"disjoint.L{p}" for p in range(2, i)] for f in chosen[label]})
        chosen[f"disjoint.L{i}"] = choose(i, frozenset(relatives(i, earlier)))
    return chosen

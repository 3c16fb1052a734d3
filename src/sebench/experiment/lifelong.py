"""Lifelong internalization (`sebench run --preset lifelong`): its settings and its schedule.

Libraries L1..Lk are learned one after another with Closed-SFT, each from the previous stage's checkpoint,
and after each stage the model is evaluated closed-book on every library's test tasks. Each library is
an instance of its own (seed `LIBRARY_SEED_STEP * run seed + i`: its own package and names), studied on
`functions` of its functions, in one of two designs:

  same      every library renames the same NumPy functions (two names for one behaviour: interference);
  disjoint  each library its own functions, none of them an earlier library's function or a relative of
            one (an alias or a function whose doc names it: `warmup.excluded_functions`): capacity.

With `cross` set to another library (`--set lifelong.cross=more-itertools`), a third design learns
different libraries one after another:

  cross     L1 is NumPy's package, L2 the other library's, then NumPy's again (L3, L1's functions under
            other names), and so on; the track "cross, reversed" learns the same libraries in the reverse
            order, from the base. Transfer: the first model of each cross track (trained on one library only)
            and the base are also evaluated open-book and closed-book on the track's second library.

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
CROSS = "cross"  # the design of two libraries, NumPy's and `LifelongConfig.cross`
NUMPY = "numpy"
BASE = "base"  # the model label of the base (the warmed-up base, else --model)
LIBRARY_SEED_STEP = 1000  # library i of run seed s is the instance of seed 1000 * s + i (i = 0: the base's)


@dataclass
class LifelongConfig:
    """The lifelong section of `sebench run` (`--set lifelong.FIELD=VALUE`)."""

    libraries: int = option(3, "libraries learned one after another (L1..Lk)", minimum=2,
                            maximum=LIBRARY_SEED_STEP - 1)
    designs: list = option(factory=lambda: list(DESIGNS), help="same (every library renames the same NumPy "
                           "functions) and/or disjoint (each its own); [] with cross: the cross design alone")
    replay: list = option(factory=lambda: [0.0], help="replay shares, one sequential schedule each: stage i also "
                          "trains on this share of every earlier library's training examples (0: no replay)")
    at_once: bool = option(False, "also learn every library at once from the base, the upper reference")
    cross: str | None = option(None, "another library than NumPy (a registry name, e.g. more-itertools): the cross "
                               "design learns NumPy's package and this library's one after another, in both orders",
                               metavar="NAME")

    def __post_init__(self) -> None:
        if self.cross is not None and (not isinstance(self.cross, str) or self.cross in ("", NUMPY)):
            raise SebenchError(f"lifelong.cross: expected another library than NumPy (e.g. more-itertools), "
                               f"got {self.cross!r}")
        if not isinstance(self.designs, list) or (not self.designs and not self.cross) \
                or len(set(self.designs)) < len(self.designs) \
                or any(d not in DESIGNS for d in self.designs):
            raise SebenchError(f"lifelong.designs: expected distinct values of {', '.join(DESIGNS)}, got {self.designs!r}")
        if not isinstance(self.replay, list) or not self.replay or len(set(self.replay)) < len(self.replay) or any(
                isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1 for s in self.replay):
            raise SebenchError(f"lifelong.replay: expected distinct shares between 0 and 1, got {self.replay!r}")


@dataclass(frozen=True)
class Library:
    """One library of the schedule: `label` names its data folder and its evaluations."""

    label: str  # "L1" (every design), "same.L2", "disjoint.L2", "cross.L2", ...
    position: int  # i of Li: its place in the learning order
    design: str | None  # None for L1, which every design shares
    source: str = NUMPY  # the library renamed (the cross design's even positions: LifelongConfig.cross)


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
class Transfer:
    """Does training on one library's package help on another's? `model` learned `source` alone (from the
    base); it and the base are evaluated open-book and closed-book on `target`."""

    model: str
    source: str  # library labels
    target: str

    def to_dict(self) -> dict:
        return {"model": self.model, "source": self.source, "target": self.target}


@dataclass(frozen=True)
class Schedule:
    libraries: tuple[Library, ...]
    steps: tuple[Step, ...]  # in training order: each after the step it starts from
    tracks: tuple[Track, ...]
    transfers: tuple[Transfer, ...] = ()

    def evaluated_on(self, model: str) -> list[str]:
        """The libraries a model is evaluated on closed-book: those of every track it is a row of."""
        labels = [lib for t in self.tracks if any(m == model for _, m in t.rows) for lib in t.libraries]
        return list(dict.fromkeys(labels))

    def open_on(self, model: str) -> list[str]:
        """The libraries a model is also evaluated on open-book: the targets of the transfers it is (or, for
        the base, is compared with) the model of."""
        return list(dict.fromkeys(t.target for t in self.transfers if model in (t.model, BASE)))


def schedule(cfg: LifelongConfig) -> Schedule:
    """The libraries, the training steps and the tracks of `cfg` (see the module docstring)."""
    k = cfg.libraries
    first = Library("L1", 1, None)
    libraries = [first] + [Library(f"{d}.L{i}", i, d) for d in cfg.designs for i in range(2, k + 1)]
    designs = list(cfg.designs)
    if cfg.cross:
        libraries += [Library(f"{CROSS}.L{i}", i, CROSS, cfg.cross if i % 2 == 0 else NUMPY) for i in range(2, k + 1)]
        designs.append(CROSS)
    steps = {"after-L1": Step("after-L1", None, "L1")}
    tracks = []
    for design in designs:
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
    transfers = []
    if cfg.cross:
        own = ["L1"] + [f"{CROSS}.L{i}" for i in range(2, k + 1)]
        order = own[::-1]
        positions = {lib.label: lib.position for lib in libraries}
        rows, previous = [(BASE, BASE)], None
        for label_of_library in order:
            label = f"{CROSS}.reversed.after-L{positions[label_of_library]}"
            steps[label] = Step(label, previous, label_of_library)
            rows.append((f"after L{positions[label_of_library]}", label))
            previous = label
        tracks.append(Track(f"{CROSS}, reversed", CROSS, 0.0, tuple(order), tuple(rows)))
        transfers = [Transfer("after-L1", own[0], own[1]), Transfer(rows[1][1], order[0], order[1])]
    return Schedule(tuple(libraries), tuple(steps.values()), tuple(tracks), tuple(transfers))


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

"""The plan's power table: for each comparison the study's report makes (each regime or method against the
untrained model, any two trained regimes, and the untrained model with help, open-book or with memory, against
a closed-book model, per evaluated split), the smallest paired difference the report's Δ test detects with
80% power at 5%, two-sided (sebench.power), from the design (test tasks a seed, seeds) and the stated
assumptions (PlanConfig: the untrained and the trained models' accuracy, independent answers given those; one
sample a task counts, since further samples of a task add little).

Before the instance is built, a split's tasks a seed are its cap, and for the single-function split at most
SINGLE_PER_FUNCTION a studied function (the builder keeps one of a function's 3-5 statement templates for
training and tests on the others, docs/presets.md)."""

from __future__ import annotations

from sebench import power
from sebench.experiment.config import RunConfig
from sebench.records import HELPED_MODES

SINGLE_PER_FUNCTION = 2  # single-function test tasks a studied function, at the least (3 templates, 1 for train)
UNTRAINED = "untrained"


def pairs_per_seed(cfg: RunConfig, counts: dict, built: bool) -> dict[str, int]:
    """Test tasks a seed of each evaluated split (an estimate when the instance is not built yet)."""
    out = {}
    for split in cfg.splits:
        n = int(counts.get(split, 0))
        if not built and split == "single_test" and cfg.functions:
            n = min(n, SINGLE_PER_FUNCTION * cfg.functions)
        out[split] = n
    return out


def comparisons(cfg: RunConfig, counts: dict, built: bool, seeds: int, untrained_accuracy: float,
                trained_accuracy: float) -> list[dict]:
    """One row per comparison: {"split", "a", "b", "pairs_per_seed", "assumed_b", "detectable": {seeds: Δ}}
    (Δ None: not detectable at 80% however large)."""
    if cfg.lifelong is not None:
        return []
    rows = []
    trained = list(cfg.regimes)
    design = sorted({1, seeds})
    for split, tasks in pairs_per_seed(cfg, counts, built).items():
        rows += [_row(split, tasks, label, UNTRAINED, untrained_accuracy, design) for label in trained]
        if len(trained) >= 2:
            rows.append(_row(split, tasks, f"any of the {len(trained)} trained", "another", trained_accuracy, design))
        closed = ([(f"{UNTRAINED} closed", untrained_accuracy)] if "closed" in cfg.untrained_modes else []) + (
            [("a trained model closed-book", trained_accuracy)] if trained and "closed" in cfg.trained_modes else [])
        rows += [_row(split, tasks, f"{UNTRAINED} {mode}", b, assumed, design)
                 for mode in cfg.untrained_modes if mode in HELPED_MODES for b, assumed in closed]
    return rows


def _row(split: str, tasks: int, a: str, b: str, base: float, design: list[int]) -> dict:
    return {"split": split, "a": a, "b": b, "pairs_per_seed": tasks, "assumed_b": base,
            "detectable": {g: power.planned_detectable(g * tasks, base) for g in design}}


def render(rows: list[dict]) -> list[str]:
    """The table's lines (empty without comparisons)."""
    if not rows:
        return []
    design = sorted({g for r in rows for g in r["detectable"]})
    head = ["comparison (A vs B)", "split", "tasks a seed", "B assumed", *[f"Δ at {g} seed{'s' * (g > 1)}"
                                                                          for g in design]]
    body = [[f"{r['a']} vs {r['b']}", r["split"], r["pairs_per_seed"], f"{100 * r['assumed_b']:.0f}%",
             *[_points(r["detectable"].get(g)) for g in design]] for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["smallest paired difference detected with 80% power at 5% (the report's exact sign-flip test; "
             "docs/statistics.md, power):"]
    for k, cells in enumerate([head, *body]):
        lines.append("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _points(delta: float | None) -> str:
    return "none" if delta is None else f"{100 * delta:.1f} points"

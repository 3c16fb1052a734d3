"""Restates the published greedy one-sample rows under the current intervals, from the per-seed counts
printed on the results pages (exact: with one sample a task, the per-seed counts are all the intervals
need; a difference is exact where the other arm is 0 on every task). Prints markdown lines.

    PYTHONPATH=src python bench/restate_results.py
"""

from __future__ import annotations

from sebench.metrics import Counts, accuracy_counts, paired_counts

# paper-mini, closed-book single-function tasks, seeds 0-2 (docs/results/rl-gap.md): (correct, tasks) a seed
PAPER_MINI = {
    "warmed base, closed-book": [(0, 17), (0, 17), (0, 22)],
    "warmed base, open-book": [(12, 17), (12, 17), (2, 22)],
    "experience memory": [(7, 17), (1, 17), (0, 22)],
    "Closed-SFT": [(7, 17), (7, 17), (0, 22)],
    "Closed-SFT → RL": [(5, 17), (8, 17), (0, 22)],
    "Self-Play + SFT": [(4, 17), (1, 17), (0, 22)],
    "self-play-sft-writer": [(6, 17), (0, 17), (1, 22)],
}
CPU = {"warmed base, open-book": [(34, 53)], "experience memory": [(18, 53)], "Closed-SFT": [(27, 53)],
       "Closed-SFT → RL": [(26, 53)]}


def counts(seeds: list[tuple[int, int]]) -> Counts:
    """One sample a task: seed g's first `correct` tasks right (the order does not matter with one sample)."""
    return {(f"seed{g}", f"t{i}"): (1, float(i < c)) for g, (c, tasks) in enumerate(seeds) for i in range(tasks)}


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def accuracy_text(seeds: list[tuple[int, int]]) -> str:
    stats = accuracy_counts(counts(seeds))
    lo, hi = stats["ci95"]
    over = stats["over_seeds"]
    text = f"{pct(stats['accuracy'])}% ({pct(lo)}–{pct(hi)})"
    if over["ci95"] is None:
        return text + f"; over seeds: {over['note']}"
    return text + f"; over seeds {pct(over['estimate'])}% ({pct(over['ci95'][0])}–{pct(over['ci95'][1])})"


def delta_text(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> str:
    diff = paired_counts(counts(a), counts(b))
    assert diff is not None
    text = f"{100 * diff.delta:+.1f} [{100 * diff.ci95[0]:+.1f}, {100 * diff.ci95[1]:+.1f}], p {diff.p:.3g}"
    over = diff.over_seeds
    if over is None or over.ci95 is None or over.p is None:
        return text
    return text + (f"; over seeds {100 * over.estimate:+.1f} [{100 * over.ci95[0]:+.1f}, {100 * over.ci95[1]:+.1f}],"
                   f" p {over.p:.2g}")


def main() -> None:
    base = PAPER_MINI["warmed base, closed-book"]
    for name, seeds in PAPER_MINI.items():
        print(f"paper-mini | {name} | {accuracy_text(seeds)} | vs closed-book base: {delta_text(seeds, base)}")
    rl = [(0, 17), (0, 17), (0, 22)]
    print(f"paper-mini | self-play-sft-writer vs self-play-rl | {delta_text(PAPER_MINI['self-play-sft-writer'], rl)}")
    for name, seeds in CPU.items():
        print(f"cpu | {name} | {accuracy_text(seeds)} | vs 0/53: {delta_text(seeds, [(0, 53)])}")
    print(f"empty | 0/30 vs 0/30 | {delta_text([(0, 30)], [(0, 30)])}")


if __name__ == "__main__":
    main()

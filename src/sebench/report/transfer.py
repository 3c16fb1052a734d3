"""Transfer across libraries in a lifelong run's cross design: does training on one library's package raise
open-book or closed-book accuracy on another library's package?

For each transfer of the schedule (lifelong.json's "transfers": a model trained on library X alone, from
the base), per split and mode: the base's accuracy on library Y, the trained model's, and the paired
difference (trained − base, paired by task and run; sebench.metrics), seeds pooled.
"""

from __future__ import annotations

from pathlib import Path

from sebench.files import plain_path
from sebench.metrics import paired_difference, task_key, verdict_stats
from sebench.records import Verdict, read_verdicts
from sebench.report.continual import library_column
from sebench.report.fmt import delta_ci, md_row, p_value, signed

BASE = "base"


def _verdicts(run_dir: Path, model: str, library: str, mode: str, split: str) -> list[Verdict]:
    path = plain_path(run_dir, Path("evals", model, library, mode, split, "verdicts.jsonl"))
    return read_verdicts(path) if path.exists() or path.is_symlink() else []


def transfer_results(runs: list[tuple[Path, dict]], split: str) -> list[dict]:
    """One row per transfer and mode, pooled over the runs that have it (empty without a cross design)."""
    transfers = {t["model"]: t for _, schedule in runs for t in schedule.get("transfers", [])}
    rows = []
    for model, t in transfers.items():
        having = [(d, s) for d, s in runs if any(x["model"] == model for x in s.get("transfers", []))]
        for mode in having[0][1].get("transfer_modes", ["closed"]):
            base, trained = [], []
            for run_dir, _ in having:
                base += [(task_key(v, str(run_dir)), v.verdict) for v in _verdicts(run_dir, BASE, t["target"], mode, split)]
                trained += [(task_key(v, str(run_dir)), v.verdict)
                            for v in _verdicts(run_dir, model, t["target"], mode, split)]
            if not base or not trained:
                continue
            a, b, delta = _accuracy(base), _accuracy(trained), paired_difference(trained, base)
            rows.append({"model": model, "source": library_column(having[0][1]["libraries"][t["source"]]),
                         "target": library_column(having[0][1]["libraries"][t["target"]]), "mode": mode,
                         "base": a, "trained": b,
                         "delta": None if delta is None else delta.delta,
                         "delta_ci95": None if delta is None else list(delta.ci95),
                         "p": None if delta is None else delta.p})
    return rows


def _accuracy(samples: list) -> dict:
    """Accuracy, its 95% interval and the samples of (task key, verdict) pairs."""
    stats = verdict_stats(samples)
    return {"accuracy": stats["accuracy"], "ci95": stats["ci95"], "n": stats["n"], "correct": stats["correct"]}


def transfer_markdown(rows: list[dict]) -> str:
    """The transfer table: a row per (trained on, evaluated on, mode)."""
    def pct(x: float) -> str:
        return f"{100 * x:.1f}"

    lines = ["| trained on | evaluated on | mode | base % [95% CI] | trained % [95% CI] | Δ pp [95% CI] | p |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        a, b = r["base"], r["trained"]
        delta = "–" if r["delta"] is None else f"{signed(r['delta'])} {delta_ci(r['delta_ci95'])}"
        lines.append(md_row([r["source"], r["target"], r["mode"],
                             f"{pct(a['accuracy'])} ({a['correct']}/{a['n']}) [{pct(a['ci95'][0])}, {pct(a['ci95'][1])}]",
                             f"{pct(b['accuracy'])} ({b['correct']}/{b['n']}) [{pct(b['ci95'][0])}, {pct(b['ci95'][1])}]",
                             delta, "–" if r["p"] is None else p_value(r["p"])]))
    return "\n".join(lines) + "\n"

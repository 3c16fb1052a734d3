"""Specificity (does learning the package cost the model what it knew of NumPy?) and the Random-FT control.

After CodeUpdateArena (Liu et al. 2024, arXiv 2407.06249), which checks that an API update leaves the model's
other knowledge intact. Adapted here: the same test tasks asked in the numpy mode (real NumPy instead of the
package, judged with NumPy as the library), by the untrained model and by each trained one. The numbers are
the main table's numpy-mode rows (one source): accuracy with its interval for these models, and the paired
Δ against the untrained model. report.json's "specificity": one row per trained numpy-mode row,
{"model", "regime", "split", "protocol", "untrained": null | Side, "trained": Side, "vs_untrained": null |
Paired} with Side {"n", "accuracy", "ci95"}.

The Random-FT control (also CodeUpdateArena's): closed-sft-random trains as closed-sft does on another seed's
package; closed-sft minus closed-sft-random, paired by task, is what learning this package adds beyond
training itself. Its rows are the report's paired comparisons of the two (one source).
"""

from __future__ import annotations

from sebench.records import NUMPY_MODE
from sebench.report.fmt import delta_ci, md_row, p_value, pct, signed, span
from sebench.report.tables import BASELINE

CONTROL = ("closed-sft", "closed-sft-random")  # (the regime, its Random-FT control)


def _side(row: dict | None) -> dict | None:
    return None if row is None else {"n": row["n"], "accuracy": row["accuracy"], "ci95": row["ci95"]}


def specificity_rows(main_rows: list[dict]) -> list[dict]:
    """The trained numpy-mode rows of the main table beside the untrained model's (module docstring)."""
    by_key = {(r["model"], r["regime"], r["mode"], r["split"], r["protocol"]): r for r in main_rows}
    out = []
    for r in main_rows:
        if r["mode"] != NUMPY_MODE or r["regime"] == BASELINE:
            continue
        base = by_key.get((r["model"], BASELINE, NUMPY_MODE, r["split"], r["protocol"]))
        out.append({"model": r["model"], "regime": r["regime"], "split": r["split"], "protocol": r["protocol"],
                    "untrained": _side(base), "trained": _side(r), "vs_untrained": r["vs_untrained"]})
    return out


def _accuracy(side: dict | None) -> str:
    return "" if side is None else f"{pct(side['accuracy'])} ({span(side['ci95'])})"


def _table(rows: list[dict], head: list[str], cells) -> str:
    """A Markdown table of `rows`, with a model column first when they are of several models."""
    with_model = len({r["model"] for r in rows}) > 1
    lines = [md_row((["model"] if with_model else []) + head),
             "|" + "---|" * (len(head) + with_model)]
    lines += [md_row(([r["model"]] if with_model else []) + cells(r)) for r in rows]
    return "\n".join(lines) + "\n"


def _delta(diff: dict | None) -> str:
    return "" if diff is None else f"{signed(diff['delta'])} {delta_ci(diff['ci95'])}"


def specificity_markdown(rows: list[dict]) -> str:
    """NumPy accuracy before and after training, and the paired Δ with its interval and p."""
    head = ["regime", "split", "NumPy untrained % (95% CI)", "NumPy trained % (95% CI)", "Δ [95% CI], these models",
            "p"]
    return _table(rows, head, lambda r: [r["regime"], r["split"], _accuracy(r["untrained"]), _accuracy(r["trained"]),
                                         _delta(r["vs_untrained"]),
                                         "" if r["vs_untrained"] is None else p_value(r["vs_untrained"]["p"])])


def control_rows(comparisons: list[dict]) -> list[dict]:
    """The paired comparisons of closed-sft with its Random-FT control (Δ = closed-sft − closed-sft-random)."""
    return [c for c in comparisons if (c["a"], c["b"]) == CONTROL]


def control_markdown(rows: list[dict]) -> str:
    """Δ of closed-sft over its Random-FT control per mode and split, with its interval, p and pairs."""
    head = ["mode", "split", "Δ closed-sft − closed-sft-random", "95% CI, these models", "p", "pairs"]
    return _table(rows, head, lambda r: [r["mode"], r["split"], signed(r["delta"]),
                                         delta_ci(r["ci95"]), p_value(r["p"]),
                                         str(r["pairs"])])

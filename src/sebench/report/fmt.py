"""Formats shared by the report's markdown tables: numbers (percentages, signed points, p-values) and cells."""

from __future__ import annotations

import re
from collections.abc import Iterable

from sebench.intervals import ALPHA
from sebench.markdown import code_span
from sebench.metrics import TOO_FEW_SEEDS

# each verdict's name in the report's tables (the main table's columns and the failure kinds alike)
VERDICT_SHORT = {
    "correct": "correct",
    "wrong_answer": "wrong",
    "runtime_error": "error",
    "timeout": "timeout",
    "memory_limit": "memory",
    "no_code": "no code",
    "syntax_error": "syntax",
    "not_using_package": "no pkg",
    "forbidden_import": "forb. import",
    "forbidden_access": "forb. access",
    "judge_error": "judge err",
}


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal; blank for None."""
    return "" if x is None else f"{100 * x:.1f}"


def signed(x: float) -> str:
    """Percentage points with their sign; a difference that rounds to zero is +0.0 (never -0.0)."""
    points = round(100 * x, 1)
    return f"{points if points else 0.0:+.1f}"


def delta_ci(ci: list[float] | tuple[float, float]) -> str:
    """A difference's interval in signed points, "[lo, hi]": one decimal, more where a bound off 0 would round
    to it (a bound of one answer's worth among 3,885 samples, +0.026, prints +0.03: the interval excludes 0
    and must read so; exactly 0 is +0.0)."""
    return f"[{_bound(ci[0])}, {_bound(ci[1])}]"


def _bound(x: float) -> str:
    digits = 1
    while x != 0 and round(100 * x, digits) == 0:
        digits += 1
    return signed(x) if digits == 1 else f"{100 * x:+.{digits}f}"


def p_value(p: float) -> str:
    """A p-value with three decimals, "<0.001" below that; a p below the tests' 5% level gets the decimals it
    needs to print below it (0.0498, not 0.050), so that the printed p reads as the interval beside it does."""
    if p < 0.001:
        return "<0.001"
    digits = 3
    while p < ALPHA <= round(p, digits):
        digits += 1
    return f"{p:.{digits}f}"


def span(ci: list[float] | tuple[float, float] | None) -> str:
    """An accuracy interval in percent, "lo–hi"."""
    return "" if ci is None else f"{pct(ci[0])}–{pct(ci[1])}"


def over_seeds(stats: dict | None) -> str:
    """The accuracy over new seeds: "mean (lo–hi), G seeds", or why there is no interval."""
    if not stats:
        return ""
    if stats.get("ci95") is None:
        return stats.get("note") or ""
    return f"{pct(stats['estimate'])} ({span(stats['ci95'])}), {stats['seeds']} seeds"


def delta_over_seeds(stats: dict | None) -> str:
    """A difference over new seeds: "+Δ [lo, hi], p, G seeds", or why there is none."""
    if not stats:
        return ""
    if stats.get("ci95") is None:
        return stats.get("note") or ""
    return f"{signed(stats['estimate'])} {delta_ci(stats['ci95'])}, p {p_value(stats['p'])}, {stats['seeds']} seeds"


def targets_note(several: bool) -> str:
    """Which target the intervals are for, under every table of intervals."""
    if several:
        return ("Intervals marked *these models* are for the trained models at hand (their tasks a sample); those "
                "marked *over seeds* for the method trained again on new seeds.")
    return (f"Every interval here is for *these models*, the trained models at hand (their tasks a sample); one "
            f"seed: {TOO_FEW_SEEDS}.")


_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # where an HTML tag or comment would start


def md_cell(value: object) -> str:
    """A value as one markdown table cell: a `|` escaped, a line break a space, a `<` opening a tag `&lt;`
    (names come from folders and files someone else made; none may end a row or add HTML)."""
    text = " ".join(str(value).splitlines())
    return _TAG.sub("&lt;", text.replace("|", "\\|"))


def md_code(value: object) -> str:
    """A value as inline code on one line (where markdown shows HTML as written): markdown.code_span, its line
    breaks spaces."""
    return code_span(" ".join(str(value).splitlines()))


def md_row(cells: Iterable[object]) -> str:
    """One markdown table row of `cells`, each escaped by `md_cell`."""
    return "| " + " | ".join(map(md_cell, cells)) + " |"

"""Number formats shared by the report's markdown tables (percentages, signed points, p-values)."""

from __future__ import annotations


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal; blank for None."""
    return "" if x is None else f"{100 * x:.1f}"


def signed(x: float) -> str:
    """Percentage points with their sign; a difference that rounds to zero is +0.0 (never -0.0)."""
    points = round(100 * x, 1)
    return f"{points if points else 0.0:+.1f}"


def p_value(p: float) -> str:
    """A p-value with three decimals, "<0.001" below that."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"

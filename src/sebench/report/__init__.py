"""Tables and plots from judged runs: `sebench report RUN_DIR [RUN_DIR ...] --out REPORT_DIR`."""

from sebench.report.build import build_report

__all__ = ["build_report"]

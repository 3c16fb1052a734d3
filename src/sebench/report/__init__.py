"""Tables and plots from judged runs: `sebench report RUN_DIR [RUN_DIR ...] --out REPORT_DIR`."""

from sebench.exports import front_door

__all__ = ["build_report", "main_table_markdown"]
__getattr__ = front_door(__name__, __all__, {"build": ("build_report", "main_table_markdown")})

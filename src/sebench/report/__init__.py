"""Tables and plots from judged runs: `sebench report RUN_DIR [RUN_DIR ...] --out REPORT_DIR`."""

from sebench.exports import front_door

__all__ = ["SCHEDULE_FILE", "build_continual_report", "build_report", "is_lifelong_run", "main_table_markdown",
           "p_value", "read_method", "summary_markdown"]
__getattr__ = front_door(__name__, __all__, {
    "build": ("build_report", "main_table_markdown"),
    "continual_report": ("SCHEDULE_FILE", "build_continual_report", "is_lifelong_run", "summary_markdown"),
    "fmt": ("p_value",),
    "methods": ("read_method",),
})

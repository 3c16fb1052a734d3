"""`sebench report RUN_DIR [RUN_DIR ...] --out REPORT_DIR`."""

from __future__ import annotations

import argparse
from pathlib import Path

from sebench.protocols import PROTOCOLS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "report",
        help="tables and plots from one or more judged runs",
        description="Writes REPORT_DIR/report.md, report.json and PNG plots from the verdicts of one or more "
        "run directories (RUN_DIR/evals/<regime>/<mode>/<split>/verdicts.jsonl). Runs of the same model "
        "(e.g. several seeds) are pooled into one row per regime, mode and split. Runs of `sebench run --preset "
        "lifelong` get its report instead: accuracy matrices, transfer, forgetting and mix-ups.",
    )
    p.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories to combine")
    p.add_argument("--out", type=Path, required=True, metavar="REPORT_DIR", help="where to write the report")
    p.add_argument("--data", type=Path, metavar="DIR", help="the instance evaluated, for runs made by hand "
                   "(sebench run records it in RUN_DIR/manifest.json)")
    p.add_argument("--no-plots", action="store_true", help="tables only (no matplotlib needed)")
    p.add_argument("--protocol", choices=tuple(PROTOCOLS), help="only the evaluations judged under this "
                   "protocol (default: all, each row naming its protocol)")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    import json

    from sebench.output_files import OutputLock, check_dir_target, refuse_inside, refuse_same_file
    from sebench.report.build import build_report, main_table_markdown
    from sebench.report.continual_report import build_continual_report, is_lifelong_run, summary_markdown
    from sebench.seal import check_run

    check_dir_target(args.out)
    for run_dir in args.run_dirs:
        if (run_dir / "stages").is_dir():  # a run of `sebench run`: its records must still match its files
            check_run(run_dir)
    refuse_same_file(args.out, [("RUN_DIR", d) for d in args.run_dirs] + [("--data", args.data)])
    refuse_inside(args.out, [("RUN_DIR", d) for d in args.run_dirs], own="report")
    refuse_inside(args.out, [("--data", args.data)])
    if all(is_lifelong_run(d) for d in args.run_dirs):  # `sebench run --preset lifelong` runs
        with OutputLock(args.out):
            md = build_continual_report(args.run_dirs, args.out, plots_enabled=not args.no_plots)
        print(summary_markdown(json.loads((args.out / "report.json").read_text(encoding="utf-8"))))
        print(f"report: {md}")
        return 0
    with OutputLock(args.out):
        md = build_report(args.run_dirs, args.out, plots_enabled=not args.no_plots, data=args.data,
                          protocol=args.protocol)
    data = json.loads((args.out / "report.json").read_text(encoding="utf-8"))
    print(main_table_markdown(data["main_table"]))
    print(f"report: {md}")
    return 0

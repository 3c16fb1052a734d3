"""The `sebench` command: parses arguments and hands them to a stage; errors are one line, no traceback.

Each stage owns a small `cli` module with `register(subparsers)`, which adds its subcommands and sets
`func` (called with the parsed arguments, returns an exit code). Stage modules import their heavy
dependencies inside `func`, so `sebench --help` and the light stages start fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from sebench.errors import SebenchError

COMMAND_MODULES = (
    "sebench.obfuscate.cli",  # build, audit
    "sebench.tasks.cli",  # tasks import|export|generate
    "sebench.rollout.cli",  # rollout
    "sebench.judge.cli",  # judge, sandbox serve
    "sebench.train.cli",  # train
    "sebench.experiment",  # run
    "sebench.experiment.warmup_cli",  # warmup, compact-docs
    "sebench.report.cli",  # report
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sebench",
        description="SE-Bench: measure whether a language model internalizes a library it has never seen.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except SebenchError as exc:
        print(f"sebench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"sebench {args.command}: interrupted; run the same command again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

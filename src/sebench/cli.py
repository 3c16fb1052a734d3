"""The `sebench` command: parses arguments and hands them to a stage; errors are one line, no traceback.

Each stage owns a small `cli` module with `register(subparsers)`, which adds its subcommands and sets
`func` (called with the parsed arguments, returns an exit code); it returns the sub-command parsers of a
command that a higher stage adds to ({command: parsers}), and that stage's `register_actions(actions)` adds
them (`sebench tasks generate`, from the train stage). Stage modules import their heavy
dependencies inside `func`, so `sebench --help` and the light stages start fast.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import logging
import re
import sys

from sebench.errors import SebenchError

COMMAND_MODULES = (
    "sebench.builder.cli",  # build, audit
    "sebench.tasks.cli",  # tasks import|export
    "sebench.rollout.cli",  # rollout
    "sebench.judge.cli",  # judge, sandbox serve
    "sebench.train.cli",  # train, tasks generate
    "sebench.export.cli",  # export
    "sebench.experiment.cli",  # run
    "sebench.experiment.methods_cli",  # methods
    "sebench.experiment.warmup_cli",  # warmup, compact-docs
    "sebench.report.cli",  # report
    "sebench.experiment.contamination",  # contamination
    "sebench.submit.cli",  # submit, verify, leaderboard
)


# what an interrupted command leaves behind, and what running it again does
INTERRUPTED = {
    "rollout": "the rollouts written so far are kept; run the same command again to resume",
    "run": "finished stages are kept; run the same command again to go on from the stage that was cut",
    "judge": "no verdicts were written; run the command again to judge from the start",
    "train": "no checkpoint was saved; run the same command again to train from the start",
}
INTERRUPTED_DEFAULT = "stopped before finishing; run the command again to start it over"

# errno -> the fix to suggest, for errors writing or reading a path
OS_FIXES = {
    errno.EROFS: "the filesystem is read-only; choose a path on a writable disk",
    errno.EACCES: "no permission; choose a path you can write, or fix its permissions",
    errno.EPERM: "not permitted; choose another path",
    errno.EISDIR: "it is a directory; give a file path",
    errno.ENOTDIR: "a part of the path is a file, not a folder; choose another path",
    errno.ENOENT: "no such file or folder; check the path",
    errno.ENOSPC: "the disk is full; free some space or choose another disk",
    errno.EDQUOT: "the disk quota is exceeded; free some space or choose another disk",
    errno.ENAMETOOLONG: "the name is too long; choose a shorter path",
    errno.EEXIST: "it already exists; choose another path",
}


class Parser(argparse.ArgumentParser):
    """argparse without prefix abbreviations, with "did you mean" for unknown flags and one-line errors."""

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, "_parser"):  # the innermost (sub)command parser sets it first
            namespace._parser = self
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        owner = namespace.__dict__.pop("_parser", self)
        if extras:
            owner.error(f"unrecognized arguments: {' '.join(extras)}{owner._suggestions(extras)}")
        return namespace

    def _suggestions(self, unknown: list[str]) -> str:
        flags = [o for o in self._option_string_actions if o.startswith("--")]
        hints = []
        for word in unknown:
            if word.startswith("-"):
                guess = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.6)
                if guess:
                    hints.append(f"{word}: did you mean {guess[0]}?")
        return f" ({'; '.join(hints)})" if hints else ""

    def error(self, message: str):
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            guess = difflib.get_close_matches(choice[1], re.findall(r"'([^']*)'", choice[2]), n=1, cutoff=0.6)
            message += f" (did you mean '{guess[0]}'?)" if guess else ""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="sebench",
        description="SE-Bench: measure whether a language model internalizes a library it has never seen.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    actions: dict = {}
    for name in COMMAND_MODULES:
        actions.update(importlib.import_module(name).register(subparsers) or {})
    for name in COMMAND_MODULES:
        extend = getattr(importlib.import_module(name), "register_actions", None)
        if extend:
            extend(actions)
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
    except OSError as exc:
        print(f"sebench {args.command}: error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"sebench {args.command}: interrupted; {INTERRUPTED.get(args.command, INTERRUPTED_DEFAULT)}",
              file=sys.stderr)
        return 130


def describe_os_error(exc: OSError) -> str:
    """One line: the path(s), what the system said, and the fix."""
    paths = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    what = exc.strerror or (str(exc).splitlines() or [type(exc).__name__])[0]
    fix = OS_FIXES.get(exc.errno or 0)
    return f"{paths + ': ' if paths else ''}{what}" + (f" ({fix})" if fix else "")


if __name__ == "__main__":
    sys.exit(main())

"""`sebench methods`: the methods a study can name in `--regimes`, where each comes from, and its arguments.

    sebench methods                  built-in regimes and methods, installed entry points
    sebench methods ./my.py:MyMethod one method: its origin, source file and arguments
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "methods", help="list the training methods a study can run (built-in, entry points, your files)",
        description="Lists every method `sebench run --regimes` accepts: the built-in regimes and their variants, "
        "the built-in methods (base, open-book, memory, and those that learn from the docs alone), and the methods installed in the entry-point group "
        "'sebench.methods'; a method given by name, module:Attr or path/to/file.py:Attr is shown with its "
        "arguments. Arguments are set with -M LABEL.KEY=VALUE or --set methods.LABEL.KEY=VALUE (docs/methods.md).",
    )
    p.add_argument("spec", nargs="?", help="show this method only (a name, pkg.module:Attr or path/to/file.py:Attr)")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from sebench.methods import resolve

    if args.spec:
        from sebench.methods import method_signature

        ref = resolve(args.spec)
        signature = method_signature(ref)  # a missing file, module or attribute fails here, in one line
        print(f"{ref.label}\t{ref.origin}\t{ref.source or ref.target}")
        print(f"  arguments: {signature if signature is not None else 'not readable without running its file'}")
        return 0
    listed = rows()
    width = max((len(name) for name, _, _ in listed), default=0)
    for name, origin, what in listed:
        print(f"{name:<{width}}  {origin:<12} {what}")
    return 0


def rows() -> list[tuple[str, str, str]]:
    """(name, origin, description) of every method that can be named without a path (one list with the
    study's own check of --regimes: experiment.config.method_rows)."""
    from sebench.experiment.config import method_rows

    return method_rows()

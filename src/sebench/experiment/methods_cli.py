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

        if _show_study_name(args.spec):
            return 0
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


def _show_study_name(name: str) -> bool:
    """Prints a name the listing shows that is no method of its own (a regime, a variant, a preset's labelled
    setting of a method): what it is and how its settings are given. False for any other name."""
    from sebench.experiment.config import CONTROL_VARIANTS, PRESETS, settings_flag
    from sebench.methods import method_signature, resolve

    row = next((r for r in rows() if r[0] == name and r[1] == "built-in"), None)
    variants = {label: v for p in PRESETS.values() for label, v in p.get("variants", {}).items()}
    settings = {label: args for p in PRESETS.values() for label, args in p.get("methods", {}).items()
                if isinstance(args, dict) and "method" in args}
    flag = settings_flag(name, variants)
    if row is None or (flag is None and name not in settings):
        return False  # a built-in method, an entry point or a path: resolved and shown as any method
    print("\t".join(row))
    changes = variants.get(name) or CONTROL_VARIANTS.get(name) or {}
    if changes:
        print("  changes: " + ", ".join(f"{k}={v}" for k, v in changes.items() if k != "regime"))
    if flag:
        print(f"  settings: the fields of `sebench train --help` ({flag})")
    else:
        print(f"  arguments: {method_signature(resolve(settings[name]['method']))} (-M {name}.KEY=VALUE)")
    return True

"""`sebench build` and `sebench audit`."""

from __future__ import annotations

import argparse
from pathlib import Path

from sebench.errors import SebenchError
from sebench.obfuscate import DOCS_SOURCES


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build", help="build a fresh instance (package, docs, tasks) from a seed",
        description="Build an instance directory: a pseudo-novel package made from a library (NumPy by default) "
                    "with random names, "
                    "its rewritten docs, the task splits and private/mapping.json; the leak audit runs last "
                    "and any finding fails the build.")
    p.add_argument("--library", default="numpy", metavar="NAME",
                   help="the library to make the package from: a built-in (numpy, more-itertools), an installed "
                        "entry point of group sebench.libraries, or pkg.module:ATTR (default numpy)")
    p.add_argument("--out", type=Path, required=True,
                   help="instance directory to write (an instance already there is refused without --overwrite)")
    p.add_argument("--seed", type=int, default=0, help="seed of names and tasks; same seed, same bytes (default 0)")
    p.add_argument("--package-name", help="use this package name instead of a random one")
    p.add_argument("--mapping-from", type=Path, metavar="FILE",
                   help="take every name from an existing instance's api_doc.jsonl (original benchmark format)")
    p.add_argument("--docs", choices=DOCS_SOURCES, default="sebench",
                   help="sebench: sebench's own leak-audited docs (default); original: the `rewritten_doc` texts "
                        "of the release's api_doc.jsonl given with --mapping-from, as they are")
    p.add_argument("--n-train", type=int, help="number of training tasks")
    p.add_argument("--n-single", type=int, help="number of one-function test tasks")
    p.add_argument("--n-multiple", type=int, help="number of multi-function test tasks")
    p.add_argument("--no-tasks", action="store_true", help="write no task files")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an instance already at --out (its tasks, mapping and the runs made on it are lost); "
                        "the new one is built beside it and swapped in only once complete")
    p.set_defaults(func=run_build)
    a = subparsers.add_parser("audit", help="scan an instance for leaks of its original library",
                              description="Print every leak finding (file:line: kind: text); exit 1 if any.")
    a.add_argument("dir", type=Path, help="instance directory")
    a.set_defaults(func=run_audit)


def task_sizes(args: argparse.Namespace):
    """TaskSizes from the flags, or None for no tasks."""
    counts = {"train": args.n_train, "single": args.n_single, "multiple": args.n_multiple}
    given = {k: v for k, v in counts.items() if v is not None}
    if args.no_tasks:
        if given:
            raise SebenchError("--no-tasks cannot be combined with --n-train/--n-single/--n-multiple")
        return None
    for k, v in given.items():
        if v < 0:
            raise SebenchError(f"--n-{k}: must be 0 or more, got {v}")
    from sebench.tasks import TaskSizes

    return TaskSizes(**given)


def run_build(args: argparse.Namespace) -> int:
    from sebench.builder.run import build_instance

    out = build_instance(args.out, args.seed, package_name=args.package_name, mapping_from=args.mapping_from,
                         task_sizes=task_sizes(args), docs_from=args.docs, overwrite=args.overwrite,
                         library=args.library)
    print(out)
    return 0


def run_audit(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.libraries import audit_library
    from sebench.obfuscate import audit_instance

    inst = Instance.open(args.dir)
    numpy = inst.library == "numpy"
    findings = [str(f) for f in audit_instance(inst.root)] if numpy else audit_library(inst.root)
    for f in findings:
        print(f)
    print(f"audit: {len(findings)} finding(s) in {inst.root}")
    return 1 if findings else 0

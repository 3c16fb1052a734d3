"""`sebench tasks import|export|generate`: the original benchmark's data, and model-written tasks."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser("tasks", help="import, export or model-generate tasks of an instance")
    sub = parser.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)

    p = sub.add_parser("import", help="convert the original benchmark's jsonl files into an instance's splits")
    p.add_argument("--official", type=Path, nargs="+", required=True,
                   help="original jsonl file(s): train.jsonl, single_test.jsonl, multiple_test.jsonl "
                        "(the split is taken from the file name unless --split is given)")
    p.add_argument("--data", type=Path, required=True,
                   help="instance directory built with `sebench build --mapping-from` (its names must match)")
    p.add_argument("--split", choices=("train", "single_test", "multiple_test"),
                   help="split for all the given files (default: from each file's name)")
    p.set_defaults(func=_import)

    p = sub.add_parser("export", help="write an instance's tasks in the original's format or as parquet")
    p.add_argument("--data", type=Path, required=True, help="instance directory")
    p.add_argument("--format", choices=("official", "parquet"), default="official",
                   help="official: the original's jsonl fields, one file per split; parquet: a HuggingFace-"
                        "datasets parquet file per split (needs pyarrow: pip install 'sebench[export]')")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(func=_export)

    p = sub.add_parser("generate", help="ask a model to write tasks for chosen functions; keep verified ones")
    p.add_argument("--data", type=Path, required=True, help="instance directory")
    p.add_argument("--model", required=True,
                   help="backend spec, e.g. 'openai:MODEL@http://127.0.0.1:8000/v1' (see `sebench rollout`)")
    p.add_argument("--functions", required=True,
                   help="comma-separated public names of the package's functions (e.g. zwc.kocito,zwc.rfx.qu)")
    p.add_argument("--n", type=int, default=10, help="number of tasks to ask for (default 10)")
    p.add_argument("--samples", type=int, default=2,
                   help="independent solutions that must agree on every output (default 2)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--out", type=Path, required=True, help="jsonl file for the kept tasks")
    p.set_defaults(func=_generate)


def _import(args: argparse.Namespace) -> int:
    from sebench.tasks.official import import_official

    counts = import_official(args.official, args.data, split=args.split)
    print(", ".join(f"{split}: {n} tasks" for split, n in counts.items()))
    return 0


def _export(args: argparse.Namespace) -> int:
    from sebench.tasks.official import export_tasks

    for path in export_tasks(args.data, args.format, args.out):
        print(path)
    return 0


def _generate(args: argparse.Namespace) -> int:
    from sebench.tasks.modelgen import run_generate

    kept = run_generate(args.data, args.model, [f.strip() for f in args.functions.split(",") if f.strip()],
                        args.n, args.out, seed=args.seed, samples=args.samples)
    print(f"{kept} tasks kept -> {args.out}")
    return 0

"""`sebench tasks import|export`: the original benchmark's data (`sebench tasks generate` is registered by the
train stage, sebench/train/cli.py: model-written tasks need a model and the judge)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers) -> dict:
    parser = subparsers.add_parser("tasks", help="import, export or model-generate tasks of an instance")
    sub = parser.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)

    p = sub.add_parser("import", help="convert the original benchmark's jsonl files into an instance's splits")
    p.add_argument("--official", type=Path, nargs="+", required=True,
                   help="original jsonl file(s): train.jsonl, single_test.jsonl, multiple_test.jsonl "
                        "(the split is taken from the file name unless --split is given), or folders holding them: "
                        "the release's datasets/, or a `sebench export --format hf` folder")
    p.add_argument("--data", type=Path, required=True,
                   help="instance directory whose names match the rows': built with `sebench build --mapping-from` "
                        "the release's api_doc.jsonl, or with the seed of a sebench export")
    p.add_argument("--split", choices=("train", "single_test", "multiple_test"),
                   help="split for all the given files (default: from each file's name)")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing a split with fewer tasks than it has")
    p.set_defaults(func=_import)

    p = sub.add_parser("export", help="write an instance's tasks in the original's format or as parquet")
    p.add_argument("--data", type=Path, required=True, help="instance directory")
    p.add_argument("--format", choices=("official", "parquet"), default="official",
                   help="official: the original's jsonl fields, one file per split; parquet: a HuggingFace-"
                        "datasets parquet file per split (needs pyarrow: pip install 'sebench[export]')")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(func=_export)
    return {"tasks": sub}


def _import(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.output_files import OutputLock
    from sebench.tasks.official import import_official

    with OutputLock(Instance.open(args.data).root / "datasets"):
        counts = import_official(args.official, args.data, split=args.split, overwrite=args.overwrite)
    print(", ".join(f"{split}: {n} tasks" for split, n in counts.items()))
    return 0


def _export(args: argparse.Namespace) -> int:
    from sebench.instance import SPLIT_FILES, Instance
    from sebench.output_files import OutputLock, check_dir_target, refuse_same_file
    from sebench.tasks.official import export_tasks

    instance = Instance.open(args.data)
    check_dir_target(args.out)
    suffix = ".jsonl" if args.format == "official" else ".parquet"
    for split in SPLIT_FILES:
        refuse_same_file(args.out / f"{split}{suffix}", [("--data", p) for p in instance.files()])
    with OutputLock(args.out):
        for path in export_tasks(args.data, args.format, args.out):
            print(path)
    return 0

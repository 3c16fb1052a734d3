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

    p = sub.add_parser("generate", help="ask a model to write tasks for chosen functions; keep verified ones")
    p.add_argument("--data", type=Path, required=True, help="instance directory")
    p.add_argument("--model", required=True,
                   help="backend spec, e.g. 'openai:MODEL@http://127.0.0.1:8000/v1' (see `sebench rollout`)")
    p.add_argument("--functions", required=True,
                   help="comma-separated public names of the package's functions (e.g. zwc.kocito,zwc.rfx.qu)")
    p.add_argument("--n", type=_positive, default=10, help="number of tasks to ask for (default 10)")
    p.add_argument("--samples", type=_positive, default=2,
                   help="independent solutions that must agree on every output (default 2)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--base-url", help="server URL(s), comma-separated, for an openai:<model> spec given without "
                   "@URL (default: $OPENAI_BASE_URL)")
    p.add_argument("--out", type=Path, required=True, help="jsonl file for the kept tasks")
    p.set_defaults(func=_generate)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


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


def _generate(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.output_files import OutputLock, check_file_target, check_own_output, refuse_same_file
    from sebench.rollout.run import RolloutConfig, check_model_spec
    from sebench.tasks.modelgen import run_generate

    # every check on --out comes before the model's work, which a refused write would lose
    instance = Instance.open(args.data)
    check_model_spec(RolloutConfig(data=args.data, out=args.out, model=args.model, base_url=args.base_url))
    check_file_target(args.out)
    refuse_same_file(args.out, [("--data", p) for p in instance.files()])
    check_own_output(args.out, lambda obj: isinstance(obj, dict) and {"task_id", "query"} <= obj.keys(), "tasks")
    with OutputLock(args.out):
        kept = run_generate(args.data, args.model, [f.strip() for f in args.functions.split(",") if f.strip()],
                            args.n, args.out, seed=args.seed, samples=args.samples, base_url=args.base_url)
    print(f"{kept} tasks kept -> {args.out}")
    return 0

"""`sebench train` (the flags are TrainConfig's fields, made by the one flag generator, sebench.cliflags) and
`sebench tasks generate` (model-written tasks, modelgen.py), added to the tasks stage's command."""

from __future__ import annotations

import argparse
from pathlib import Path

from sebench.cliflags import at_least_one, config_command
from sebench.train.config import REGIMES, TrainConfig


def register(subparsers) -> dict:
    """Adds `sebench train`; returns its parser, to which the study's stage adds `--preset` (experiment/cli.py)."""
    parser = config_command(
        subparsers, "train", TrainConfig, _main,
        help="train a model on an instance (" + ", ".join(REGIMES) + ")",
        description="Train a model to internalize the package. CPU by default; the same command runs on GPUs, "
        "and on several with `accelerate launch -m sebench.cli train ...`. With --preset, the settings are the "
        "preset's for --regime, as `sebench run --preset P` trains it; the flags given override them.",
    )
    parser.add_argument("--show-config", action="store_true", help="print the resolved settings and exit (nothing "
                        "is read or trained)")
    return {"train": parser}


def _main(cfg: TrainConfig, args: argparse.Namespace) -> int:
    if getattr(args, "show_config", False):
        import json

        print(json.dumps(cfg.resolved().to_json(), indent=1))  # as train_model resolves it
        return 0
    from sebench.train.run import train_model

    out = train_model(cfg)
    print(out)
    return 0


def register_actions(actions: dict) -> None:
    """Adds `generate` to `sebench tasks` (`actions`: each command's sub-command parsers)."""
    tasks_actions = actions["tasks"]
    p = tasks_actions.add_parser("generate", help="ask a model to write tasks for chosen functions; keep verified ones")
    p.add_argument("--data", type=Path, required=True, help="instance directory")
    p.add_argument("--model", required=True,
                   help="backend spec, e.g. 'openai:MODEL@http://127.0.0.1:8000/v1' (see `sebench rollout`)")
    p.add_argument("--functions", required=True,
                   help="comma-separated public names of the package's functions (e.g. zwc.kocito,zwc.rfx.qu)")
    p.add_argument("--n", type=at_least_one, default=10, help="number of tasks to ask for (default 10)")
    p.add_argument("--samples", type=at_least_one, default=2,
                   help="independent solutions that must agree on every output (default 2)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--base-url", help="server URL(s), comma-separated, for an openai:<model> spec given without "
                   "@URL (default: $OPENAI_BASE_URL)")
    p.add_argument("--out", type=Path, required=True, help="jsonl file for the kept tasks")
    p.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.output_files import OutputLock, check_file_target, check_own_output, refuse_same_file
    from sebench.rollout import RolloutConfig, check_model_spec
    from sebench.train.modelgen import run_generate

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

"""`sebench train`: the flags are TrainConfig's fields, made by the one flag generator (sebench.cliflags)."""

from __future__ import annotations

import argparse
import dataclasses

from sebench.cliflags import add_config_flags
from sebench.train.config import REGIMES, TrainConfig


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a model on an instance (" + ", ".join(REGIMES) + ")",
        description="Train a model to internalize the package. CPU by default; the same command runs on GPUs, "
        "and on several with `accelerate launch -m sebench.cli train ...`.",
    )
    add_config_flags(parser, TrainConfig, dataclasses.fields(TrainConfig))
    parser.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from sebench.train.run import run

    names = {f.name for f in dataclasses.fields(TrainConfig)}
    values = {k: v for k, v in vars(args).items() if k in names and v is not None}
    out = run(TrainConfig(**values))
    print(out)
    return 0

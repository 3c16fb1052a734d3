"""`sebench train`: the flags are TrainConfig's fields (same names, '-' for '_', same help)."""

from __future__ import annotations

import argparse
import dataclasses
import typing
from pathlib import Path

from sebench.train.config import (
    NEGATIVE_ADVANTAGES,
    OLD_LOGPS,
    PROMPT_MODES,
    REGIME_ALIASES,
    REGIMES,
    REWARDS,
    TARGETS,
    TRAIN_SOURCES,
    TrainConfig,
)

_REQUIRED = ("data", "regime", "out")
_CHOICES = {"regime": REGIMES + tuple(REGIME_ALIASES), "reward": REWARDS, "train_source": TRAIN_SOURCES,
            "target": TARGETS, "old_logps": OLD_LOGPS, "negative_advantages": NEGATIVE_ADVANTAGES,
            "sample_mode": PROMPT_MODES}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a model on an instance (" + ", ".join(REGIMES) + ")",
        description="Train a model to internalize the package. CPU by default; the same command runs on GPUs, "
        "and on several with `accelerate launch -m sebench.cli train ...`.",
    )
    hints = typing.get_type_hints(TrainConfig)
    for f in dataclasses.fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        help_text = f.metadata.get("help", "")
        hint = hints[f.name]
        if hint is bool:
            parser.add_argument(flag, action="store_true", help=help_text)
            continue
        kwargs = {"help": help_text, "type": _parser_type(hint), "dest": f.name}
        if f.name in _REQUIRED:
            kwargs["required"] = True
        if f.name in _CHOICES:
            kwargs["choices"] = _CHOICES[f.name]
        if f.default is not dataclasses.MISSING and f.default is not None:
            kwargs["help"] += f" (default: {f.default})"
        parser.add_argument(flag, **kwargs)
    parser.set_defaults(func=_main)


def _parser_type(hint):
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if args else hint
    if typing.get_origin(base) is list:
        return lambda text: [part.strip() for part in text.split(",") if part.strip()]
    return {Path: Path, int: int, float: float}.get(base, str)


def _main(args: argparse.Namespace) -> int:
    from sebench.train.run import run

    names = {f.name for f in dataclasses.fields(TrainConfig)}
    values = {k: v for k, v in vars(args).items() if k in names and v is not None}
    out = run(TrainConfig(**values))
    print(out)
    return 0

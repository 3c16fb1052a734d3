"""`sebench rollout`: flags are generated from RolloutConfig's fields, so the two never drift apart."""

from __future__ import annotations

import argparse
import typing
from pathlib import Path


def register(subparsers) -> None:
    from sebench.rollout.run import RolloutConfig, config_fields

    parser = subparsers.add_parser(
        "rollout",
        help="ask a model for solutions (closed/open/full-doc/retrieval), resumable",
        description="Ask a model for solutions to a split's tasks; writes one rollout record per (task, "
        "sample) and resumes an interrupted run when given the same --out.",
    )
    hints = typing.get_type_hints(RolloutConfig)
    for f in config_fields():
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        shown = f.default not in (None, False) and not f.metadata.get("required")
        options = {"help": f.metadata["help"] + (f" (default: {f.default})" if shown else ""), "dest": f.name}
        if kind is bool:
            parser.add_argument(flag, action="store_true", **options)
            continue
        base = next((t for t in typing.get_args(kind) if t is not type(None)), kind)
        options["type"] = Path if base is Path else base
        if f.metadata.get("required"):
            options["required"] = True
        else:
            options["default"] = f.default
        if "choices" in f.metadata:
            options["choices"] = f.metadata["choices"]
        parser.add_argument(flag, **options)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from sebench.rollout.run import RolloutConfig, config_fields, run

    cfg = RolloutConfig(**{f.name: getattr(args, f.name) for f in config_fields()})
    run(cfg)
    return 0

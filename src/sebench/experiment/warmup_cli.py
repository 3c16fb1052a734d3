"""`sebench warmup` (the doc-literate base model, cached) and `sebench compact-docs` (a compact-docs copy
of an instance, to evaluate open-book with the docs that a compact warm-up trained on)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from sebench.cliflags import config_command

if TYPE_CHECKING:
    from sebench.experiment.warmup import WarmupConfig


def register(subparsers: argparse._SubParsersAction) -> None:
    from sebench.experiment.warmup import WarmupConfig

    p = config_command(
        subparsers, "warmup", WarmupConfig, _warmup,
        help="a doc-literate base model: Open-SFT on functions disjoint from the studied ones (cached)",
        description="Trains Open-SFT on the training tasks of every function except the studied ones and their "
        "relatives, so that the model learns to use docs it is shown without ever seeing the studied functions. "
        "The checkpoint is cached under --cache-dir by instance, functions and settings; a second call reuses it. "
        "Prints the checkpoint's path (use it as the study's --model).",
    )
    p.add_argument("--plan", action="store_true", help="print the cache key and the warm-up functions; train nothing")

    c = subparsers.add_parser(
        "compact-docs",
        help="copy an instance with compact docs (name, signature, summary, one example)",
        description="Writes a copy of an instance whose api_doc.jsonl holds compact entries "
        "(sebench.rollout.compact_docs), for small models; the full docs stay the paper's protocol.",
    )
    c.add_argument("--data", type=Path, required=True, help="the instance directory to copy")
    c.add_argument("--out", type=Path, required=True, help="the compact copy to write (kept if already up to date)")
    c.set_defaults(func=_compact)


def _warmup(cfg: WarmupConfig, args: argparse.Namespace) -> int:
    from sebench.experiment.warmup import plan, warm_up

    if args.plan:
        p = plan(cfg)
        print(f"key {p.key}\ncheckpoint {p.checkpoint}\nexcluded {' '.join(p.excluded)}\n"
              f"warm-up functions ({len(p.functions)}) {' '.join(p.functions)}")
        return 0
    print(warm_up(cfg))
    return 0


def _compact(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.rollout import write_compact_instance

    print(write_compact_instance(Instance.open(args.data), args.out))
    return 0

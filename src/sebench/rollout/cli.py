"""`sebench rollout`: flags are generated from RolloutConfig's fields, so the two never drift apart."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from sebench.cliflags import config_command

if TYPE_CHECKING:
    from sebench.rollout.run import RolloutConfig


def register(subparsers) -> None:
    from sebench.rollout.run import RolloutConfig

    config_command(
        subparsers, "rollout", RolloutConfig, _run,
        help="ask a model for solutions (closed/open/full-doc/retrieval/memory), resumable",
        description="Ask a model for solutions to a split's tasks; writes one rollout record per (task, "
        "sample) and resumes an interrupted run when given the same --out.",
    )


def _run(cfg: RolloutConfig, _args: argparse.Namespace) -> int:
    from sebench.rollout.run import write_rollouts

    write_rollouts(cfg)
    return 0

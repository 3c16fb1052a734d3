"""`sebench rollout`: flags are generated from RolloutConfig's fields, so the two never drift apart."""

from __future__ import annotations

import argparse

from sebench.cliflags import add_config_flags, config_from_flags


def register(subparsers) -> None:
    from sebench.rollout.run import RolloutConfig

    parser = subparsers.add_parser(
        "rollout",
        help="ask a model for solutions (closed/open/full-doc/retrieval), resumable",
        description="Ask a model for solutions to a split's tasks; writes one rollout record per (task, "
        "sample) and resumes an interrupted run when given the same --out.",
    )
    add_config_flags(parser, RolloutConfig)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from sebench.rollout.run import RolloutConfig, write_rollouts

    cfg = config_from_flags(RolloutConfig, args)
    write_rollouts(cfg)
    return 0

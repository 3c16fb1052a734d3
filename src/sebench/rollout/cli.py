"""`sebench rollout`: flags are generated from RolloutConfig's fields, so the two never drift apart."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from sebench.cliflags import config_command

if TYPE_CHECKING:
    from sebench.rollout.run import RolloutConfig


def register(subparsers) -> None:
    from sebench.records import MODES
    from sebench.rollout.run import RolloutConfig

    config_command(
        subparsers, "rollout", RolloutConfig, _run,
        help=f"ask a model for solutions ({'/'.join(MODES)}), resumable",
        description="Ask a model for solutions to a split's tasks; writes one rollout record per (task, "
        "sample) and resumes an interrupted run when given the same --out.",
    )


def _run(cfg: RolloutConfig, _args: argparse.Namespace) -> int:
    from dataclasses import replace

    from sebench.protocols import get as get_protocol
    from sebench.rollout.run import check_model_spec, write_rollouts
    from sebench.rollout.thinking import fit_decoding

    check_model_spec(cfg)  # an unknown spec, or a served one with no URL, is answered first
    protocol = get_protocol(cfg.protocol)  # --protocol original sets thinking on and 8192 tokens
    thinking = cfg.thinking or (None if protocol.thinking is None else "on" if protocol.thinking else "off")
    budget = cfg.max_tokens if cfg.max_tokens is not None else protocol.max_tokens
    write_rollouts(replace(cfg, max_tokens=fit_decoding(cfg.model, thinking, budget, budget is not None)))
    return 0

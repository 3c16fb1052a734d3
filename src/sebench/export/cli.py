"""`sebench export`: flags are ExportConfig's fields (sebench.cliflags)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from sebench.cliflags import check_ranges, config_command

if TYPE_CHECKING:
    from sebench.export.verl import ExportConfig


def register(subparsers) -> None:
    from sebench.export.verl import ExportConfig

    config_command(
        subparsers, "export", ExportConfig, _main,
        help="an instance as another trainer's files (verl: RL and SFT parquet files and a reward)",
        description="Writes the files the original's verl scripts read for an instance (RL_data/train.parquet and "
        "real_train.parquet, the open- and closed-book rows of the same tasks in the same order; RL_data/test.parquet; "
        "SFT_data/valid_SFT_data.parquet from judged rollouts) and sebench_reward.py, a verl reward "
        "(custom_reward_function.path) that asks sebench's judge in-process or on `sebench sandbox serve` servers.",
    )


def _main(cfg: ExportConfig, _args: argparse.Namespace) -> int:
    from sebench.export.verl import export_verl
    from sebench.output_files import OutputLock

    check_ranges(cfg)
    with OutputLock(cfg.out):
        for path in export_verl(cfg):
            print(path)
    return 0

"""`sebench export`: flags are ExportConfig's fields (sebench.cliflags)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from sebench.cliflags import check_ranges, config_command

if TYPE_CHECKING:
    from sebench.export.config import ExportConfig

PUSH_HINT = """
To publish it on the Hugging Face Hub (after `hf auth login`):
  hf upload USER/NAME {out} --repo-type dataset        (older huggingface_hub: huggingface-cli upload)
or from Python, config by config:
  datasets.load_dataset("{out}", "single_test").push_to_hub("USER/NAME", config_name="single_test")
Add a license: line to the card's metadata (README.md) first."""


def register(subparsers) -> None:
    from sebench.export.config import ExportConfig

    config_command(
        subparsers, "export", ExportConfig, _main,
        help="an instance as another tool's files (verl: RL and SFT parquet files and a reward; hf: a Hugging Face "
        "dataset)",
        description="--format verl writes the files the original's verl scripts read for an instance "
        "(RL_data/train.parquet and real_train.parquet, the open- and closed-book rows of the same tasks in the same "
        "order; RL_data/test.parquet; SFT_data/valid_SFT_data.parquet from judged rollouts) and sebench_reward.py, a "
        "verl reward (custom_reward_function.path) that asks sebench's judge in-process or on `sebench sandbox "
        "serve` servers. --format hf writes a dataset folder that datasets.load_dataset(OUT, CONFIG) reads (configs "
        "train, single_test, multiple_test in the original release's columns, and docs) with its dataset card; the "
        "private mapping and the package are left out.",
    )


def _main(cfg: ExportConfig, _args: argparse.Namespace) -> int:
    from sebench.export.config import check_format_options
    from sebench.output_files import OutputLock

    check_ranges(cfg)
    check_format_options(cfg)
    with OutputLock(cfg.out):
        if cfg.format == "hf":
            from sebench.export.hf import export_hf

            written = export_hf(cfg)
            for path in written.files:
                print(path)
            print(", ".join(f"{config}: {n} rows" for config, n in written.rows.items()))
            print(PUSH_HINT.format(out=cfg.out))
            return 0
        from sebench.export.verl import export_verl

        for path in export_verl(cfg):
            print(path)
    return 0

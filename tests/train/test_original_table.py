"""docs/gpu.md, "The original's training, item by item": every row's field has the stated value in `sebench train`'s
defaults, under `--protocol original`, and in the gpu preset's closed-rl (read from the code itself)."""

from __future__ import annotations

import json

import pytest
from doc_tables import GPU_PAGE, doc_table

from sebench.experiment.config import resolve
from sebench.train.config import TrainConfig


def _rows() -> list[list[str]]:
    return doc_table(GPU_PAGE, "item | the original, and where")


def _resolved(**settings) -> TrainConfig:
    return TrainConfig(data=".", regime="closed-rl", out=".", **settings).resolved()


def test_the_table_covers_the_original_training_rules():
    fields = {row[2].strip("`") for row in _rows()}
    assert {"old_logps", "mini_batches", "dual_clip", "log_ratio_clamp", "loss_agg", "adam_beta2", "weight_decay",
            "sample_until", "reward", "sft_examples", "protocol", "max_prompt_tokens", "rl_order"} <= fields


def _value(cfg: TrainConfig, name: str):
    """The value a GRPO stage trains with: the optimizer's fields as resolved for an "rl" stage."""
    optimizer = dict(zip(("weight_decay", "adam_beta2"), cfg.optimizer("rl")))
    return optimizer[name] if name in optimizer else getattr(cfg, name)


@pytest.mark.parametrize("row", _rows(), ids=lambda row: row[2].strip("`"))
def test_each_row_is_what_the_code_does(row):
    _, _, field, default, original, gpu = row
    name = field.strip("`")
    gpu_settings = resolve("gpu", {}).train_settings("closed-rl")
    assert _value(_resolved(), name) == json.loads(default)
    assert _value(_resolved(protocol="original", original_repo="."), name) == json.loads(original)
    assert _value(_resolved(**gpu_settings), name) == json.loads(gpu)


def test_sft_takes_the_originals_sft_optimizer_under_its_protocol():
    """verl_evolve/verl/trainer/config/sft_trainer.yaml: weight decay 0.01, betas (0.9, 0.95); a set field wins."""
    assert _resolved(protocol="original", original_repo=".").optimizer("sft") == (0.01, 0.95)
    assert _resolved().optimizer("sft") == (0.0, 0.999)
    assert _resolved(protocol="original", original_repo=".", weight_decay=0.0).optimizer("sft") == (0.0, 0.95)

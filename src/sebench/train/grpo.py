"""GRPO on the engine that --engine chooses: this project's loop (rl.py) or TRL's GRPOTrainer (engine_trl.py)."""

from __future__ import annotations

import os
from typing import Any

from sebench.records import Task
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig


def train_rl(model: Any, tokenizer: Any, judge: Any, tasks: list[Task], rows: list[dict], cfg: TrainConfig,
             losses: LossLog, stage: str, seed: int | None = None) -> Any:
    """Trains `model` with GRPO on `rows` (from data.rl_prompts) on rl_engine(cfg)'s engine; returns the model,
    LoRA merged."""
    if rl_engine(cfg) == "trl":
        from sebench.train.engine_trl import train_rl_trl

        return train_rl_trl(model, tokenizer, judge, tasks, rows, cfg, losses, stage, seed)
    from sebench.train.rl import train_rl_own

    return train_rl_own(model, tokenizer, judge, tasks, rows, cfg, losses, stage, seed)


def rl_engine(cfg: TrainConfig) -> str:
    """The GRPO engine: --engine, where auto is trl on a visible CUDA GPU (vLLM sampling, several GPUs) or under
    several processes (`accelerate launch`), and the own loop (rl.py) in one process on a CPU (its KV-cached
    sampling stops each row at its code block; docs/architecture.md)."""
    if cfg.engine != "auto":
        return cfg.engine
    import torch

    return "trl" if torch.cuda.is_available() or int(os.environ.get("WORLD_SIZE", "1")) > 1 else "own"

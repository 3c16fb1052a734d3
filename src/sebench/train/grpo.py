"""GRPO with TRL's GRPOTrainer; the reward is the benchmark's judge (sebench.train.reward).

The clipping range is exposed (--epsilon, --epsilon-high) because the paper blames clipping for RL's
gap to SFT; the loss normalisation is TRL's default ("dapo").
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sebench.instance import Instance
from sebench.records import Task
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.reward import JudgeReward
from sebench.train.sft import common_args, finished_model, peft_config

log = logging.getLogger(__name__)


def train_grpo(model: Any, tokenizer: Any, instance: Instance, tasks: list[Task], prompts: list[dict],
               cfg: TrainConfig, workdir: Path, losses: LossLog, stage: str) -> Any:
    """Trains `model` with GRPO on `prompts` (rows with "prompt" and "task_id"); returns the merged model."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from sebench.judge import Judge

    args = GRPOConfig(
        **common_args(cfg, workdir),
        num_generations=cfg.num_generations,
        max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature,
        epsilon=cfg.epsilon,
        epsilon_high=cfg.epsilon_high,
        beta=cfg.beta,
        shuffle_dataset=True,
    )
    dataset = Dataset.from_list(prompts)
    with Judge(instance, workers=cfg.judge_workers) as judge:
        reward = JudgeReward(judge, tasks, graded=cfg.reward == "graded")
        trainer = GRPOTrainer(
            model=model, reward_funcs=reward, args=args, train_dataset=dataset, processing_class=tokenizer,
            peft_config=peft_config(cfg), callbacks=[losses.callback(stage)],
        )
        log.info("%s: %d prompts x %d samples, %s reward, clip [%g, %g]", stage, len(dataset), cfg.num_generations,
                 cfg.reward, cfg.epsilon, cfg.epsilon_high)
        trainer.train()
    return finished_model(trainer)

"""Supervised fine-tuning with TRL's SFTTrainer: loss on the answer only (prompt-completion data).

Also holds what SFT and GRPO share: the trainer settings common to both (CPU fp32 by default, bf16 on
GPUs that have it, no intermediate checkpoints) and LoRA set-up and merging.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig

log = logging.getLogger(__name__)


def common_args(cfg: TrainConfig, workdir: Path) -> dict[str, Any]:
    """TrainingArguments shared by the SFT and GRPO configs."""
    import torch

    bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    steps = {"max_steps": cfg.max_steps} if cfg.max_steps else {"num_train_epochs": cfg.epochs}
    return dict(
        output_dir=str(workdir),
        learning_rate=cfg.lr,
        per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum,
        gradient_checkpointing=cfg.gradient_checkpointing,
        bf16=bf16,  # mixed precision on GPUs with bf16; plain fp32 on CPU
        dataloader_pin_memory=torch.cuda.is_available(),
        seed=cfg.seed,
        data_seed=cfg.seed,
        logging_steps=1,
        save_strategy="no",  # the run saves one merged checkpoint at the end
        report_to="none",
        lr_scheduler_type="linear",
        warmup_steps=0,
        **steps,
    )


def peft_config(cfg: TrainConfig):
    if not cfg.lora:
        return None
    from peft import LoraConfig

    return LoraConfig(
        r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM"
    )


def finished_model(trainer: Any):
    """The trained model without wrappers, LoRA adapters merged into the weights."""
    model = trainer.accelerator.unwrap_model(trainer.model)
    if hasattr(model, "merge_and_unload"):  # a PeftModel
        model = model.merge_and_unload()
    return model


def fit_length(examples: list[dict], tokenizer: Any, max_length: int) -> list[dict]:
    """Drops examples whose prompt+answer exceeds max_length tokens (cutting them would cut the answer)."""
    kept = [
        e for e in examples
        if len(tokenizer.apply_chat_template(e["prompt"] + e["completion"], tokenize=True, return_dict=False)) <= max_length
    ]
    if len(kept) < len(examples):
        log.warning("%d of %d examples are longer than --max-length %d tokens and were left out",
                    len(examples) - len(kept), len(examples), max_length)
    if not kept:
        raise SebenchError(f"every training example is longer than --max-length {max_length} tokens; raise it")
    return kept


def sft_trainer(model: Any, tokenizer: Any, examples: list[dict], cfg: TrainConfig, workdir: Path,
                callbacks: list | None = None) -> Any:
    """An SFTTrainer over conversational prompt-completion `examples`, the loss on the answer only."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    examples = fit_length(examples, tokenizer, cfg.max_length)
    dataset = Dataset.from_list([{"prompt": e["prompt"], "completion": e["completion"]} for e in examples])
    args = SFTConfig(
        **common_args(cfg, workdir),
        max_length=cfg.max_length,
        completion_only_loss=True,  # the loss is on the answer, never on the prompt
    )
    return SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer,
                      peft_config=peft_config(cfg), callbacks=callbacks)


def train_sft(model: Any, tokenizer: Any, examples: list[dict], cfg: TrainConfig, workdir: Path,
              losses: LossLog, stage: str) -> Any:
    """Trains `model` on `examples` (see sft_trainer); returns the trained model, LoRA merged."""
    trainer = sft_trainer(model, tokenizer, examples, cfg, workdir, [losses.callback(stage)])
    log.info("%s: %d examples, %s", stage, len(trainer.train_dataset),
             f"{cfg.max_steps} steps" if cfg.max_steps else f"{cfg.epochs:g} epochs")
    trainer.train()
    return finished_model(trainer)

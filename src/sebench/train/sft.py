"""Supervised fine-tuning with TRL's SFTTrainer: loss on the answer only (prompt-completion data), and
on every token of plain-text examples ({"text": ...}: the docs-only methods' documents, docs_data.py);
with `--distill-kl`, a KL term to a teacher's distribution on examples that carry a teacher prompt (distill.py).

The step is kept close to a plain PyTorch loop: batches of similar length, left-padded so that the
answers sit in the last columns, and the LM head (a 49k-token vocabulary for the embedded model) run
only over those columns instead of over the whole prompt; no per-step passes over the logits for
logging (TRL's entropy and token accuracy).

Also holds the trainer settings (CPU fp32 by default, bf16 on GPUs that have it, no intermediate
checkpoints) and LoRA set-up and merging, which the GRPO loop (rl.py) shares.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.models import gpu_bf16
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.data import LeftPaddedBatches
from sebench.train.distill import answer_start, kl_to_teacher, teacher_targets, teacher_tokens

log = logging.getLogger(__name__)


def common_args(cfg: TrainConfig, workdir: Path, stage: str = "sft") -> dict[str, Any]:
    """The trainer's TrainingArguments for an "sft" or (engine_trl's) "rl" stage."""
    import torch

    bf16 = gpu_bf16()
    steps = {"max_steps": cfg.max_steps} if cfg.max_steps else {"num_train_epochs": cfg.epochs}
    weight_decay, beta2 = cfg.optimizer(stage)
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
        lr_scheduler_type=cfg.lr_scheduler,
        warmup_steps=cfg.warmup_ratio,  # a float below 1 is a share of the steps
        weight_decay=weight_decay,
        adam_beta1=cfg.adam_beta1,
        adam_beta2=beta2,
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


def example_tokens(example: dict, tokenizer: Any) -> dict:
    """`input_ids` and `labels` (-100 where there is no loss) of one example. A text example: its tokens and
    EOS, the loss on every token that has one before it. A prompt-completion example: the chat template
    over prompt and answer, the loss from where it departs from the prompt alone, as TRL's own
    tokenization does."""
    if "text" in example:
        ids = tokenizer(example["text"])["input_ids"]
        if tokenizer.eos_token_id is not None:
            ids = [*ids, tokenizer.eos_token_id]
        return {"input_ids": ids, "labels": [-100, *ids[1:]]}
    prompt = tokenizer.apply_chat_template(example["prompt"], add_generation_prompt=True, tokenize=True,
                                           return_dict=False)
    ids = tokenizer.apply_chat_template(example["prompt"] + example["completion"], tokenize=True, return_dict=False)
    start = answer_start(prompt, ids)
    return {"input_ids": list(ids), "labels": [-100] * start + list(ids[start:])}


def example_length(example: dict, tokenizer: Any) -> int:
    """The tokens of one example (prompt and answer, or its text and EOS)."""
    if "text" in example:
        return len(tokenizer(example["text"])["input_ids"]) + 1
    return len(tokenizer.apply_chat_template(example["prompt"] + example["completion"], tokenize=True,
                                             return_dict=False))


def fit_length(examples: list[dict], tokenizer: Any, max_length: int) -> list[dict]:
    """Drops examples whose prompt+answer (or text) exceeds max_length tokens (cutting them would cut the
    answer)."""
    kept = [e for e in examples if example_length(e, tokenizer) <= max_length]
    if len(kept) < len(examples):
        log.warning("%d of %d examples are longer than --max-length %d tokens and were left out",
                    len(examples) - len(kept), len(examples), max_length)
    if not kept:
        raise SebenchError(f"every training example is longer than --max-length {max_length} tokens; raise it")
    return kept


def sft_rows(examples: list[dict], tokenizer: Any, distill: bool = False) -> list[dict]:
    """The dataset rows: prompt-completion pairs for TRL to tokenize, or, where any example is plain text or
    (`distill`) has a teacher prompt, every example tokenized here (one dataset holds one form), those with a
    teacher prompt with the teacher's tokens too (distill.teacher_tokens)."""
    distill = distill and any("teacher_prompt" in e for e in examples)
    if not distill and not any("text" in e for e in examples):
        return [{"prompt": e["prompt"], "completion": e["completion"]} for e in examples]
    rows = [example_tokens(e, tokenizer) for e in examples]
    if distill:
        no_teacher = {"teacher_input": [], "teacher_at": 0, "teacher_from": 0}
        rows = [{**row, **(teacher_tokens(e, tokenizer, row) if "teacher_prompt" in e else no_teacher)}
                for e, row in zip(examples, rows, strict=True)]
    return rows


def sft_trainer(model: Any, tokenizer: Any, examples: list[dict], cfg: TrainConfig, workdir: Path,
                callbacks: list | None = None) -> Any:
    """An SFTTrainer over `examples`: conversational prompt-completion ones with the loss on the answer
    only, plain-text ones with the loss on every token."""
    from datasets import Dataset
    from trl import SFTConfig

    examples = fit_length(examples, tokenizer, cfg.max_length)
    rows = sft_rows(examples, tokenizer, distill=cfg.distill_kl > 0)
    distill = bool(rows) and "teacher_input" in rows[0]
    if distill:
        rows = teacher_targets(model, rows, cfg.distill_top_k)
    args = SFTConfig(
        **common_args(cfg, workdir),
        max_length=cfg.max_length,
        completion_only_loss=True,  # the loss is on the answer, never on the prompt
        train_sampling_strategy="group_by_length",  # batches of similar length: little padding
        remove_unused_columns=not distill,  # the teacher's targets reach the loss through the batch
    )
    collator = LeftPaddedBatches(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id)
    trainer = _answer_only_trainer_class()(
        model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
        data_collator=collator, peft_config=peft_config(cfg), callbacks=callbacks,
    )
    trainer.distill_kl = cfg.distill_kl if distill else 0.0
    return trainer


def answer_loss(model: Any, batch: dict, num_items_in_batch: Any = None, distill_kl: float = 0.0) -> Any:
    """Mean cross-entropy over the answer tokens of a left-padded batch (labels -100 elsewhere), with the
    LM head run only from the column before the batch's first answer token to the end; plus, with
    `distill_kl` above 0, that weight times the KL to the teacher's targets in the batch (distill.py), summed
    over the same tokens and divided alike.

    Divides by `num_items_in_batch` when the trainer gives it (the answer tokens of all the steps that
    accumulate into one update), else by this batch's answer tokens, as transformers' own loss does.
    """
    import torch
    import torch.nn.functional as F

    labels = batch["labels"]
    answer_columns = (labels != -100).any(dim=0).nonzero()
    first = max(1, int(answer_columns[0]) if len(answer_columns) else labels.shape[1] - 1)
    outputs = model(input_ids=batch["input_ids"], attention_mask=batch.get("attention_mask"),
                    position_ids=batch.get("position_ids"), use_cache=False,
                    logits_to_keep=labels.shape[1] - first + 1)
    logits = outputs.logits[:, :-1]  # column first-1+j predicts the token in column first+j
    targets = labels[:, first:].to(logits.device)
    total = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1),
                            ignore_index=-100, reduction="sum")
    if distill_kl > 0 and "teacher_ids" in batch:
        total = total + distill_kl * kl_to_teacher(logits, batch, first)
    count = num_items_in_batch if num_items_in_batch is not None else (targets != -100).sum().clamp(min=1)
    return total / torch.as_tensor(count, device=total.device)


@functools.lru_cache(maxsize=1)
def _answer_only_trainer_class() -> type:
    """SFTTrainer with `answer_loss` as its loss (built on first use: TRL is imported lazily)."""
    from trl import SFTTrainer

    class AnswerOnlySFTTrainer(SFTTrainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            loss = answer_loss(model, inputs, num_items_in_batch, getattr(self, "distill_kl", 0.0))
            if self.args.average_tokens_across_devices and num_items_in_batch is not None:
                loss = loss * self.accelerator.num_processes  # DDP averages the gradients across ranks
            return (loss, None) if return_outputs else loss

    return AnswerOnlySFTTrainer


def train_sft(model: Any, tokenizer: Any, examples: list[dict], cfg: TrainConfig, workdir: Path,
              losses: LossLog, stage: str) -> Any:
    """Trains `model` on `examples` (see sft_trainer); returns the trained model, LoRA merged."""
    trainer = sft_trainer(model, tokenizer, examples, cfg, workdir, [losses.callback(stage)])
    log.info("%s: %d examples, %s", stage, len(trainer.train_dataset),
             f"{cfg.max_steps} steps" if cfg.max_steps else f"{cfg.epochs:g} epochs")
    trainer.train()
    return finished_model(trainer)

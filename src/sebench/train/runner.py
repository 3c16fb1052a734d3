"""`sebench train`: one training run, from a TrainConfig to a checkpoint directory.

    open-sft / closed-sft   SFT on (prompt, answer) pairs; open or closed prompt, same answers
    grpo-open / grpo-closed GRPO on the train tasks' open or closed prompts, reward = the judge
    sft-grpo                Closed-SFT (or --sft-checkpoint), then GRPO on closed prompts
    self-play               rounds of: write tasks from the docs, solve them open-book, keep the judged-
                            correct, train closed-book on them (sebench.train.selfplay)

The checkpoint (HF format, LoRA merged) is what the rollout backends load as it is. Heavy libraries
(torch, TRL) are imported only here, on use, and only the main process writes files under accelerate.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.train import artifacts, data
from sebench.train.config import REGIME_MODE, TrainConfig

log = logging.getLogger(__name__)

CHECKPOINT_MARKERS = ("config.json", "train_config.json")


def run(cfg: TrainConfig) -> Path:
    """Trains as `cfg` says and writes the checkpoint and its artifacts to cfg.out; returns cfg.out."""
    cfg = cfg.resolved()
    instance = Instance.open(cfg.data)
    if cfg.regime == "self-play" and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise SebenchError("self-play writes and solves tasks in-process: run it as one process, not under "
                           "`accelerate launch` with several")
    prepare_out(cfg.out, cfg.overwrite)
    started = time.time()

    import torch
    from transformers import set_seed

    from sebench.models import load_causal_lm

    set_seed(cfg.seed)
    start = cfg.sft_checkpoint if cfg.regime == "sft-grpo" and cfg.sft_checkpoint else cfg.model
    # fp32 weights (bf16 autocast on GPUs that have it); frozen LoRA base weights may stay bf16 on GPUs.
    lora_bf16 = cfg.lora and torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    dtype = torch.bfloat16 if lora_bf16 else torch.float32
    model, tokenizer = load_causal_lm(str(start), device="cpu", dtype=dtype)  # the trainer moves it to the GPU
    losses = artifacts.LossLog()
    workdir = cfg.out / "trainer"
    trained, examples, inputs, extra = _REGIMES[cfg.regime](cfg, instance, model, tokenizer, workdir, losses)

    if is_main_process():
        save_checkpoint(trained, tokenizer, cfg.out)
        data_hash = artifacts.write_examples(cfg.out / "train_data.jsonl", examples)
        losses.write(cfg.out)
        artifacts.write_json(cfg.out / "train_config.json", {
            "config": cfg.to_json(),
            "start_model": str(start),
            "seed": cfg.seed,
            "examples": len(examples),
            "data_sha256": data_hash,
            "input_sha256": artifacts.input_hashes({"manifest": instance.manifest_path, **inputs}),
            "versions": artifacts.versions(),
            "device": artifacts.device_info(),
            "seconds": round(time.time() - started, 1),
            **extra,
        })
        shutil.rmtree(workdir, ignore_errors=True)
    log.info("checkpoint written to %s (%.0f s)", cfg.out, time.time() - started)
    return cfg.out


def prepare_out(out: Path, overwrite: bool) -> None:
    """Refuses to write over an existing checkpoint unless --overwrite (then clears it first)."""
    if out.exists() and any((out / m).exists() for m in CHECKPOINT_MARKERS):
        if not overwrite:
            raise SebenchError(f"{out}: a checkpoint is already there; pass --overwrite to replace it, or choose another --out")
        if is_main_process():
            shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def is_main_process() -> bool:
    from accelerate import PartialState

    return PartialState().is_main_process


def save_checkpoint(model: Any, tokenizer: Any, out: Path) -> None:
    """HF-format weights + tokenizer, loadable by load_causal_lm and the hf backend as they are."""
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)


def _sft_pairs(cfg: TrainConfig, instance: Instance) -> tuple[list, dict]:
    tasks = data.select_tasks(instance, cfg.functions)
    if cfg.train_source == "reference":
        return data.limit(data.reference_pairs(tasks), cfg.max_examples, cfg.seed), {}
    pairs = data.rollout_pairs(tasks, cfg.rollouts, cfg.verdicts)
    return data.limit(pairs, cfg.max_examples, cfg.seed), {"rollouts": cfg.rollouts, "verdicts": cfg.verdicts}


def _sft(cfg, instance, model, tokenizer, workdir, losses):
    from sebench.train.sft import train_sft

    pairs, inputs = _sft_pairs(cfg, instance)
    examples = data.sft_examples(instance, pairs, REGIME_MODE[cfg.regime])
    model = train_sft(model, tokenizer, examples, cfg, workdir, losses, cfg.regime)
    return model, examples, inputs, {}


def _grpo(cfg, instance, model, tokenizer, workdir, losses):
    from sebench.train.grpo import train_grpo

    tasks = data.limit(data.select_tasks(instance, cfg.functions), cfg.max_examples, cfg.seed)
    prompts = data.grpo_prompts(instance, tasks, REGIME_MODE[cfg.regime])
    model = train_grpo(model, tokenizer, instance, tasks, prompts, cfg, workdir, losses, "grpo")
    return model, prompts, {}, {}


def _sft_grpo(cfg, instance, model, tokenizer, workdir, losses):
    examples, inputs = [], {}
    if cfg.sft_checkpoint is None:
        from sebench.train.sft import train_sft

        pairs, inputs = _sft_pairs(cfg, instance)
        examples = data.sft_examples(instance, pairs, "closed")
        model = train_sft(model, tokenizer, examples, cfg, workdir, losses, "closed-sft")
    model, prompts, _, _ = _grpo(cfg, instance, model, tokenizer, workdir, losses)
    return model, examples + prompts, inputs, {"sft_examples": len(examples), "grpo_prompts": len(prompts)}


def _self_play(cfg, instance, model, tokenizer, workdir, losses):
    from sebench.train.selfplay import train_self_play

    model, examples, rounds = train_self_play(model, tokenizer, instance, cfg, workdir, losses)
    return model, examples, {}, {"rounds": rounds}


_REGIMES = {
    "open-sft": _sft,
    "closed-sft": _sft,
    "grpo-open": _grpo,
    "grpo-closed": _grpo,
    "sft-grpo": _sft_grpo,
    "self-play": _self_play,
}

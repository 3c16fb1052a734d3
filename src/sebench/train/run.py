"""`sebench train`: one training run, from a TrainConfig to a checkpoint directory.

    open-sft / closed-sft   SFT on (prompt, answer) pairs; open or closed prompt, same answers
    open-rl                 GRPO sampled and trained on the open prompt, reward = the judge (rl.py, or
                            TRL's GRPOTrainer with sebench's loss: --engine trl, engine_trl.py)
    closed-rl               GRPO sampled on the open prompt, its loss on the closed prompt (the paper's)
    closed-sft-rl           Closed-SFT (or --sft-checkpoint), then closed-rl
    self-play-sft           rounds of: write tasks from the docs, solve them open-book, keep the judged-
                            correct, train closed-book on them (sebench.train.selfplay)
    self-play-rl            rounds of: write tasks, then closed-rl on them
(the regimes are defined once, in config.REGIME_SPECS; earlier names are aliases.)

The checkpoint (HF format, LoRA merged) is what the rollout backends load as it is. Heavy libraries
(torch, TRL) are imported only here, on use, and only the main process writes files under accelerate.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.provenance import versions
from sebench.threads import reset_thread_usage, thread_usage
from sebench.train import artifacts, data, resume
from sebench.train.config import TrainConfig
from sebench.train.rl import RECORD_FILES

log = logging.getLogger(__name__)

CHECKPOINT_MARKERS = ("config.json", "train_config.json")
GRPO_STAGE = "grpo"  # the stage name of a non-self-play regime's GRPO (loss.csv, rl_steps.jsonl, resume points)


def train_model(cfg: TrainConfig, extra_sft: list[dict] | None = None) -> Path:
    """Trains as `cfg` says and writes the checkpoint and its artifacts to cfg.out; returns cfg.out.
    `extra_sft`: prompt-completion examples added to an SFT regime's data (the warm-up's task-writing
    examples); they are in train_data.jsonl and its hash like the others."""
    cfg = cfg.resolved()
    instance = Instance.open(cfg.data)
    processes = int(os.environ.get("WORLD_SIZE", "1"))
    if cfg.spec.self_play and processes > 1:
        raise SebenchError("self-play writes and solves tasks in-process: run it as one process, not under "
                           "`accelerate launch` with several")
    if cfg.spec.rl:
        cfg = with_engine(cfg, processes)
    prepared = prepare(cfg, instance)
    if extra_sft:
        if not cfg.spec.sft or cfg.spec.self_play:
            raise SebenchError(f"extra SFT examples need an SFT regime, not {cfg.regime}")
        prepared.sft += extra_sft
    prepare_out(cfg.out, cfg.overwrite)
    if not cfg.spec.self_play and (cfg.engine == "trl" or not cfg.resume_every):
        resume.discard(cfg.out, RECORD_FILES)  # the own loop's GRPO resumes from its points, self-play from its rounds
    started = time.time()
    reset_thread_usage()

    import torch
    from transformers import set_seed

    from sebench.models import gpu_bf16, load_causal_lm

    set_seed(cfg.seed)
    start = cfg.sft_checkpoint if cfg.regime == "closed-sft-rl" and cfg.sft_checkpoint else cfg.model
    # fp32 weights (bf16 autocast on GPUs that have it); frozen LoRA base weights may stay bf16 on GPUs.
    dtype = torch.bfloat16 if cfg.lora and gpu_bf16() else torch.float32
    model, tokenizer = load_causal_lm(str(start), device="cpu", dtype=dtype,  # the trainer moves it to the GPU
                                      threads=cfg.threads)
    losses = artifacts.LossLog()
    workdir = cfg.out / "trainer"
    trained, examples, extra = train(cfg, instance, prepared, model, tokenizer, workdir, losses)

    with full_weights(trained):  # under ZeRO-3 every process joins in gathering what the main one saves
        if is_main_process():
            save_checkpoint(trained, tokenizer, cfg.out)
    if is_main_process():
        data_hash = artifacts.write_examples(cfg.out / "train_data.jsonl", examples)
        losses.write(cfg.out)
        artifacts.write_json(cfg.out / "train_config.json", {
            "config": cfg.to_json(),
            "start_model": str(start),
            "seed": cfg.seed,
            "examples": len(examples),
            "data_sha256": data_hash,
            "input_sha256": artifacts.input_hashes({"manifest": instance.manifest_path, **prepared.inputs}),
            "versions": versions(),
            "device": artifacts.device_info(),
            "batch": artifacts.global_batch(cfg.batch_size, cfg.grad_accum),
            "threads": thread_usage(),  # seconds at each torch CPU thread count (sebench.threads)
            "seconds": round(time.time() - started, 1),
            **extra,
        })
        shutil.rmtree(workdir, ignore_errors=True)
    log.info("checkpoint written to %s (%.0f s)", cfg.out, time.time() - started)
    return cfg.out


def with_engine(cfg: TrainConfig, processes: int) -> TrainConfig:
    """`cfg` with its GRPO engine decided (--engine auto: grpo.rl_engine) and checked before the model is loaded."""
    from sebench.train.grpo import rl_engine

    engine = rl_engine(cfg)
    if engine == "own" and processes > 1:
        raise SebenchError("the own GRPO loop runs in one process: under `accelerate launch` with several, "
                           "use --engine trl")
    if engine == "trl":
        from sebench.train.engine_trl import check

        check(cfg)
    return replace(cfg, engine=engine)


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


def full_weights(model: Any) -> Any:
    """A context in which `model`'s parameters are whole: DeepSpeed ZeRO-3 shards them over the processes
    (`sebench run --gpus N` launches full fine-tuning so), and each process must take part in gathering
    them; a model that is not sharded needs nothing."""
    sharded = [p for p in model.parameters() if hasattr(p, "ds_id")]  # DeepSpeed's mark of a ZeRO-3 parameter
    if not sharded:
        return contextlib.nullcontext()
    import deepspeed

    return deepspeed.zero.GatheredParameters(sharded, modifier_rank=None)


def save_checkpoint(model: Any, tokenizer: Any, out: Path) -> None:
    """HF-format weights + tokenizer, loadable by load_causal_lm and the hf backend as they are (the
    trainers hand back models with LoRA already merged: sft.finished_model)."""
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)


@dataclass
class Prepared:
    """What a regime trains on, built before the model is loaded (so that bad data fails fast)."""

    sft: list[dict] = field(default_factory=list)  # SFT prompt-completion examples
    rl_tasks: list = field(default_factory=list)  # the tasks GRPO prompts come from (the judge needs them)
    rl: list[dict] = field(default_factory=list)  # GRPO rows: sample_prompt, prompt (training) and task_id
    inputs: dict = field(default_factory=dict)  # input files to hash (rollouts, verdicts)


def prepare(cfg: TrainConfig, instance: Instance) -> Prepared:
    prepared = Prepared()
    spec = cfg.spec
    if spec.self_play:
        if cfg.functions:
            data.check_functions(instance, cfg.functions)
        return prepared
    original = original_prompts(cfg, instance)
    if spec.sft and not (cfg.regime == "closed-sft-rl" and cfg.sft_checkpoint):
        tasks = data.select_tasks(instance, cfg.functions)
        if cfg.train_source == "reference":
            pairs = data.reference_pairs(tasks)
        else:
            pairs = data.rollout_pairs(tasks, cfg.rollouts, cfg.verdicts, cfg.target, keep=cfg.sft_examples)
            prepared.inputs = {"rollouts": cfg.rollouts, "verdicts": cfg.verdicts}
        pairs = data.seeded_choice(pairs, cfg.max_examples, cfg.seed)
        prepared.sft = data.sft_examples(instance, pairs, spec.sft, original)
        for i, path in enumerate(cfg.mix_data or []):
            other = Instance.open(path)
            prepared.sft += mixed_examples(other, cfg.mix_share, cfg.seed, spec.sft, original_prompts(cfg, other))
            prepared.inputs[f"mix_data.{i}"] = other.manifest_path
    if spec.rl:
        prepared.rl_tasks = data.seeded_choice(data.select_tasks(instance, cfg.functions), cfg.max_examples, cfg.seed)
        prepared.rl = data.rl_prompts(instance, prepared.rl_tasks, cfg.sample_mode, spec.rl_train, original)
    return prepared


def mixed_examples(instance: Instance, share: float, seed: int, mode: str, original: Any = None) -> list[dict]:
    """`share` of another instance's training examples (reference solutions, at least one), each prompted
    with that instance's own package (`original`: the original's prompts for it, under --protocol original)."""
    pairs = data.reference_pairs(data.select_tasks(instance))
    pairs = data.seeded_choice(pairs, max(1, round(share * len(pairs))), seed)
    log.info("mixed in %d training examples of %s (package %s)", len(pairs), instance.root, instance.package_name)
    return data.sft_examples(instance, pairs, mode, original)


def original_prompts(cfg: TrainConfig, instance: Instance):
    """The original's training prompts under `--protocol original` (None: sebench's own)."""
    from sebench.protocols import get as get_protocol

    if get_protocol(cfg.protocol).prompts != "original":
        return None
    if cfg.spec.self_play:
        raise SebenchError(f"--protocol original has no self-play: the original repository trains no {cfg.regime} "
                           "(run it under --protocol sebench)")
    from sebench.rollout import OriginalTrainingPrompts

    return OriginalTrainingPrompts(instance, cfg.original_repo)


def train(cfg: TrainConfig, instance: Instance, prepared: Prepared, model: Any, tokenizer: Any, workdir: Path,
          losses: artifacts.LossLog) -> tuple[Any, list[dict], dict]:
    """Runs the regime's stages in order; returns the trained model, the examples and extra facts to record."""
    if cfg.spec.self_play:
        from sebench.train.selfplay import train_self_play

        model, examples, rounds = train_self_play(model, tokenizer, instance, cfg, workdir, losses)
        return model, examples, {"rounds": rounds}
    resuming = False
    if prepared.rl:
        prepared.rl = data.drop_long_prompts(prepared.rl, tokenizer, cfg.max_prompt_tokens)
        resuming = resume.kept_point(cfg.out, resume.stage_key(GRPO_STAGE, prepared.rl, cfg.identity()),
                                     RECORD_FILES) is not None
    if prepared.sft and not resuming:  # a GRPO resume point holds the weights after the SFT stage
        from sebench.train.sft import train_sft

        stage = "closed-sft" if cfg.regime == "closed-sft-rl" else cfg.regime
        model = train_sft(model, tokenizer, prepared.sft, cfg, workdir, losses, stage)
    if prepared.rl:
        from sebench.train.grpo import train_rl
        from sebench.train.reward import reward_judge

        with reward_judge(instance, cfg.reward, cfg.judge_workers, cfg.sandbox_url) as judge:
            model = train_rl(model, tokenizer, judge, prepared.rl_tasks, prepared.rl, cfg, losses, GRPO_STAGE)
    extra = {"sft_examples": len(prepared.sft), "grpo_prompts": len(prepared.rl)} if cfg.regime == "closed-sft-rl" else {}
    return model, prepared.sft + prepared.rl, extra

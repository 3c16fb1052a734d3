"""GRPO as the paper runs it, in a short loop of our own: sample, judge, normalise in groups, clip, step.

One sampled batch: for each of its prompts, --num-generations completions are sampled from the row's
`sample_prompt` (closed-rl: the open-book prompt, with the docs) with the rollout backend's KV-cached
`generate_tokens` (stopping at the first complete code block, as rollouts do); the judge scores them
(binary or graded reward); advantages are normalised within each prompt's group. The "old"
log-probabilities are taken before any update of the batch: by default the sampling policy's, on the
prompt it sampled from (--old-logps sampling), or the policy's on the training prompt (recompute). The
batch is then split into --mini-batches optimizer steps, each minimising the clipped surrogate
    -min(r A, clip(r, 1 - epsilon, 1 + epsilon_high) A),   r = exp(logp_new - logp_old)
on the row's training `prompt` + the same completion tokens, summed over completion tokens and divided
by the mini-batch's completion tokens, gradients clipped to norm 1; no KL term. --negative-advantages
drop gives samples with a negative advantage no gradient. Log-probabilities are those of the sampling
distribution (logits / temperature), as TRL and verl compute them. Every sample is appended to
OUT/rl_samples.jsonl with its reward, advantage and old and new log-probabilities.

Why not TRL's GRPOTrainer: it computes the old log-probabilities on the very prompt it trains on, and
closed-rl needs them from another prompt; bending it would mean overriding its generation, its
log-prob pass and its loss, which is most of it. This loop is the same on CPU and CUDA (bf16 autocast),
and on a CPU its sampling is the rollouts' fast path (KV cache, code-block stop) rather than TRL's
`generate`. It generates with transformers, never vLLM.
"""

from __future__ import annotations

import json
import logging
import math
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sebench.records import Task
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.reward import judge_rewards

log = logging.getLogger(__name__)

SAMPLES_FILE = "rl_samples.jsonl"


@dataclass
class Sample:
    """One sampled completion of a batch, as written to OUT/rl_samples.jsonl."""

    stage: str
    batch: int
    task_id: str
    sample_mode: str
    train_mode: str
    completion_ids: list[int]
    completion: str
    reward: float
    advantage: float
    old_logp: float = 0.0  # summed over the completion tokens: the "old" policy (see --old-logps)
    new_logp: float = 0.0  # summed: the policy being updated, on the training prompt, before its step


def train_rl(model: Any, tokenizer: Any, judge: Any, tasks: list[Task], rows: list[dict], cfg: TrainConfig,
             losses: LossLog, stage: str, seed: int | None = None) -> Any:
    """Trains `model` with GRPO on `rows` (from data.rl_prompts); returns the model, LoRA merged."""
    import torch
    from transformers import get_scheduler

    from sebench.train.sft import peft_config

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    if cfg.lora:
        from peft import get_peft_model

        model = get_peft_model(model, peft_config(cfg))
    if cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    seed = cfg.seed if seed is None else seed
    per_batch = cfg.batch_size * cfg.grad_accum // cfg.num_generations
    batches = _batch_count(cfg, len(rows), per_batch)
    steps = batches * cfg.mini_batches if not cfg.max_steps else cfg.max_steps
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, betas=(cfg.adam_beta1, cfg.adam_beta2),
                                  weight_decay=cfg.weight_decay)
    scheduler = get_scheduler(cfg.lr_scheduler, optimizer, num_warmup_steps=int(cfg.warmup_ratio * steps),
                              num_training_steps=steps)
    by_id = {t.task_id: t for t in tasks}
    order = _prompt_order(len(rows), seed)
    log.info("%s: %d prompts, %d batches of %d prompts x %d samples, %d steps, clip [%g, %g], old logps: %s, "
             "negative advantages: %s", stage, len(rows), batches, per_batch, cfg.num_generations, steps,
             cfg.epsilon, cfg.epsilon_high, cfg.old_logps, cfg.negative_advantages)
    step = 0
    for b in range(batches):
        batch_rows = [rows[next(order)] for _ in range(per_batch)]
        samples, tensors = _sample_batch(model, tokenizer, judge, by_id, batch_rows, cfg, stage, b + 1, seed + b)
        for chunk in _split(list(range(len(samples))), cfg.mini_batches):
            if step == steps:
                break
            step += 1
            loss = _update(model, optimizer, [samples[i] for i in chunk], [tensors[i] for i in chunk], cfg,
                           _pad_id(model, tokenizer))
            scheduler.step()
            losses.add(stage, step, loss, scheduler.get_last_lr()[0],
                       reward=sum(s.reward for s in samples) / len(samples),
                       epoch=round((b + 1) * per_batch / len(rows), 3))
        _append(cfg.out / SAMPLES_FILE, samples)
    losses.end_stage(step)
    model.eval()
    if hasattr(model, "merge_and_unload"):  # a PeftModel
        model = model.merge_and_unload()
    return model.to("cpu")


def _batch_count(cfg: TrainConfig, prompts: int, per_batch: int) -> int:
    if cfg.max_steps:
        return math.ceil(cfg.max_steps / cfg.mini_batches)
    return max(1, math.ceil(cfg.epochs * prompts / per_batch))


def _prompt_order(n: int, seed: int):
    """Prompt indices forever: a seeded shuffle per pass."""
    rng = random.Random(seed)
    while True:
        order = list(range(n))
        rng.shuffle(order)
        yield from order


def _split(items: list, parts: int) -> list[list]:
    size = math.ceil(len(items) / parts)
    return [items[i:i + size] for i in range(0, len(items), size)]


@dataclass
class _Tensors:
    """Token ids of one sample: the prompt it was sampled from, the training prompt and the completion."""

    sample_prompt: list[int]
    train_prompt: list[int]
    completion: list[int]
    old_logps: Any = None  # per completion token


def _sample_batch(model: Any, tokenizer: Any, judge: Any, tasks: dict[str, Task], rows: list[dict],
                  cfg: TrainConfig, stage: str, batch: int, seed: int) -> tuple[list[Sample], list[_Tensors]]:
    """Samples, judges and scores one batch; fills in advantages and the old log-probabilities."""
    import torch

    from sebench.rollout.backends import hf

    model.eval()
    g = cfg.num_generations
    eos, pad = hf.eos_ids(model, tokenizer), _pad_id(model, tokenizer)
    tensors = []
    for row in rows:
        sample_ids, train_ids = _prompt_ids(tokenizer, row["sample_prompt"]), _prompt_ids(tokenizer, row["prompt"])
        tensors += [_Tensors(sample_ids, train_ids, []) for _ in range(g)]
    torch.manual_seed(seed)
    generated = []
    chunk = cfg.generation_batch or len(tensors)
    for start in range(0, len(tensors), chunk):
        stops = [hf.RowStop(tokenizer, None, True) for _ in tensors[start:start + chunk]]
        generated += hf.generate_tokens(model, [t.sample_prompt for t in tensors[start:start + chunk]],
                                        cfg.max_completion_length, eos, pad, cfg.temperature, 1.0,
                                        should_stop=lambda r, token, stops=stops: stops[r].add(token))
    texts = []
    for t, tokens in zip(tensors, generated):
        t.completion = tokens
        texts.append(tokenizer.decode(tokens, skip_special_tokens=True))
    row_of = [row for row in rows for _ in range(g)]
    rewards = judge_rewards(judge, [(tasks[r["task_id"]], text) for r, text in zip(row_of, texts)],
                            cfg.reward == "graded")
    advantages = _group_advantages(rewards, g)
    old_prompts = [t.sample_prompt if cfg.old_logps == "sampling" else t.train_prompt for t in tensors]
    with torch.no_grad():
        for i in range(0, len(tensors), cfg.batch_size):
            part = tensors[i:i + cfg.batch_size]
            logps, mask = token_logps(model, old_prompts[i:i + cfg.batch_size], [t.completion for t in part],
                                      cfg.temperature, pad)
            for j, t in enumerate(part):
                t.old_logps = logps[j][mask[j]].detach()
    samples = [
        Sample(stage, batch, r["task_id"], r["sample_mode"], r["train_mode"], t.completion, text, reward, adv,
               old_logp=float(t.old_logps.sum()))
        for r, t, text, reward, adv in zip(row_of, tensors, texts, rewards, advantages)
    ]
    return samples, tensors


def _pad_id(model: Any, tokenizer: Any) -> int:
    from sebench.rollout.backends import hf

    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else hf.eos_ids(model, tokenizer)[0]


def _prompt_ids(tokenizer: Any, messages: list[dict]) -> list[int]:
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def _group_advantages(rewards: list[float], group: int) -> list[float]:
    """(reward - group mean) / (group std + 1e-4), per group of consecutive samples (GRPO's)."""
    out = []
    for i in range(0, len(rewards), group):
        chunk = rewards[i:i + group]
        mean = sum(chunk) / len(chunk)
        std = math.sqrt(sum((r - mean) ** 2 for r in chunk) / max(1, len(chunk) - 1))
        out += [(r - mean) / (std + 1e-4) for r in chunk]
    return out


def token_logps(model: Any, prompts: list[list[int]], completions: list[list[int]], temperature: float,
                pad_id: int) -> tuple[Any, Any]:
    """Log-probabilities of each completion token after its prompt, at `temperature` (the sampling
    distribution), and the mask of real tokens: rows are [left-padded prompt | completion | right padding],
    so every completion starts in the same column and the LM head runs only from there."""
    import torch

    device = next(model.parameters()).device
    width_p = max(len(p) for p in prompts)
    width_c = max(1, max(len(c) for c in completions))
    shape = (len(prompts), width_p + width_c)
    ids = torch.full(shape, pad_id, dtype=torch.long)
    attention = torch.zeros(shape, dtype=torch.long)
    for i, (p, c) in enumerate(zip(prompts, completions)):
        ids[i, width_p - len(p):width_p + len(c)] = torch.tensor(p + c, dtype=torch.long)
        attention[i, width_p - len(p):width_p + len(c)] = 1
    positions = (attention.cumsum(dim=1) - 1).clamp(min=0)
    ids, attention, positions = ids.to(device), attention.to(device), positions.to(device)
    with _autocast(device):
        logits = model(input_ids=ids, attention_mask=attention, position_ids=positions, use_cache=False,
                       logits_to_keep=width_c + 1).logits[:, :-1]
    logits = logits.float() / (temperature if temperature > 0 else 1.0)
    targets = ids[:, width_p:]
    logps = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)
    return logps, attention[:, width_p:].bool()


def _autocast(device: Any):
    import contextlib

    import torch

    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _update(model: Any, optimizer: Any, samples: list[Sample], tensors: list[_Tensors], cfg: TrainConfig,
            pad: int) -> float:
    """One optimizer step on a mini-batch: the clipped surrogate on the training prompts; returns the loss."""
    import torch

    model.train()
    optimizer.zero_grad(set_to_none=True)
    total_tokens = max(1, sum(len(t.completion) for t in tensors))
    total = 0.0
    for i in range(0, len(tensors), cfg.batch_size):
        part, part_samples = tensors[i:i + cfg.batch_size], samples[i:i + cfg.batch_size]
        logps, mask = token_logps(model, [t.train_prompt for t in part], [t.completion for t in part],
                                  cfg.temperature, pad)
        loss = logps.new_zeros(())
        for j, (t, s) in enumerate(zip(part, part_samples)):
            new = logps[j][mask[j]]
            s.new_logp = float(new.detach().sum())
            if cfg.negative_advantages == "drop" and s.advantage < 0:
                continue
            ratio = torch.exp(new - t.old_logps.to(new.device))
            clipped = ratio.clamp(1 - cfg.epsilon, 1 + cfg.epsilon_high)
            loss = loss - torch.minimum(ratio * s.advantage, clipped * s.advantage).sum()
        loss = loss / total_tokens
        if loss.requires_grad:
            loss.backward()
        total += float(loss.detach())
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return total


def _append(path: Path, samples: list[Sample]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for s in samples:
            handle.write(json.dumps(asdict(s)) + "\n")

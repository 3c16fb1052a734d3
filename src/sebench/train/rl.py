"""GRPO as the original trains it, in a short loop of our own: sample, score, normalise in groups, step.

One sampled batch: for each of its prompts, --num-generations completions are sampled from the row's
`sample_prompt` (closed-rl: the open-book prompt, with the docs) with the rollout backend's KV-cached
`generate_tokens`, up to the first complete code block or to the end of the sequence (--sample-until);
the reward rule scores them (train/reward.py); advantages are GRPO's, per group (train/loss.py). The
batch is then split into --mini-batches optimizer steps, each on the row's training `prompt` + the same
completion tokens, with the loss of train/loss.py (PPO clip, dual clip, log-ratio clamp, per-sample token
mean), gradients clipped to norm 1, no KL term. Prompts are read in epochs, shuffled or in order
(--rl-order), the last incomplete batch of an epoch dropped (as verl's data loader does).

The "old" log-probabilities of the ratio (--old-logps):
  recompute (the default, the original's: verl_evolve/verl/trainer/offline_ray_trainer.py recomputes
            them on the training batch, the closed prompt + the response): the policy's, on the training
            prompt, before the batch's first update. With one mini-batch the step is on-policy, and the
            old log-probabilities are the current ones detached (verl/workers/actor/dp_actor.py): the ratio
            is exactly 1 and the clips never act;
  sampling: the sampling policy's, on the prompt it sampled from: an off-policy variant (for closed-rl,
            importance-weighted against the open-prompt policy), not the original's rule.

Every sample is appended to OUT/rl_samples.jsonl with its reward, advantage, and three summed
log-probabilities: old_logp and new_logp (the ratio's two sides at its update; equal on an on-policy step),
and sample_logp, the completion's log-probability on the prompt it was sampled from before the batch's
updates (closed-rl: new_logp - sample_logp says how much less likely the closed prompt makes the
answer). OUT/rl_steps.jsonl has a row per update; with --grad-split, the gradient norms of the positive-
and negative-advantage samples and their cosine. Log-probabilities are those of the sampling distribution
(logits / temperature), as verl and TRL compute them.

This loop samples with the rollouts' fast path on a CPU (KV cache, a row leaves the batch when it ends);
on GPUs at the paper's scale, --engine trl runs the same regimes, loss, advantages and reward on TRL's
GRPOTrainer, with vLLM sampling and several processes (engine_trl.py, docs/architecture.md).
"""

from __future__ import annotations

import json
import logging
import math
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sebench.models import mixed_precision, resolve_device
from sebench.records import Task
from sebench.train import resume
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.loss import LossSettings, Normaliser, group_advantages, row_losses
from sebench.train.reward import judge_rewards

log = logging.getLogger(__name__)

SAMPLES_FILE = "rl_samples.jsonl"
STEPS_FILE = "rl_steps.jsonl"
RECORD_FILES = (SAMPLES_FILE, STEPS_FILE)


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
    old_logp: float = 0.0  # summed over the completion tokens: the ratio's "old" side (see --old-logps)
    new_logp: float = 0.0  # summed: the policy being updated, on the training prompt, at its update
    sample_logp: float = 0.0  # summed: on the prompt it was sampled from, before the batch's updates


def train_rl_own(model: Any, tokenizer: Any, judge: Any, tasks: list[Task], rows: list[dict], cfg: TrainConfig,
                 losses: LossLog, stage: str, seed: int | None = None) -> Any:
    """Trains `model` with GRPO on `rows` (from data.rl_prompts) in this loop; returns the model, LoRA merged."""
    import torch
    from transformers import get_scheduler

    from sebench.train.sft import peft_config

    device = torch.device(resolve_device(None))
    model.to(device)
    if cfg.lora:
        from peft import get_peft_model

        model = get_peft_model(model, peft_config(cfg))
    if cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    seed = cfg.seed if seed is None else seed
    per_batch = cfg.batch_size * cfg.grad_accum // cfg.num_generations
    plan = batch_plan(len(rows), per_batch, cfg, seed)
    steps = cfg.max_steps or len(plan) * cfg.mini_batches
    params = [p for p in model.parameters() if p.requires_grad]
    weight_decay, beta2 = cfg.optimizer("rl")
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, betas=(cfg.adam_beta1, beta2), weight_decay=weight_decay)
    scheduler = get_scheduler(cfg.lr_scheduler, optimizer, num_warmup_steps=int(cfg.warmup_ratio * steps),
                              num_training_steps=steps)
    by_id = {t.task_id: t for t in tasks}
    on_policy = cfg.old_logps == "recompute" and cfg.mini_batches == 1
    log.info("%s: %d prompts (%s), %d batches of %d prompts x %d samples, %d steps, old logps: %s%s, clip "
             "[%g, %g], dual clip %g, loss %s, negative advantages: %s", stage, len(rows), cfg.rl_order, len(plan),
             per_batch, cfg.num_generations, steps, cfg.old_logps, " (on-policy: ratio 1)" if on_policy else "",
             cfg.epsilon, cfg.epsilon_high, cfg.dual_clip, cfg.loss_agg, cfg.negative_advantages)
    settings, pad = LossSettings.of(cfg), _pad_id(model, tokenizer)
    key = resume.stage_key(stage, rows, cfg.identity())
    point = resume.restore(cfg.out, key, model, optimizer, scheduler)
    step, done = (point.step, point.batches) if point else (0, 0)
    saved = step
    if point:
        losses.restore(point.loss_rows, point.loss_offset)
    for b, indices in enumerate(plan):
        if b < done:  # sampled and trained before the resume point
            continue
        batch_rows = [rows[i] for i in indices]
        samples, tensors = _sample_batch(model, tokenizer, judge, by_id, batch_rows, cfg, stage, b + 1, seed + b,
                                         on_policy)
        for chunk in _split(list(range(len(samples))), cfg.mini_batches):
            if step == steps:
                break
            step += 1
            stats = _update(model, optimizer, [samples[i] for i in chunk], [tensors[i] for i in chunk], cfg,
                            settings, pad, on_policy)
            scheduler.step()
            reward = sum(s.reward for s in samples) / len(samples)
            losses.add(stage, step, stats["loss"], scheduler.get_last_lr()[0], reward=reward,
                       epoch=round((b + 1) * per_batch / len(rows), 3))
            append_rows(cfg.out / STEPS_FILE, [{"stage": stage, "step": step, "batch": b + 1, "reward": reward, **stats}])
        append_rows(cfg.out / SAMPLES_FILE, [asdict(s) for s in samples])
        if cfg.resume_every and step < steps and step - saved >= cfg.resume_every:
            resume.save(cfg.out, resume.ResumePoint(key, step, b + 1, dict.fromkeys(RECORD_FILES, 0),
                                                    *losses.snapshot()), model, optimizer, scheduler)
            saved = step
    losses.end_stage(step)
    model.eval()
    if hasattr(model, "merge_and_unload"):  # a PeftModel
        model = model.merge_and_unload()
    return model.to("cpu")


def batch_plan(prompts: int, per_batch: int, cfg: TrainConfig, seed: int) -> list[list[int]]:
    """The prompt indices of each sampled batch: epochs of the prompts (a seeded shuffle per epoch, or in
    order: --rl-order), cut into batches of `per_batch`, an epoch's incomplete last batch dropped; as many
    batches as --max-steps needs, else --epochs' worth (at least one)."""
    from sebench.errors import SebenchError

    per_epoch = prompts // per_batch
    if per_epoch == 0:
        raise SebenchError(f"GRPO needs at least one batch of {per_batch} prompts (--batch-size x --grad-accum / "
                           f"--num-generations) and has {prompts}")
    wanted = math.ceil(cfg.max_steps / cfg.mini_batches) if cfg.max_steps else max(1, round(cfg.epochs * per_epoch))
    rng, plan = random.Random(seed), []
    while len(plan) < wanted:
        order = list(range(prompts))
        if cfg.rl_order == "shuffled":
            rng.shuffle(order)
        plan += [order[i:i + per_batch] for i in range(0, per_epoch * per_batch, per_batch)]
    return plan[:wanted]


def _split(items: list, parts: int) -> list[list]:
    size = math.ceil(len(items) / parts)
    return [items[i:i + size] for i in range(0, len(items), size)]


@dataclass
class _Tensors:
    """Token ids of one sample: the prompt it was sampled from, the training prompt and the completion."""

    sample_prompt: list[int]
    train_prompt: list[int]
    completion: list[int]
    old_logps: Any = None  # per completion token; None on an on-policy step (the current ones are used)


def _sample_batch(model: Any, tokenizer: Any, judge: Any, tasks: dict[str, Task], rows: list[dict],
                  cfg: TrainConfig, stage: str, batch: int, seed: int,
                  on_policy: bool) -> tuple[list[Sample], list[_Tensors]]:
    """Samples and scores one batch; fills in advantages and the log-probabilities before any update."""
    import torch

    from sebench.rollout import chat_prompt_ids, eos_ids, generate_tokens

    model.eval()
    g = cfg.num_generations
    eos, pad = eos_ids(model, tokenizer), _pad_id(model, tokenizer)
    tensors = []
    for row in rows:
        sample_ids = chat_prompt_ids(tokenizer, row["sample_prompt"])
        train_ids = chat_prompt_ids(tokenizer, row["prompt"])
        tensors += [_Tensors(sample_ids, train_ids, []) for _ in range(g)]
    torch.manual_seed(seed)
    generated = []
    chunk = cfg.generation_batch or len(tensors)
    for start in range(0, len(tensors), chunk):
        part = tensors[start:start + chunk]
        stop = _code_block_stop(tokenizer, len(part)) if cfg.sample_until == "code-block" else None
        generated += generate_tokens(model, [t.sample_prompt for t in part], cfg.max_completion_length, eos, pad,
                                        cfg.temperature, 1.0, should_stop=stop)
    texts = []
    for t, tokens in zip(tensors, generated):
        t.completion = tokens
        texts.append(tokenizer.decode(tokens, skip_special_tokens=True))
    row_of = [row for row in rows for _ in range(g)]
    rewards = judge_rewards(judge, [(tasks[r["task_id"]], text) for r, text in zip(row_of, texts)], cfg.reward)
    advantages = group_advantages(rewards, g)
    sampled = _logps_before(model, [t.sample_prompt for t in tensors], tensors, cfg, pad)
    if cfg.old_logps == "sampling":
        olds = sampled
    elif on_policy:
        olds = [None] * len(tensors)
    elif all(t.sample_prompt == t.train_prompt for t in tensors):
        olds = sampled
    else:
        olds = _logps_before(model, [t.train_prompt for t in tensors], tensors, cfg, pad)
    for t, old in zip(tensors, olds):
        t.old_logps = old
    samples = [
        Sample(stage, batch, r["task_id"], r["sample_mode"], r["train_mode"], t.completion, text, reward, adv,
               old_logp=float(t.old_logps.sum()) if t.old_logps is not None else 0.0, sample_logp=float(s.sum()))
        for r, t, text, reward, adv, s in zip(row_of, tensors, texts, rewards, advantages, sampled)
    ]
    return samples, tensors


def _code_block_stop(tokenizer: Any, rows: int):
    """generate_tokens' stop check: a row ends at its first complete code block (what the judge reads)."""
    from sebench.rollout import RowStop

    stops = [RowStop(tokenizer, None, True) for _ in range(rows)]
    return lambda row, token: stops[row].add(token)


def _logps_before(model: Any, prompts: list[list[int]], tensors: list[_Tensors], cfg: TrainConfig,
                  pad: int) -> list[Any]:
    """Each completion's per-token log-probabilities after `prompts`, by the model as it is (no gradient)."""
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(tensors), cfg.batch_size):
            part = tensors[i:i + cfg.batch_size]
            logps, mask = token_logps(model, prompts[i:i + cfg.batch_size], [t.completion for t in part],
                                      cfg.temperature, pad)
            out += [logps[j][mask[j]].detach() for j in range(len(part))]
    return out


def _pad_id(model: Any, tokenizer: Any) -> int:
    from sebench.rollout import eos_ids

    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos_ids(model, tokenizer)[0]


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
    with mixed_precision(str(device)):
        logits = model(input_ids=ids, attention_mask=attention, position_ids=positions, use_cache=False,
                       logits_to_keep=width_c + 1).logits[:, :-1]
    logits = logits.float() / (temperature if temperature > 0 else 1.0)
    targets = ids[:, width_p:]
    logps = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)
    return logps, attention[:, width_p:].bool()


def _update(model: Any, optimizer: Any, samples: list[Sample], tensors: list[_Tensors], cfg: TrainConfig,
            settings: LossSettings, pad: int, on_policy: bool) -> dict:
    """One optimizer step on a mini-batch, computed `cfg.batch_size` rows at a time; returns its stats."""
    import torch

    model.train()
    optimizer.zero_grad(set_to_none=True)
    params = [p for p in model.parameters() if p.requires_grad]
    norm = Normaliser(samples=len(tensors), tokens=sum(len(t.completion) for t in tensors))
    split = _GradSplit(params) if cfg.grad_split else None
    total = 0.0
    for i in range(0, len(tensors), cfg.batch_size):
        part, part_samples = tensors[i:i + cfg.batch_size], samples[i:i + cfg.batch_size]
        logps, mask = token_logps(model, [t.train_prompt for t in part], [t.completion for t in part],
                                  cfg.temperature, pad)
        old = logps.detach() if on_policy else _padded([t.old_logps for t in part], logps)
        advantages = torch.tensor([s.advantage for s in part_samples], dtype=logps.dtype, device=logps.device)
        rows = row_losses(logps, old, advantages, mask.to(logps.dtype), settings, norm)
        for j, s in enumerate(part_samples):
            s.new_logp = float(logps[j][mask[j]].detach().sum())
            s.old_logp = float(old[j][mask[j]].sum())
        if split is not None:
            split.backward(rows, advantages)
        elif rows.requires_grad:
            rows.sum().backward()
        total += float(rows.detach().sum())
    stats = split.finish() if split is not None else {}
    grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
    return {"loss": total, "grad_norm": float(grad_norm), "samples": len(samples),
            "positive": sum(s.advantage > 0 for s in samples), "negative": sum(s.advantage < 0 for s in samples),
            **stats}


def _padded(per_row: list[Any], like: Any) -> Any:
    """Per-row 1-D tensors as one [rows, columns] tensor shaped like `like` (zeros beyond each row)."""
    out = like.detach().new_zeros(like.shape)
    for j, values in enumerate(per_row):
        out[j, :len(values)] = values.to(out.device)
    return out


class _GradSplit:
    """Backpropagates the positive- and negative-advantage samples' losses apart, keeps the two gradients,
    and on finish leaves their sum as the parameters' gradient (the same as one backward of the whole)."""

    def __init__(self, params: list[Any]):
        self.params = params
        self.parts: dict[str, list[Any]] = {}

    def backward(self, rows: Any, advantages: Any) -> None:
        for name, chosen in (("positive", advantages > 0), ("negative", advantages < 0)):
            if not bool(chosen.any()) or not rows.requires_grad:
                continue
            (rows * chosen).sum().backward(retain_graph=True)
            grads = [p.grad.detach().clone() if p.grad is not None else None for p in self.params]
            kept = self.parts.setdefault(name, [None] * len(self.params))
            self.parts[name] = [g if k is None else (k if g is None else k + g) for k, g in zip(kept, grads)]
            for p in self.params:
                p.grad = None

    def finish(self) -> dict:
        import torch

        def flat(grads: list[Any] | None) -> Any:
            chunks = [g.reshape(-1) for g in grads or [] if g is not None]
            return torch.cat(chunks) if chunks else torch.zeros(1)

        pos, neg = flat(self.parts.get("positive")), flat(self.parts.get("negative"))
        n_pos, n_neg = float(pos.norm()), float(neg.norm())
        cosine = float(pos @ neg) / (n_pos * n_neg) if n_pos and n_neg and len(pos) == len(neg) else None
        for i, p in enumerate(self.params):
            got = [part[i] for part in self.parts.values() if part[i] is not None]
            p.grad = sum(got[1:], got[0]) if got else None
        return {"grad_norm_positive": n_pos, "grad_norm_negative": n_neg, "grad_cosine": cosine}


def append_rows(path: Path, rows: list[dict]) -> None:
    """Appends `rows` to the JSONL file `path` (rl_samples.jsonl, rl_steps.jsonl)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")

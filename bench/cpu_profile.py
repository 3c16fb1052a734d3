"""Where a CPU step goes: the project's SFT step, batched generation and GRPO step beside raw PyTorch.

    PYTHONPATH=src flock /tmp/sebench-heavy.lock python bench/cpu_profile.py [--quick] [--threads 2] [--gen-threads 1]
    PYTHONPATH=src python bench/cpu_profile.py --sections grpo --threads 1 --grpo-steps 1 --rl-baseline da17aad

One process, one loaded model (the embedded SmolLM2-135M unless --model), a small real instance built
in a temporary folder (or --instance), its closed-book prompts and reference answers:

- SFT: `sebench.train.sft.sft_trainer` for warm-up + N steps, then a plain PyTorch loop (backbone,
  LM head on the answer columns, cross-entropy, backward, AdamW) over the very batches the project's
  collator made. Phases: collation, backbone forward, LM head, loss + backward, optimizer, and the
  rest of the trainer's step (TRL overhead).
- Generation: `HFBackend.generate` on closed-book prompts (greedy, --gen-tokens), then transformers'
  `generate` on the same prompts in one left-padded batch with no stop but end-of-turn.
- GRPO: `sebench.train.rl.train_rl_own` (the project's GRPO loop, the judge as reward) for warm-up + N
  steps of one prompt x 4 samples x 160 tokens, then a raw step: sampled `generate`, completion
  log-probabilities, policy-gradient loss, backward, AdamW. Phases: generation, judging, loss + backward +
  optimizer, the rest. With --rl-baseline REV, the GRPO loop of git revision REV (its rl.py, loaded beside
  today's) runs instead of the raw step, the same steps from the same weights and seeds, twice each in the
  order REV, today, today, REV (a drifting machine load falls on both), so that a change of the loop's rule
  is priced: both sample the same tokens, and the ratio is the cost of the code.

Prints seconds per phase and the project/raw ratios, tokens per second, and each section's peak
resident memory (VmHWM, reset per section on Linux). Run it with nothing else heavy on the machine:
the two paths of a section run back to back in the same process, so their ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from sebench.process_memory import peak_rss_mb, release_memory, reset_peak_rss


class Phases:
    """Seconds per named phase, accumulated, with a per-step view."""

    def __init__(self):
        self.total: dict[str, float] = defaultdict(float)

    @contextlib.contextmanager
    def timed(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.total[name] += time.perf_counter() - t0

    def per_step(self, steps: int) -> dict[str, float]:
        return {k: v / steps for k, v in self.total.items()}


def module_timer(module, phases: Phases, name: str, active=lambda: True):
    """Forward hooks adding the module's forward time to `phases[name]` (while `active()`)."""
    starts = []

    def pre(_m, _a):
        starts.append(time.perf_counter())

    def post(_m, _a, _o):
        t0 = starts.pop()
        if active():
            phases.total[name] += time.perf_counter() - t0

    return [module.register_forward_pre_hook(pre), module.register_forward_hook(post)]


def trainer_timer(phases: Phases, forward_names: tuple[str, ...], warmup: int):
    """A TrainerCallback that splits each step after `warmup` into loss+backward, optimizer and the rest."""
    from transformers import TrainerCallback

    class Timer(TrainerCallback):
        def __init__(self):
            self.marks: dict[str, float] = {}
            self.before: dict[str, float] = {}
            self.steps = 0

        def on_step_begin(self, args, state, control, **kw):
            self.before = dict(phases.total)
            self.marks["begin"] = time.perf_counter()

        def on_pre_optimizer_step(self, args, state, control, **kw):
            self.marks["pre_opt"] = time.perf_counter()

        def on_optimizer_step(self, args, state, control, **kw):
            self.marks["opt"] = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            end = time.perf_counter()
            if state.global_step <= warmup:  # the warm-up step's phases are dropped
                phases.total.clear()
                self.last_end = end
                return
            inside = sum(phases.total.get(n, 0.0) - self.before.get(n, 0.0) for n in forward_names)
            phases.total["loss + backward"] += self.marks["pre_opt"] - self.marks["begin"] - inside
            phases.total["optimizer"] += self.marks["opt"] - self.marks["pre_opt"]
            phases.total["step (wall)"] += end - self.last_end
            self.last_end = end
            self.steps += 1

    return Timer()


# ---- data ----------------------------------------------------------------------------------------------


def open_instance(path: str | None, folder: Path):
    from sebench.instance import Instance

    if path:
        return Instance.open(Path(path))
    from sebench.builder.run import build_instance
    from sebench.tasks.generate import TaskSizes

    print("building a small instance (about 30 s)")
    return Instance.open(build_instance(folder / "instance", 0, task_sizes=TaskSizes(train=40, single=16, multiple=4),
                                       audit=False))


def sft_examples(instance, count: int) -> list[dict]:
    from sebench.train import data

    pairs = data.reference_pairs(data.select_tasks(instance))
    pairs = (pairs * (count // len(pairs) + 1))[:count]
    return data.sft_examples(instance, pairs, "closed")


# ---- SFT -----------------------------------------------------------------------------------------------


def project_sft(model, tokenizer, examples, batch_size, steps, folder) -> tuple[Phases, list[dict], int]:
    from sebench.train.artifacts import LossLog
    from sebench.train.config import TrainConfig
    from sebench.train.sft import sft_trainer

    cfg = TrainConfig(data=folder, regime="closed-sft", out=folder, max_steps=steps + 1, batch_size=batch_size,
                      lr=2e-4)
    phases = Phases()
    timer = trainer_timer(phases, ("backbone forward", "LM head"), warmup=1)
    trainer = sft_trainer(model, tokenizer, examples, cfg, folder / "trainer", [LossLog().callback("sft"), timer])
    trainer.args.disable_tqdm = True
    batches: list[dict] = []
    collate = trainer.data_collator

    def timed_collate(rows):
        with phases.timed("collation"):
            batch = collate(rows)
        batches.append(batch)
        return batch

    trainer.data_collator = timed_collate
    hooks = module_timer(model.get_decoder(), phases, "backbone forward")
    hooks += module_timer(model.get_output_embeddings(), phases, "LM head")
    trainer.train()
    for h in hooks:
        h.remove()
    phases.total["TRL overhead"] = phases.total["step (wall)"] - sum(
        v for k, v in phases.total.items() if k != "step (wall)")
    return phases, batches[1:steps + 1], timer.steps


def raw_batch(batch: dict) -> dict:
    """A batch as plain tensors: left-padded ids, mask, positions, labels (-100 off the answer)."""
    return {k: batch[k] for k in ("input_ids", "attention_mask", "position_ids", "labels") if k in batch}


def raw_sft(model, batches: list[dict]) -> Phases:
    """The plain loop on the same batches: LM head on the answer columns, mean cross-entropy, AdamW."""
    import torch
    import torch.nn.functional as F

    phases = Phases()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    model.train()
    for k, batch in enumerate([batches[0], *batches]):  # the first is a warm-up
        if k == 1:
            phases.total.clear()
        t0 = time.perf_counter()
        labels = batch["labels"]
        first = int((labels != -100).any(dim=0).nonzero()[0])
        with phases.timed("backbone forward"):
            hidden = model.get_decoder()(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                         position_ids=batch.get("position_ids"), use_cache=False).last_hidden_state
        with phases.timed("LM head"):
            logits = model.get_output_embeddings()(hidden[:, first - 1:-1])
        with phases.timed("loss + backward"):
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels[:, first:].reshape(-1), ignore_index=-100)
            loss.backward()
        with phases.timed("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        phases.total["step (wall)"] += time.perf_counter() - t0
    model.eval()
    return phases


# ---- generation ----------------------------------------------------------------------------------------


def gen_prompts(instance, tokenizer, count: int) -> list[list[dict]]:
    from sebench.rollout.prompts import PromptBuilder

    builder = PromptBuilder(instance, "closed")
    tasks = [t for t in instance.tasks("single_test") if t.is_valid]
    tasks = (tasks * (count // len(tasks) + 1))[:count]
    return [builder.messages(t) for t in tasks]


def project_generation(model, tokenizer, prompts, max_tokens, threads) -> tuple[float, int, list[int]]:
    from sebench.rollout.backends import GenerationRequest
    from sebench.rollout.backends.hf import HFBackend

    backend = HFBackend("bench", model=model, tokenizer=tokenizer, batch_size=len(prompts), threads=threads)
    requests = [GenerationRequest(messages=m, max_tokens=max_tokens, temperature=0.0) for m in prompts]
    t0 = time.perf_counter()
    out = backend.generate(requests)
    seconds = time.perf_counter() - t0
    return seconds, sum(c[0].completion_tokens for c in out), [c[0].completion_tokens for c in out]


def raw_generation(model, tokenizer, prompts, max_tokens) -> tuple[float, int]:
    import torch

    texts = [tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m in prompts]
    tokenizer.padding_side = "left"
    enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    t0 = time.perf_counter()
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_tokens, do_sample=False,
                             eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    seconds = time.perf_counter() - t0
    new = out[:, enc["input_ids"].shape[1]:]
    ended = (new == tokenizer.eos_token_id).int().cumsum(dim=1)
    tokens = int(((ended == 0) | ((ended == 1) & (new == tokenizer.eos_token_id))).sum())
    return seconds, tokens


# ---- GRPO ----------------------------------------------------------------------------------------------


def rl_at(rev: str):
    """sebench.train.rl as it was at git revision `rev`, loaded beside today's (same package, same helpers)."""
    import subprocess
    import sys
    import types

    repo = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "show", f"{rev}:src/sebench/train/rl.py"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout
    module = types.ModuleType(f"sebench.train.rl_at_{rev}")
    module.__file__ = f"{rev}:src/sebench/train/rl.py"
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def project_grpo(model, tokenizer, instance, steps, samples, completion_tokens, folder,
                 rl=None) -> tuple[Phases, int]:
    from sebench.judge import Judge
    from sebench.rollout.backends import hf
    from sebench.train import data
    from sebench.train import rl as today
    from sebench.train.artifacts import LossLog
    from sebench.train.config import TrainConfig

    rl = rl or today

    tasks = data.select_tasks(instance)[: steps + 1]
    cfg = TrainConfig(data=folder, regime="closed-rl", sample_mode="closed", out=folder, max_steps=steps + 1,
                      batch_size=samples, num_generations=samples, max_completion_length=completion_tokens,
                      lr=2e-4).resolved()
    phases = Phases()
    originals = {"generate_tokens": (hf, hf.generate_tokens), "judge_rewards": (rl, rl.judge_rewards),
                 "_update": (rl, rl._update)}
    state = {"updates": 0, "since": 0.0}

    def timed(name, fn):
        def call(*a, **kw):
            with phases.timed(name):
                out = fn(*a, **kw)
            if fn is originals["_update"][1]:
                state["updates"] += 1
                if state["updates"] == 1:  # the first step is the warm-up
                    phases.total.clear()
                    state["since"] = time.perf_counter()
            return out

        return call

    for (attr, (owner, fn)), name in zip(originals.items(), ("generation", "judging", "loss + backward + optimizer")):
        setattr(owner, attr, timed(name, fn))
    try:
        with Judge(instance) as judge:
            own_loop = getattr(rl, "train_rl_own", None) or rl.train_rl  # older revisions: train_rl
            own_loop(model, tokenizer, judge, tasks, data.rl_prompts(instance, tasks, "closed", "closed"), cfg,
                        LossLog(), "grpo")
    finally:
        for attr, (owner, fn) in originals.items():
            setattr(owner, attr, fn)
    phases.total["step (wall)"] = time.perf_counter() - state["since"]
    phases.total["the rest (no-grad logps)"] = phases.total["step (wall)"] - sum(
        v for k, v in phases.total.items() if k != "step (wall)")
    return phases, state["updates"] - 1


def raw_grpo(model, tokenizer, instance, steps, samples, completion_tokens) -> Phases:
    import torch

    from sebench.rollout.prompts import PromptBuilder

    builder = PromptBuilder(instance, "closed")
    tasks = [t for t in instance.tasks("train") if t.is_valid][: steps + 1]
    phases = Phases()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for k, task in enumerate(tasks):
        if k == 1:
            phases.total.clear()
        t0 = time.perf_counter()
        text = tokenizer.apply_chat_template(builder.messages(task), tokenize=False, add_generation_prompt=True)
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"].repeat(samples, 1)
        with phases.timed("generation"), torch.inference_mode():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=completion_tokens,
                                 do_sample=True, temperature=1.0, top_k=0, pad_token_id=tokenizer.pad_token_id,
                                 eos_token_id=tokenizer.eos_token_id)
        out = out.clone()
        advantages = torch.randn(samples)
        model.train()
        with phases.timed("forward"):
            hidden = model.get_decoder()(input_ids=out, use_cache=False).last_hidden_state
            logits = model.get_output_embeddings()(hidden[:, ids.shape[1] - 1:-1])
            logp = torch.log_softmax(logits.float(), dim=-1).gather(-1, out[:, ids.shape[1]:, None])[..., 0]
        with phases.timed("backward + optimizer"):
            loss = -(advantages[:, None] * logp).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        model.eval()
        phases.total["step (wall)"] += time.perf_counter() - t0
    return phases


# ---- report --------------------------------------------------------------------------------------------


def table(title: str, project: dict[str, float], raw: dict[str, float], names: tuple[str, str] = ("project", "raw")) -> None:
    print(f"\n{title}: seconds per step")
    print(f"  {'phase':<22}{names[0]:>10}{names[1]:>10}{'ratio':>8}")
    for name in list(dict.fromkeys([*project, *raw])):
        p, r = project.get(name), raw.get(name)
        ratio = f"{p / r:.2f}" if p is not None and r else ""
        print(f"  {name:<22}{'' if p is None else f'{p:.2f}':>10}{'' if r is None else f'{r:.2f}':>10}{ratio:>8}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--instance", help="an instance directory (default: build a small one)")
    parser.add_argument("--quick", action="store_true", help="fewer steps and prompts (a few minutes)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument("--gen-threads", type=int, default=None, help="torch threads for generation (default: --threads)")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--sections", default="sft,gen,grpo")
    parser.add_argument("--grpo-steps", type=int, default=None, help="timed GRPO steps (default: as --quick says)")
    parser.add_argument("--rl-baseline", metavar="REV", help="time the GRPO loop of git revision REV (its rl.py) "
                        "from the same weights and seeds instead of the raw loop, and print today's / REV's")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    import torch

    from sebench.models import load_causal_lm

    steps = 1 if args.quick else 3
    prompts_n, gen_tokens = (8, 96) if args.quick else (16, 128)
    gen_threads = args.gen_threads or args.threads
    sections = args.sections.split(",")
    peaks: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        instance = open_instance(args.instance, folder)
        reset_peak_rss()
        model, tokenizer = load_causal_lm(args.model, device="cpu", dtype=torch.float32)
        peaks["load"] = peak_rss_mb()
        print(f"model {args.model}; threads: training {args.threads}, generation {gen_threads}; "
              f"{'quick' if args.quick else 'full'} run ({steps} timed steps after a warm-up"
              f"{f'; GRPO {args.grpo_steps}' if args.grpo_steps else ''})")
        if "sft" in sections:
            torch.set_num_threads(args.threads)
            examples = sft_examples(instance, args.batch_size * (steps + 1))
            reset_peak_rss()
            phases, batches, done = project_sft(model, tokenizer, examples, args.batch_size, steps, folder)
            peaks["sft project"] = peak_rss_mb()
            release_memory()
            reset_peak_rss()
            raw = raw_sft(model, [raw_batch(b) for b in batches])
            peaks["sft raw"] = peak_rss_mb()
            real = sum(int(b["attention_mask"].sum()) for b in batches)
            cells = sum(b["attention_mask"].numel() for b in batches)
            answer = sum(int((b["labels"] != -100).sum()) for b in batches)
            print(f"\nSFT batch: {args.batch_size} rows, {real / len(batches) / args.batch_size:.0f} tokens a row "
                  f"({answer / len(batches) / args.batch_size:.0f} answer), padding {1 - real / cells:.0%}")
            table("SFT step", phases.per_step(done), raw.per_step(len(batches)))
            del batches
            release_memory()
        if "gen" in sections:
            torch.set_num_threads(gen_threads)
            prompts = gen_prompts(instance, tokenizer, prompts_n)
            reset_peak_rss()
            p_sec, p_tok, lengths = project_generation(model, tokenizer, prompts, gen_tokens, gen_threads)
            peaks["generation project"] = peak_rss_mb()
            reset_peak_rss()
            r_sec, r_tok = raw_generation(model, tokenizer, prompts, gen_tokens)
            peaks["generation raw"] = peak_rss_mb()
            print(f"\nGeneration, {len(prompts)} closed-book prompts, greedy, <= {gen_tokens} new tokens:")
            print(f"  project: {p_sec:.1f} s, {p_tok} tokens ({p_tok / p_sec:.1f}/s; rows stop at their code block: "
                  f"{min(lengths)}-{max(lengths)} tokens)")
            print(f"  raw generate: {r_sec:.1f} s, {r_tok} tokens ({r_tok / r_sec:.1f}/s)")
            release_memory()
            print(f"  ratio seconds per new token, project / raw: {(p_sec / p_tok) / (r_sec / r_tok):.2f}; "
                  f"wall project / raw: {p_sec / r_sec:.2f}")
        if "grpo" in sections:
            torch.set_num_threads(args.threads)
            grpo_steps = args.grpo_steps or steps
            title = "GRPO step (1 prompt x 4 samples x <= 160 tokens)"
            if args.rl_baseline:  # REV's loop and today's, A B B A, each from the same weights: the same samples
                loops = {args.rl_baseline: rl_at(args.rl_baseline), "today": None}
                runs = {name: (Phases(), [0]) for name in loops}
                start = {k: v.clone() for k, v in model.state_dict().items()}
                for name in (args.rl_baseline, "today", "today", args.rl_baseline):
                    reset_peak_rss()
                    phases, done = project_grpo(model, tokenizer, instance, grpo_steps, 4, 160, folder, rl=loops[name])
                    peaks[f"grpo {name}"] = max(peaks.get(f"grpo {name}", 0.0), peak_rss_mb())
                    for phase, seconds in phases.total.items():
                        runs[name][0].total[phase] += seconds
                    runs[name][1][0] += done
                    model.load_state_dict(start)
                    release_memory()
                (today, n), (before, m) = runs["today"], runs[args.rl_baseline]
                table(f"{title}, today's loop against {args.rl_baseline}'s, {n[0]} steps each", today.per_step(n[0]),
                      before.per_step(m[0]), ("today", args.rl_baseline))
            else:
                reset_peak_rss()
                phases, done = project_grpo(model, tokenizer, instance, grpo_steps, 4, 160, folder)
                peaks["grpo project"] = peak_rss_mb()
                release_memory()
                reset_peak_rss()
                raw = raw_grpo(model, tokenizer, instance, grpo_steps, 4, 160)
                peaks["grpo raw"] = peak_rss_mb()
                table(title, phases.per_step(done), raw.per_step(grpo_steps))
    print("\npeak resident memory (MiB): " + ", ".join(f"{k} {v:.0f}" for k, v in peaks.items()))


if __name__ == "__main__":
    main()

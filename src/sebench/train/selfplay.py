"""Self-play (self-play-sft, self-play-rl): the model writes its own tasks from the docs and is trained on
them; rounds repeat with the trained model.

self-play-sft: it solves them open-book, keeps what the judge accepts, and is trained closed-book on it.
self-play-rl: closed-rl on the written tasks (sampled open-book, the loss on the closed prompt, the
reward from the judge against each written task's own tests); steps 2-4 below are that GRPO stage.

One round, k = 1..rounds:
  1. write: the task generator of sebench.tasks.modelgen, with the current model as its backend,
     writes --selfplay-tasks tasks, each from one studied function's docs (spread over a seeded choice
     of functions; the generator runs its own agreement check between solutions);
  2. solve: the current model answers each task open-book (--selfplay-solves samples);
  3. keep: the judge checks every answer against the task's tests; correct answers are kept;
  4. train: Closed-SFT on the kept (closed prompt, answer) pairs.
OUT/rounds/round-K/ keeps each round's tasks.jsonl (and, for SFT, rollouts.jsonl and verdicts.jsonl). Each round writes
and solves with the very model object being trained (the hf backend over it): no intermediate checkpoint.
"""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, write_records
from sebench.train import data
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig

log = logging.getLogger(__name__)


def train_self_play(model: Any, tokenizer: Any, instance: Instance, cfg: TrainConfig, workdir: Path,
                    losses: LossLog) -> tuple[Any, list[dict], list[dict]]:
    """Runs cfg.rounds rounds; returns the trained model, all training examples and a summary per round."""
    from sebench.train.reward import reward_judge
    from sebench.train.rl import train_rl
    from sebench.train.sft import train_sft

    functions = cfg.functions or [doc.name for doc in instance.api_docs()]
    if cfg.functions:
        data.check_functions(instance, functions)
    all_examples, summary = [], []
    with reward_judge(instance, cfg.reward, cfg.judge_workers, cfg.sandbox_url) as judge:
        for k in range(1, cfg.rounds + 1):
            folder = cfg.out / "rounds" / f"round-{k}"
            started = time.time()
            backend = round_backend(cfg, model, tokenizer)
            tasks = write_tasks(instance, backend, functions, cfg, seed=cfg.seed + k, folder=folder)
            if cfg.spec.rl:
                examples = data.rl_prompts(instance, tasks, cfg.sample_mode, cfg.spec.rl_train)
                counts = {"tasks_written": len(tasks)}
                if examples:
                    model = train_rl(model, tokenizer, judge, tasks, examples, cfg, losses, f"round-{k}", cfg.seed + k)
            else:
                pairs, counts = solve_tasks(instance, judge, backend, tasks, cfg, seed=cfg.seed + k, folder=folder)
                examples = data.sft_examples(instance, pairs, cfg.spec.sft)
                if examples:
                    model = train_sft(model, tokenizer, examples, cfg, workdir, losses, f"round-{k}")
            if not examples:
                log.warning("self-play round %d: no task was written%s; the model is unchanged", k,
                            "" if cfg.spec.rl else " and solved correctly")
            all_examples += examples
            summary.append({"round": k, **counts, "examples": len(examples), "seconds": round(time.time() - started, 1)})
            log.info("self-play round %d: %s", k, summary[-1])
    if not all_examples:
        raise SebenchError(
            "self-play kept no training example in any round: the model wrote no task"
            + ("" if cfg.spec.rl else " that it also solved correctly")
            + "; try more --selfplay-tasks, more --selfplay-solves, or a stronger --model"
        )
    return model, all_examples, summary


def round_backend(cfg: TrainConfig, model: Any, tokenizer: Any):
    """The backend that writes and solves a round's tasks: the model trained so far, in-process (the hf
    backend over the very model object being trained), unless --selfplay-backend names another."""
    from sebench.rollout.backends import get_backend

    if cfg.selfplay_backend:
        return get_backend(cfg.selfplay_backend)
    model.eval()
    return get_backend(f"hf:{cfg.model}", model=model, tokenizer=tokenizer, threads=cfg.threads)


def round_plan(functions: list[str], n: int, seed: int) -> list[tuple[str, int]]:
    """(function, tasks to write) for one round: n tasks spread over a seeded choice of functions, each
    written from that one function's docs (a prompt with every doc would not fit a small model)."""
    chosen = random.Random(seed).sample(functions, min(n, len(functions)))
    return [(name, n // len(chosen) + (i < n % len(chosen))) for i, name in enumerate(chosen)]


def write_tasks(instance: Instance, backend: Any, functions: list[str], cfg: TrainConfig, seed: int,
                folder: Path) -> list[Task]:
    """One round's tasks, written by `backend` from the docs (kept in folder/tasks.jsonl)."""
    from sebench.tasks.modelgen import generate_tasks

    tasks = []
    for i, (name, n) in enumerate(round_plan(functions, cfg.selfplay_tasks, seed)):
        tasks += generate_tasks(instance, backend, [name], n, seed=seed * 10_000 + i, samples=cfg.selfplay_samples)
    folder.mkdir(parents=True, exist_ok=True)
    write_records(folder / "tasks.jsonl", tasks)
    return tasks


def solve_tasks(instance: Instance, judge: Any, backend: Any, tasks: list[Task], cfg: TrainConfig, seed: int,
                folder: Path) -> tuple[list[tuple[Task, str]], dict]:
    """Solves one round's tasks open-book (the rollout stage's answer_tasks) and judges the answers (the
    judge's judge_many); returns the (task, correct answer) pairs (the whole response, or its code, as
    --target says) and counts."""
    from sebench.rollout.run import RolloutConfig, answer_tasks

    solve = RolloutConfig(data=instance.root, out=folder / "rollouts.jsonl", split="train", mode="open",
                          model=backend.name, n=cfg.selfplay_solves, temperature=cfg.temperature,
                          max_tokens=cfg.max_completion_length, seed=seed, progress=False)
    rollouts = answer_tasks(solve, instance, tasks, backend) if tasks else []
    by_id = {t.task_id: t for t in tasks}
    verdicts = judge.judge_many([(by_id[r.task_id], r.response, r.sample_idx) for r in rollouts])
    write_records(folder / "rollouts.jsonl", rollouts)
    write_records(folder / "verdicts.jsonl", verdicts)
    pairs, seen = [], set()
    for rollout, verdict in zip(rollouts, verdicts):
        if verdict.verdict == "correct" and rollout.code and (rollout.task_id, rollout.code) not in seen:
            seen.add((rollout.task_id, rollout.code))
            pairs.append((by_id[rollout.task_id], data.answer_text(rollout.response, rollout.code, cfg.target)))
    counts = {"tasks_written": len(tasks), "answers": len(rollouts),
              "correct": sum(v.verdict == "correct" for v in verdicts)}
    return pairs, counts

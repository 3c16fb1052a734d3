"""Self-play (self-play-sft, self-play-rl): the model writes its own tasks from the docs and is trained on
them; rounds repeat with the trained model.

One round, k = 1..rounds:
  1. write: the model is asked for --selfplay-tasks tasks, each from one studied function's docs (spread
     over a seeded choice of functions), by the task generator of sebench.train.modelgen;
  2. keep: the judge's checks keep a task when it parses, has no leak, its solution uses the package
     (static rules) and runs on at least --selfplay-min-cases of its test inputs in the sandbox, with two
     different outputs at least (--selfplay-samples > 0 also asks for that many fresh solutions that must
     agree with it);
  3. solve: the model answers each kept task open-book (--selfplay-solves samples, the rollout stage's
     prompts) and the judge checks the answers against the task's own tests;
  4. train: self-play-sft trains closed-book on the judged-correct answers (Closed-SFT); self-play-rl runs
     closed-rl (train_rl: sampled open-book, the loss on the closed prompt, the reward from the judge
     against the task's own tests) on the tasks it solved at least once: on a task it never solves every
     sample's reward is 0, and GRPO's group-normalised advantage gives it no gradient;
  5. self-play-sft with --selfplay-train-writer also trains the model to write tasks, in the same SFT pass:
     every kept task (solved or not) as the answer to the prompt it was written from (modelgen.writing_example:
     its own query, signature and solution, with the inputs its solution ran on). Absolute Zero trains its
     proposer too, with RL on learnability; this is an SFT form of it, off by default.
The kept tasks' noise is measured too (sebench.tasks.noise): the share whose expected outputs agree
with the real library's (NumPy's original of the function, via the private mapping) on the same inputs.

OUT/rounds/round-K/ keeps each round's proposals.jsonl (the model's answers as written), tasks.jsonl,
rollouts.jsonl, verdicts.jsonl and summary.json (the counts: asked, parsed, no_leak, kept, rejected by
reason, the rejected tasks' failed inputs by reason, agree_with_library, solved, ...); train_config.json's
"rounds" lists the same summaries. Each round writes and solves with the very model object being trained
(the hf backend over it).

A stopped run goes on after its last finished round: each round but the last saves a point to
OUT/trainer/selfplay-rounds/ (the weights, the examples and summaries of the rounds done, the loss rows, the
byte lengths of the GRPO record files), and a run of the same config restores it, cuts the record files back
and plays the next round. Round k's seeds depend only on k, so the rounds after it are those of an unbroken run.

Rounds that keep no example leave the model as it was (a warning says so); when no round keeps one, the
checkpoint is the start model, evaluated like any other: self-play measured to teach nothing, as GRPO groups
whose samples all score alike teach nothing.

The first round's answers (tasks written, and solved, by the start model) are kept in the cache folder
(first_round_cache), so self-play-sft and self-play-rl of one run play their first round on the same tasks,
and a stop in the middle of the writing keeps what was written; the summary's reused_answers counts them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from sebench.files import write_json
from sebench.instance import Instance
from sebench.instance_library import is_numpy
from sebench.records import Task, write_records
from sebench.train import data, resume
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.rl import RECORD_FILES

log = logging.getLogger(__name__)

POINT = "selfplay-rounds"  # under OUT/trainer: the rounds done (removed with it when the regime finishes)


def train_self_play(model: Any, tokenizer: Any, instance: Instance, cfg: TrainConfig, workdir: Path,
                    losses: LossLog) -> tuple[Any, list[dict], list[dict]]:
    """Runs cfg.rounds rounds; returns the trained model, all training examples and a summary per round."""
    from sebench.train.reward import reward_judge

    functions = cfg.functions or [doc.name for doc in instance.api_docs()]
    if cfg.functions:
        data.check_functions(instance, functions)
    key = resume.stage_key("self-play", functions, cfg.identity())
    all_examples, summary = restore_rounds(workdir / POINT, key, model, losses, cfg.out)
    with reward_judge(instance, cfg.reward, cfg.judge_workers, cfg.sandbox_url) as judge:
        for k in range(len(summary) + 1, cfg.rounds + 1):
            model, examples, record = play_round(model, tokenizer, instance, judge, functions, cfg, workdir,
                                                 losses, k)
            all_examples += examples
            summary.append(record)
            if k < cfg.rounds:
                rows, offset = losses.snapshot()
                meta = {"key": key, "examples": all_examples, "rounds": summary, "loss_rows": rows,
                        "loss_offset": offset, "file_sizes": resume.file_sizes(cfg.out, RECORD_FILES)}
                resume.save_state(workdir / POINT, meta, {"model": model.state_dict()})
    if not all_examples:  # a result, like GRPO groups that all score alike: the model learned nothing
        log.warning(
            "self-play kept no training example in %d round(s): %s; the checkpoint is the start model. Try more "
            "--selfplay-tasks, more --selfplay-solves, or a stronger --model (one that writes tasks: `sebench "
            "warmup --skills docs,tasks`)", cfg.rounds,
            "; ".join(f"round {r['round']}: {r['asked']} tasks asked, {r['parsed']} parsed, {r['kept']} kept, "
                      f"{r['solved']} solved" for r in summary))
    return model, all_examples, summary


def restore_rounds(point: Path, key: str, model: Any, losses: LossLog, out: Path) -> tuple[list[dict], list[dict]]:
    """The examples and summaries of the rounds a stopped run of the same config (`key`) finished, with the
    model's weights, the loss rows and the record files put back as they were after them; with no such point,
    ([], []) and the GRPO record files removed (the rounds start from scratch)."""
    state = resume.load_state(point)
    if state is None or state[0].get("key") != key:
        if state is not None:
            log.info("self-play: a round point of other settings or data is discarded")
        resume.discard(out, RECORD_FILES)
        return [], []
    meta, tensors = state
    model.load_state_dict(tensors["model"])
    losses.restore(meta["loss_rows"], meta["loss_offset"])
    resume.cut_back(out, meta["file_sizes"])
    log.info("self-play: resuming after round %d from %s", len(meta["rounds"]), point)
    return meta["examples"], meta["rounds"]


def play_round(model: Any, tokenizer: Any, instance: Instance, judge: Any, functions: list[str], cfg: TrainConfig,
               workdir: Path, losses: LossLog, k: int) -> tuple[Any, list[dict], dict]:
    """One round (see the module docstring); returns the model, its training examples (the writer's too) and
    its summary."""
    from sebench.tasks import library_agreement
    from sebench.train.grpo import train_rl
    from sebench.train.modelgen import writing_example
    from sebench.train.sft import train_sft

    folder = cfg.out / "rounds" / f"round-{k}"
    folder.mkdir(parents=True, exist_ok=True)
    started = time.time()
    backend = round_backend(cfg, model, tokenizer)
    cache = first_round_cache(cfg) if k == 1 else None
    if cache is not None:
        from sebench.rollout import CachedBackend

        backend = CachedBackend(backend, cache)
    tasks, written, counts = write_tasks(instance, backend, functions, cfg, seed=cfg.seed + k, folder=folder)
    record = {"round": k, **counts}
    agree: list[bool] = []  # the noise compares with NumPy's own results (another library's: not measured)
    if is_numpy(instance):
        agree = library_agreement(instance, tasks, written, workers=cfg.judge_workers or 2)
        record.update(agree_with_library=sum(agree), noise=round(1 - sum(agree) / len(tasks), 4) if tasks else None)
    record.update(seconds_write=round(time.time() - started, 1))
    pairs, counts = solve_tasks(instance, judge, backend, tasks, cfg, seed=cfg.seed + k, folder=folder)
    record.update(counts)
    solved = list({task.task_id: task for task, _ in pairs}.values())
    writer: list[dict] = []
    if cfg.spec.rl:
        examples = data.rl_prompts(instance, solved, cfg.sample_mode, cfg.spec.rl_train)
        if examples:
            # rounds write and solve new tasks each time: a round's GRPO starts from scratch (no resume point)
            model = train_rl(model, tokenizer, judge, solved, examples, replace(cfg, resume_every=0), losses,
                             f"round-{k}", cfg.seed + k)
    else:
        examples = data.sft_examples(instance, pairs, cfg.spec.sft)
        if cfg.selfplay_train_writer:
            writer = [writing_example(instance, [name], task) for task, name in zip(tasks, written)]
        if examples or writer:
            model = train_sft(model, tokenizer, examples + writer, cfg, workdir, losses, f"round-{k}")
    if not examples and not writer:
        log.warning("self-play round %d: no task was written and solved; the model is unchanged", k)
    record.update(examples=len(examples), writer_examples=len(writer), reused_answers=getattr(backend, "reused", 0),
                  seconds=round(time.time() - started, 1),
                  **({"agreement": {t.task_id: a for t, a in zip(tasks, agree)}} if is_numpy(instance) else {}))
    write_json(folder / "summary.json", record)
    log.info("self-play round %d: %s", k, {key: v for key, v in record.items() if key != "agreement"})
    return model, examples + writer, record


def round_backend(cfg: TrainConfig, model: Any, tokenizer: Any):
    """The backend that writes and solves a round's tasks: the model trained so far, in-process (the hf
    backend over the very model object being trained), unless --selfplay-backend names another."""
    from sebench.rollout import get_backend

    if cfg.selfplay_backend:
        return get_backend(cfg.selfplay_backend)
    model.eval()
    return get_backend(f"hf:{cfg.model}", model=model, tokenizer=tokenizer, threads=cfg.threads)


def first_round_cache(cfg: TrainConfig) -> Path | None:
    """Where the first round's answers are kept (rollout/backends/cached.py): they are the start model's, so
    the self-play regimes of one run share them; None when the writer is not a local model folder or the
    embedded default, whose weights cannot change under the same name."""
    from sebench.files import cache_root, tree_sha256
    from sebench.models import EMBEDDED_DEFAULT

    if cfg.selfplay_backend:
        return None
    if Path(cfg.model).is_dir():
        weights = tree_sha256(cfg.model)
    elif cfg.model == EMBEDDED_DEFAULT:
        weights = EMBEDDED_DEFAULT
    else:
        return None
    return cache_root() / "selfplay" / f"{hashlib.sha256(weights.encode()).hexdigest()[:20]}.jsonl"


def round_plan(functions: list[str], n: int, seed: int) -> list[tuple[str, int]]:
    """(function, tasks to write) for one round: n tasks spread over a seeded choice of functions, each
    written from that one function's docs (a prompt with every doc would not fit a small model)."""
    chosen = random.Random(seed).sample(functions, min(n, len(functions)))
    return [(name, n // len(chosen) + (i < n % len(chosen))) for i, name in enumerate(chosen)]


def write_tasks(instance: Instance, backend: Any, functions: list[str], cfg: TrainConfig, seed: int,
                folder: Path) -> tuple[list[Task], list[str], dict]:
    """One round's kept tasks, the function each was written from, and the counts (folder/tasks.jsonl,
    folder/proposals.jsonl: every answer as the model wrote it)."""
    from sebench.train.modelgen import generate_many

    plan = round_plan(functions, cfg.selfplay_tasks, seed)
    written_by = generate_many(instance, backend, [([name], n) for name, n in plan], seed=seed * 10_000,
                               samples=cfg.selfplay_samples, min_cases=cfg.selfplay_min_cases,
                               max_tokens=cfg.selfplay_write_tokens)
    tasks, written, proposals = [], [], []
    counts: dict = {"asked": 0, "parsed": 0, "no_leak": 0, "kept": 0, "rejected": {}, "failed_inputs": {}}
    for (name, _), got in zip(plan, written_by):
        tasks += got.tasks
        written += [name] * len(got.tasks)
        proposals += [{"function": name, "text": text} for text in got.texts]
        for key, value in (("asked", got.asked), ("parsed", got.parsed), ("no_leak", got.clean),
                           ("kept", len(got.tasks))):
            counts[key] += value
        for kind in ("rejected", "failed_inputs"):
            for why, n in getattr(got, kind).items():
                counts[kind][why] = counts[kind].get(why, 0) + n
    (folder / "proposals.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in proposals),
                                            encoding="utf-8")
    write_records(folder / "tasks.jsonl", tasks)
    return tasks, written, counts


def solve_tasks(instance: Instance, judge: Any, backend: Any, tasks: list[Task], cfg: TrainConfig, seed: int,
                folder: Path) -> tuple[list[tuple[Task, str]], dict]:
    """Solves one round's tasks open-book (the rollout stage's answer_tasks) and judges the answers (the
    judge's judge_many); returns the (task, correct answer) pairs (the whole response, or its code, as
    --target says; one per distinct code) and counts."""
    from sebench.rollout import RolloutConfig, answer_tasks

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
    counts = {"answers": len(rollouts), "correct": sum(v.verdict == "correct" for v in verdicts),
              "solved": len({task.task_id for task, _ in pairs})}
    return pairs, counts

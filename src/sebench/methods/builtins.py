"""The built-in methods, written against the same contract as anyone's.

- `Regime`: one of the paper's training regimes or a variant (sebench.train), trained on the training view;
- `Base`: the start model unchanged;
- `OpenBook`: the start model with the docs in its prompt at test time (a reference, not eligible);
- `Memory`: the experience-memory baseline as an agent (`MemoryAgent`): the start model's judged-correct
  open-book training answers, recalled into each closed-book test prompt (sebench.rollout's memory mode).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from sebench.methods.contract import Agent, Checkpoint, Context, Method, MethodError, Prompt, Result, Sampler


class Regime(Method):
    """A regime of sebench.train with its TrainConfig fields (the study gives them: `train_config`); `launch`:
    the fields of a sebench.train.Launch to train under `accelerate launch` (None: in-process)."""

    def __init__(self, train_config: dict, launch: dict | None = None):
        self.train_config = train_config
        self.launch = launch

    def run(self, ctx: Context) -> Result:
        from sebench.train import TrainConfig, train_model

        settings = {**self.train_config, "data": ctx.view}
        if settings.get("train_source") == "rollouts":
            if ctx.answers is None:
                raise MethodError(f"{settings['regime']} trains on the start model's judged answers, and the "
                                  "study made none")
            settings["rollouts"] = ctx.answers
        train = TrainConfig(**settings)
        out = launched(train, self.launch, ctx.workdir) if self.launch else train_model(train)
        samples, sampled = grpo_samples(out)
        ctx.cost.add(tokens_trained=trained_tokens(out) + sampled, tokens_sampled=sampled, judge_calls=samples)
        return Checkpoint(out)


def launched(train, launch: dict, workdir: Path) -> Path:
    """Trains `train` (a TrainConfig) in the processes `accelerate launch` starts; returns its checkpoint."""
    import subprocess
    import sys

    from sebench.parent_death import bound_to_this_process
    from sebench.train import Launch

    config_file = workdir / "launched_train_config.json"
    config_file.write_text(json.dumps(train.to_json()), encoding="utf-8")
    how = Launch(**launch)
    why = None
    # the launcher dies with this process, and each process it starts with the launcher (train/launched.py)
    with subprocess.Popen(how.command(config_file), env=how.env(), stderr=subprocess.PIPE, text=True,
                          preexec_fn=bound_to_this_process()) as process:
        for line in process.stderr or ():  # the processes' log, passed on; their one-line error kept
            sys.stderr.write(line)
            if line.startswith("sebench train: "):
                why = line.removeprefix("sebench train: ").strip()
    if process.returncode != 0:
        raise MethodError(f"training {train.regime} under `accelerate launch` ({how.processes} processes) failed: "
                          + (why or f"exit code {process.returncode} (its log is above)"))
    return Path(train.out)


def grpo_samples(checkpoint: Path) -> tuple[int, int]:
    """The GRPO samples a checkpoint's training drew (each judged once for its reward) and their completion
    tokens (sampled, then trained on: the loss is on the completion), from its rl_samples.jsonl; (0, 0)
    without GRPO."""
    samples_file = checkpoint / "rl_samples.jsonl"
    if not samples_file.is_file():
        return 0, 0
    lengths = [len(json.loads(line)["completion_ids"])
               for line in samples_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return len(lengths), sum(lengths)


def trained_tokens(checkpoint: Path) -> int:
    """Tokens of the SFT examples (prompt-completion or plain text) a checkpoint was trained on, times its
    epochs (0 for GRPO rows: see grpo_samples)."""
    from transformers import AutoTokenizer

    examples_file = checkpoint / "train_data.jsonl"
    if not examples_file.is_file():
        return 0
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    epochs = float(json.loads((checkpoint / "train_config.json").read_text(encoding="utf-8"))["config"]["epochs"])
    total = 0
    for line in examples_file.read_text(encoding="utf-8").splitlines():
        example = json.loads(line)
        if "text" in example:  # a plain-text example (the docs methods'): the loss is on all of it
            text = example["text"]
        elif "completion" in example:
            text = "".join(m.get("content", "") for m in [*example.get("prompt", []), *example["completion"]])
        else:
            continue
        total += len(tokenizer(text)["input_ids"])
    return round(total * epochs)


class Base(Method):
    """The start model unchanged: the row every method is compared with."""

    def run(self, ctx: Context) -> Result:
        return Checkpoint(Path(ctx.start_model))


class OpenBook(Method):
    """The start model shown the docs at test time: what internalization could reach at best."""

    def run(self, ctx: Context) -> Result:
        return Checkpoint(Path(ctx.start_model), docs_at_test_time=True)


class Memory(Method):
    """The experience-memory baseline (the paper's non-parametric method)."""

    def __init__(self, k: int = 3):
        self.k = k

    def run(self, ctx: Context) -> Result:
        if ctx.answers is None:
            raise MethodError("memory recalls the start model's judged open-book training answers, and the study "
                              "made none (set train_source=rollouts, or add the memory mode to untrained_modes)")
        from sebench.rollout import ExperienceMemory

        memory = ExperienceMemory.from_files(ctx.train_tasks, ctx.answers)
        entries = [{"task_id": e.task_id, "query": e.query, "answer": e.answer} for e in memory.entries]
        return MemoryAgent(entries, ctx.package, ctx.start_model, self.k)


class MemoryAgent(Agent):
    """Recalls its `k` best entries into each closed-book prompt and asks the start model."""

    def __init__(self, entries: list[dict], package: str, model: str, k: int, sampler: Sampler | None = None):
        from sebench.rollout import Experience, ExperienceMemory

        self.entries, self.package, self.model, self.k = entries, package, model, k
        self.memory = ExperienceMemory([Experience(**e) for e in entries])
        self.sampler = sampler

    def answer(self, prompt: Prompt) -> str:
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts: Sequence[Prompt]) -> list[str]:
        if self.sampler is None:
            raise MethodError("the memory agent samples with its model: load it with a sampler")
        messages = [self.memory.messages_for(p.messages, p.query, self.package, self.k) for p in prompts]
        first = prompts[0] if prompts else Prompt("", [])
        return [group[0] for group in self.sampler.sample(messages, self.model, 1, first.temperature,
                                                          first.max_tokens)]

    def save(self, folder: Path) -> None:
        state = {"entries": self.entries, "package": self.package, "model": self.model, "k": self.k}
        (folder / "memory.json").write_text(json.dumps(state), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, sampler: Sampler) -> Agent:
        state = json.loads((folder / "memory.json").read_text(encoding="utf-8"))
        return cls(state["entries"], state["package"], state["model"], state["k"], sampler)

"""The method contract: what a training method receives, what it may call, and what it returns.

A *method* is a subclass of `Method` (its constructor takes the method's arguments, `-M key=value`) or a
plain function `f(ctx, **arguments)`. It is called once, in a process of its own that can read the training
view but not the test splits, the private mapping or any evaluation (sebench.methods.isolation), with a
`Context`, and returns one of:

- `Checkpoint(path)`: a Hugging Face model folder, evaluated closed-book like a trained regime;
- `Endpoint(url, model)`: an OpenAI-compatible server, evaluated as it answers (marked unverified: sebench
  cannot see what it was trained on);
- an `Agent`: saved to its state folder, then rebuilt in a fresh isolated process at test time
  (`Agent.load`), where it answers each test prompt with no judge.

This module is the public, stable surface: its names are documented in docs/methods.md.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from sebench.errors import SebenchError
from sebench.records import ApiDoc, Task


class MethodError(SebenchError):
    """A method broke the contract: asked the judge about a task it may not see, returned something else."""


@dataclass(frozen=True)
class Feedback:
    """The judge's answer about one (training task id, answer): the verdict, the reward under the context's
    reward rule, the tests passed, and a short detail that names no NumPy function."""

    task_id: str
    verdict: str
    reward: float
    tests_passed: int
    tests_total: int
    detail: str = ""


@dataclass(frozen=True)
class Prompt:
    """A test-time question to an agent: the task's text and the closed-book chat messages sebench would
    send a model for it (no docs)."""

    query: str
    messages: list[dict]
    max_tokens: int = 512  # the study's decoding, for an agent that samples
    temperature: float = 0.0


@dataclass
class Cost:
    """What a method spent. sebench counts judge calls and tokens sampled through the context's services;
    a method that trains adds its trained tokens (`add`). Wall seconds are measured by the study."""

    judge_calls: int = 0
    tokens_sampled: int = 0
    tokens_trained: int = 0

    def add(self, judge_calls: int = 0, tokens_sampled: int = 0, tokens_trained: int = 0) -> None:
        self.judge_calls += judge_calls
        self.tokens_sampled += tokens_sampled
        self.tokens_trained += tokens_trained


class Judge(ABC):
    """The judge a method may call during training: training and dev task ids only."""

    reward_rule: str  # "binary" | "graded" | "original": how `Feedback.reward` is computed

    @abstractmethod
    def __call__(self, answers: Sequence[tuple[str, str]]) -> list[Feedback]:
        """Verdicts and rewards of (task id, answer text) pairs; a task id outside train and dev is refused."""


class Sampler(ABC):
    """Text generation with sebench's rollout backends, for the start model or a checkpoint the method wrote."""

    @abstractmethod
    def prompt(self, task: Task, mode: str = "closed") -> list[dict]:
        """The chat messages sebench's evaluation would send for `task` ("closed": no docs; "open": its
        functions' docs)."""

    @abstractmethod
    def sample(self, prompts: Sequence[list[dict]], model: str | Path | None = None, n: int = 1,
               temperature: float = 0.0, max_tokens: int = 256) -> list[list[str]]:
        """`n` completions of each prompt by `model` (a model spec or a checkpoint folder; default: the start
        model)."""


@dataclass
class Context:
    """Everything a method may use. `train_tasks` is the whole training split; `dev_tasks` is a seeded part of
    it that a method selecting among checkpoints should hold out (`fit_tasks` is the rest). `docs_only`: in
    the docs-only setting, the studied functions that no training task mentions (they have only their docs)."""

    docs: list[ApiDoc]
    train_tasks: list[Task]
    dev_tasks: list[Task]
    judge: Judge
    sampler: Sampler
    start_model: str
    seed: int
    workdir: Path
    view: Path  # the training view: an instance folder with the package, docs and training split only
    log: logging.Logger
    cost: Cost = field(default_factory=Cost)
    answers: Path | None = None  # the start model's judged open-book answers on the training tasks, when made
    docs_only: list[str] = field(default_factory=list)  # studied functions with docs and no training task

    @property
    def package(self) -> str:
        """The generated package's import name."""
        return self.docs[0].name.split(".")[0] if self.docs else ""

    @property
    def fit_tasks(self) -> list[Task]:
        dev = {t.task_id for t in self.dev_tasks}
        return [t for t in self.train_tasks if t.task_id not in dev]


@dataclass(frozen=True)
class Checkpoint:
    """A trained model folder (Hugging Face format). `docs_at_test_time`: evaluate it open-book instead; the
    row is then not eligible (it did not internalize anything)."""

    path: Path
    docs_at_test_time: bool = False


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible server that answers as the trained model (its training cannot be checked)."""

    url: str
    model: str


class Agent(ABC):
    """A model with state outside its weights (notes, a memory). At test time it is rebuilt from its state
    folder in a fresh isolated process and answers each prompt; it has no judge there, but it may sample."""

    eligible: ClassVar[bool] = True  # False for an agent that reads the docs at test time

    @abstractmethod
    def answer(self, prompt: Prompt) -> str:
        """The response text to one test prompt (a python block that uses the package)."""

    def answer_all(self, prompts: Sequence[Prompt]) -> list[str]:
        """Answers to a batch of prompts (override to batch the generation)."""
        return [self.answer(p) for p in prompts]

    @abstractmethod
    def save(self, folder: Path) -> None:
        """Writes everything the agent needs to `folder`."""

    @classmethod
    @abstractmethod
    def load(cls, folder: Path, sampler: Sampler) -> Agent:
        """The agent rebuilt from `folder`; `sampler` generates with the start model or any checkpoint."""


Result = Checkpoint | Endpoint | Agent


class Method(ABC):
    """A training method. Subclasses take their arguments as constructor keywords (`-M key=value`)."""

    @abstractmethod
    def run(self, ctx: Context) -> Result:
        """Trains (or prepares an agent) using only `ctx`, and returns what is evaluated."""


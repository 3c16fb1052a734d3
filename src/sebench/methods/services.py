"""The services a method's context offers: the judge over the training view, and the sampler.

The judge answers only for the view's tasks (the training split, dev included): any other task id is
refused. Its feedback is sebench's verdict with the reward under the chosen rule, and a detail with every
NumPy name blotted out. Both count what they spend into the context's `Cost`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from sebench.instance import Instance
from sebench.methods.contract import Cost, Feedback, Judge, MethodError, Sampler
from sebench.records import Task

_NUMPY = re.compile(r"\b(?:numpy|np)(?:\.[A-Za-z_][\w.]*)?")
REWARD_RULES = ("binary", "graded")


def scrub(text: str, original: re.Pattern | None = None) -> str:
    """`text` with NumPy's name and any `numpy.x` / `np.x` replaced, and the names `original` matches (another
    library's modules)."""
    text = _NUMPY.sub("[hidden]", text)
    return original.sub("[hidden]", text) if original is not None else text


def original_names(instance: Instance) -> re.Pattern | None:
    """The names of the library the instance renames, when it is not NumPy: its module, its other forbidden
    imports and its registry name, each with any dotted tail."""
    from sebench.libraries import DEFAULT_LIBRARY, load_library

    if instance.library == DEFAULT_LIBRARY:
        return None
    library = load_library(instance.library)
    names = sorted({library.module, *library.forbidden_imports, library.name}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")(?:\.[A-Za-z_][\w.]*)?")


class ViewJudge(Judge):
    """sebench's judge on the training view's tasks."""

    def __init__(self, view: Path, cost: Cost, reward_rule: str = "binary", workers: int | None = None,
                 sandbox_urls: list[str] | None = None):
        if reward_rule not in REWARD_RULES:
            raise MethodError(f"reward rule '{reward_rule}': choose one of {', '.join(REWARD_RULES)}")
        self.reward_rule = reward_rule
        self.instance = Instance.open(view)
        self.tasks = {t.task_id: t for t in self.instance.tasks("train")}
        self.original = original_names(self.instance)
        self.cost = cost
        self._options = {"workers": workers, "sandbox_urls": sandbox_urls}
        self._judge = None

    def __call__(self, answers: Sequence[tuple[str, str]]) -> list[Feedback]:
        unknown = [task_id for task_id, _ in answers if task_id not in self.tasks]
        if unknown:
            raise MethodError(f"the judge answers for training and dev tasks only; '{unknown[0]}' is not one")
        from sebench.judge import Judge as SebenchJudge
        from sebench.train import score

        if self._judge is None:
            self._judge = SebenchJudge(self.instance, **self._options)
        verdicts = self._judge.judge_many([(self.tasks[t], text, i) for i, (t, text) in enumerate(answers)])
        self.cost.add(judge_calls=len(answers))
        return [Feedback(v.task_id, v.verdict, score(v, self.reward_rule == "graded"), v.tests_passed,
                         v.tests_total, _detail(v.detail, self.original)) for v in verdicts]

    def close(self) -> None:
        if self._judge is not None:
            self._judge.close()


def _detail(detail: dict, original: re.Pattern | None = None) -> str:
    """The verdict's detail as one short line, without the sandbox's layers and without the original library's
    names."""
    text = "; ".join(f"{k}: {v}" for k, v in detail.items() if k != "layers")
    return scrub(text, original)[:500]


class BackendSampler(Sampler):
    """Generation through sebench's rollout backends, one loaded model at a time."""

    def __init__(self, view: Path, start_model: str, cost: Cost, backend_options: dict | None = None):
        self.instance = Instance.open(view)
        self.start_model = start_model
        self.cost = cost
        self.options = backend_options or {}
        self._builders: dict = {}
        self._loaded: tuple[str, object] | None = None

    def prompt(self, task: Task, mode: str = "closed") -> list[dict]:
        from sebench.rollout import PromptBuilder

        if mode not in ("closed", "open"):
            raise MethodError(f"sampler prompts are 'closed' or 'open', not '{mode}'")
        if mode not in self._builders:
            self._builders[mode] = PromptBuilder(self.instance, mode)
        return self._builders[mode].messages(task)

    def sample(self, prompts: Sequence[list[dict]], model: str | Path | None = None, n: int = 1,
               temperature: float = 0.0, max_tokens: int = 256) -> list[list[str]]:
        from sebench.rollout import GenerationRequest

        requests = [GenerationRequest(list(p), n=n, temperature=temperature, max_tokens=max_tokens) for p in prompts]
        completions = self.backend(model).generate(requests)
        self.cost.add(tokens_sampled=sum(c.completion_tokens for group in completions for c in group))
        return [[c.text for c in group] for group in completions]

    def backend(self, model: str | Path | None = None):
        """The loaded backend of `model` (a spec, or a checkpoint folder)."""
        from sebench.rollout import get_backend

        spec = str(model or self.start_model)
        if Path(spec).is_dir():
            spec = f"hf:{Path(spec).resolve()}"
        if self._loaded is None or self._loaded[0] != spec:
            self.close()
            self._loaded = (spec, get_backend(spec, **self.options))
        return self._loaded[1]

    def close(self) -> None:
        if self._loaded is not None:
            self._loaded[1].close()  # type: ignore[attr-defined]
            self._loaded = None

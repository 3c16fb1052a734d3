"""The GRPO reward: the benchmark's judge itself, so that training and evaluation can never disagree.

binary: 1.0 for a "correct" verdict, else 0.0 (the paper's reward).
graded: the share of tests passed, but only for code that runs against the package (verdicts
        correct, wrong_answer, runtime_error, timeout); code that does not use the package, imports
        what it must not, or has no code gets 0.0, so the reward cannot be gamed by skipping the package.
"""

from __future__ import annotations

import logging
from typing import Any

from sebench.records import Task, Verdict

log = logging.getLogger(__name__)

# Verdicts of code that ran against the package: these earn partial credit under the graded reward.
_GRADED = frozenset({"correct", "wrong_answer", "runtime_error", "timeout", "memory_limit"})


def score(verdict: Verdict, graded: bool) -> float:
    if verdict.verdict == "correct":
        return 1.0
    if not graded or verdict.verdict not in _GRADED or verdict.tests_total <= 0:
        return 0.0
    return verdict.tests_passed / verdict.tests_total


class JudgeReward:
    """A TRL reward function (`reward_funcs=`) that judges each completion against its task.

    The dataset must carry a `task_id` column; TRL passes it to the call, one per completion.
    """

    def __init__(self, judge: Any, tasks: list[Task], graded: bool = False):
        self.judge = judge
        self.tasks = {t.task_id: t for t in tasks}
        self.graded = graded
        self.__name__ = "judge_graded" if graded else "judge_binary"  # the name TRL logs the reward under

    def __call__(self, prompts: list, completions: list, task_id: list[str], **kwargs: Any) -> list[float]:
        items = [(self.tasks[tid], _text(c), i) for i, (tid, c) in enumerate(zip(task_id, completions))]
        verdicts = self.judge.judge_many(items)
        return [score(v, self.graded) for v in verdicts]


def _text(completion: Any) -> str:
    """The answer text of a completion: a string, or conversational [{"role": "assistant", "content": ...}]."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content") or "" for m in completion if isinstance(m, dict))

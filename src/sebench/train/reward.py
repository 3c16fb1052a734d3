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


def judge_rewards(judge: Any, answers: list[tuple[Task, str]], graded: bool = False) -> list[float]:
    """The reward of each (task, answer text): the judge's verdict, scored as above."""
    verdicts = judge.judge_many([(task, text, i) for i, (task, text) in enumerate(answers)])
    return [score(v, graded) for v in verdicts]

"""The GRPO reward: the benchmark's judge itself, so that training and evaluation can never disagree.

binary:   1.0 for a "correct" verdict, else 0.0 (the paper's reward, under sebench's judge).
graded:   the share of tests passed, but only for code that runs against the package (verdicts
          correct, wrong_answer, runtime_error, timeout, memory_limit); code that does not use the package, imports
          what it must not, or has no code gets 0.0, so the reward cannot be gamed by skipping the package.
original: the original's reward rule (`OriginalJudge.reward`: its verl_evolve/verl/utils/reward_score/
          self_question.py), which differs from its evaluation judge (see sebench.judge.original).
"""

from __future__ import annotations

import logging
from typing import Any

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, Verdict

log = logging.getLogger(__name__)

# Verdicts of code that ran against the package: these earn partial credit under the graded reward.
_GRADED = frozenset({"correct", "wrong_answer", "runtime_error", "timeout", "memory_limit"})


def score(verdict: Verdict, graded: bool) -> float:
    """The reward of one verdict: 1 when correct; under the graded reward (`graded`), the share of tests
    passed by code that ran against the package; else 0."""
    if verdict.verdict == "correct":
        return 1.0
    if not graded or verdict.verdict not in _GRADED or verdict.tests_total <= 0:
        return 0.0
    return verdict.tests_passed / verdict.tests_total


def reward_judge(instance: Instance, rule: str, workers: int | None = None,
                 sandbox_urls: list[str] | None = None) -> Any:
    """The judge that scores `rule` (a context manager): the original's for "original", else sebench's, in-process
    or on `sebench sandbox serve` servers (`sandbox_urls`: distributed judging)."""
    if rule == "original":
        if sandbox_urls:
            raise SebenchError("--reward original judges with a local sandbox; leave out --sandbox-url")
        from sebench.judge import OriginalJudge

        return OriginalJudge(instance, workers)
    from sebench.judge import Judge

    return Judge(instance, workers=workers, sandbox_urls=sandbox_urls)


def judge_rewards(judge: Any, answers: list[tuple[Task, str]], rule: str = "binary") -> list[float]:
    """The reward of each (task, answer text) under `rule` (binary, graded or original), from `judge`
    (a reward_judge of that rule)."""
    if rule == "original":
        return judge.rewards(answers)
    verdicts = judge.judge_many([(task, text, i) for i, (task, text) in enumerate(answers)])
    return [score(v, rule == "graded") for v in verdicts]

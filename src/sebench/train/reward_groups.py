"""How many GRPO groups carry a gradient, under the binary and the graded reward.

A group's samples move the policy only through their advantages (loss.group_advantages: reward minus
the group's mean, over its std); a group whose rewards are all equal has every advantage 0 and adds
nothing to the update. The binary reward gives 1 only for "correct", so a group that is all wrong (or
all right) is flat; the graded reward (reward.score: the share of tests passed, for code that runs
against the package) tells apart answers that pass some tests from those that pass none.
"""

from __future__ import annotations

from dataclasses import dataclass

from sebench.records import Verdict
from sebench.train.loss import group_advantages
from sebench.train.reward import score


@dataclass(frozen=True)
class GroupSpread:
    """Of `groups` GRPO groups, `with_gradient` have a non-zero advantage."""

    groups: int
    with_gradient: int

    @property
    def share(self) -> float:
        return self.with_gradient / self.groups if self.groups else 0.0


def gradient_groups(rewards: list[float], group_size: int) -> GroupSpread:
    """Counts the groups (consecutive runs of `group_size` rewards, GRPO's layout) with a non-zero advantage."""
    if group_size < 1 or len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} rewards do not split into groups of {group_size}")
    advantages = group_advantages(rewards, group_size)
    starts = range(0, len(rewards), group_size)
    return GroupSpread(len(starts), sum(any(a != 0.0 for a in advantages[i:i + group_size]) for i in starts))


def reward_spread(verdicts: list[Verdict], group_size: int) -> dict[str, GroupSpread]:
    """The same sampled groups (their verdicts, group after group) scored both ways: {"binary", "graded"}."""
    return {rule: gradient_groups([score(v, rule == "graded") for v in verdicts], group_size)
            for rule in ("binary", "graded")}

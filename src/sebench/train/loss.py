"""The GRPO policy loss, defined once: the own loop (rl.py) and the engine path compute it with this.

Per completion token, with r = exp(clamp(logp_new - logp_old, -L, L)) and the sample's advantage A
(the original's `compute_policy_loss_vanilla`, verl_evolve/verl/trainer/ppo/core_algos.py):

    loss = max(-A r, -A clip(r, 1 - epsilon, 1 + epsilon_high))        the PPO clip
    loss = min(loss, -A c)   where A < 0                                the dual clip (c = dual_clip)

then aggregated over the mini-batch: `seq-mean-token-mean` (each sample's token mean, averaged over
samples: the original's token-mean within micro-batches of one sequence, gradients accumulated) or
`token-mean` (the mean over every completion token of the mini-batch). When the old log-probabilities
are the current ones detached (the on-policy step: one mini-batch, one epoch; verl's dp_actor.py),
r is exactly 1, the clips never act and the gradient is A times that of the token mean of logp.
Samples dropped by `drop_negative` keep their place in the denominators but add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GROUP_STD_EPS = 1e-6  # GRPO's advantage: (r - group mean) / (group std + this) (core_algos.py)


@dataclass(frozen=True)
class LossSettings:
    """The loss's knobs (TrainConfig's GRPO fields of the same names)."""

    epsilon: float = 0.2
    epsilon_high: float = 0.2
    dual_clip: float = 3.0  # 0: off
    log_ratio_clamp: float = 20.0  # 0: off
    loss_agg: str = "seq-mean-token-mean"
    drop_negative: bool = False

    @classmethod
    def of(cls, cfg: Any) -> LossSettings:
        """The settings of a resolved TrainConfig."""
        return cls(cfg.epsilon, cfg.epsilon_high, cfg.dual_clip, cfg.log_ratio_clamp, cfg.loss_agg,
                   cfg.negative_advantages == "drop")


@dataclass(frozen=True)
class Normaliser:
    """What the mini-batch's loss is divided by: its samples and its completion tokens (a mini-batch may
    be computed in several chunks whose losses add up to the mini-batch's)."""

    samples: int
    tokens: int


def token_losses(new_logps: Any, old_logps: Any, advantages: Any, s: LossSettings) -> Any:
    """The per-token loss of each row ([rows, tokens] log-probabilities, [rows] advantages)."""
    import torch

    log_ratio = new_logps - old_logps
    if s.log_ratio_clamp:
        log_ratio = log_ratio.clamp(-s.log_ratio_clamp, s.log_ratio_clamp)
    ratio = torch.exp(log_ratio)
    adv = advantages[:, None]
    clipped = torch.maximum(-adv * ratio, -adv * ratio.clamp(1 - s.epsilon, 1 + s.epsilon_high))
    if s.dual_clip:
        clipped = torch.where(adv < 0, torch.minimum(clipped, -adv * s.dual_clip), clipped)
    return clipped


def row_losses(new_logps: Any, old_logps: Any, advantages: Any, mask: Any, s: LossSettings,
               norm: Normaliser) -> Any:
    """Each row's share of the mini-batch's loss ([rows]); their sum over every chunk of the mini-batch is
    its loss. `mask` marks the real completion tokens (float)."""
    losses = token_losses(new_logps, old_logps, advantages, s) * mask
    if s.drop_negative:
        losses = losses * (advantages >= 0).to(losses.dtype)[:, None]
    if s.loss_agg == "token-mean":
        return losses.sum(dim=1) / max(1, norm.tokens)
    return losses.sum(dim=1) / mask.sum(dim=1).clamp(min=1) / max(1, norm.samples)


def policy_loss(new_logps: Any, old_logps: Any, advantages: Any, mask: Any, s: LossSettings,
                norm: Normaliser) -> Any:
    """This chunk's share of the mini-batch's loss (a scalar tensor)."""
    return row_losses(new_logps, old_logps, advantages, mask, s, norm).sum()


def group_advantages(rewards: list[float], group: int) -> list[float]:
    """GRPO's advantages: per group of `group` consecutive samples, (reward - mean) / (std + 1e-6), the
    std unbiased (torch.std); a group of one keeps its reward (core_algos.py
    `compute_grpo_outcome_advantage`)."""
    out = []
    for i in range(0, len(rewards), group):
        chunk = rewards[i:i + group]
        if len(chunk) == 1:  # verl's group of one: mean 0, std 1
            out.append(chunk[0] / (1 + GROUP_STD_EPS))
            continue
        mean = sum(chunk) / len(chunk)
        std = (sum((r - mean) ** 2 for r in chunk) / (len(chunk) - 1)) ** 0.5
        out += [(r - mean) / (std + GROUP_STD_EPS) for r in chunk]
    return out

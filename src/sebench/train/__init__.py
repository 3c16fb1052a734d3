"""Training regimes with TRL (behind the `train` extra): Open-SFT, Closed-SFT, GRPO (open, closed,
after SFT) and Self-Play + SFT. The entry point is `sebench.train.run.run(TrainConfig(...))`; it writes a
checkpoint that the rollout backends load.
"""

from sebench.train.config import REGIMES, TrainConfig

__all__ = ["REGIMES", "TrainConfig"]

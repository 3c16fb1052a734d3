"""Training regimes of the paper (behind the `train` extra): Open-SFT, Closed-SFT (TRL), Open-RL,
Closed-RL, Closed-SFT-RL (our GRPO loop, rl.py), Self-Play with SFT and with RL. The entry point is
`sebench.train.run.run(TrainConfig(...))`; it writes a checkpoint that the rollout backends load.
"""

from sebench.train.config import REGIMES, TrainConfig

__all__ = ["REGIMES", "TrainConfig"]

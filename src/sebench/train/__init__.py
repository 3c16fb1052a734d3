"""Training regimes of the paper (behind the `train` extra): Open-SFT, Closed-SFT (TRL), Open-RL,
Closed-RL, Closed-SFT-RL (our GRPO loop, rl.py), Self-Play with SFT and with RL. `run(TrainConfig(...))` writes a checkpoint that the rollout backends load.
"""

from sebench.train.config import REGIMES, TrainConfig


def run(cfg: TrainConfig):
    """Trains as `cfg` says; returns the checkpoint directory (sebench.train.runner.run)."""
    from sebench.train.runner import run as _run

    return _run(cfg)


__all__ = ["REGIMES", "TrainConfig", "run"]

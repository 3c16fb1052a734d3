"""Training regimes with TRL (behind the `train` extra): Open-SFT, Closed-SFT, GRPO (open, closed,
after SFT) and Self-Play + SFT. `run(TrainConfig(...))` writes a checkpoint that the rollout backends load.
"""

from sebench.train.config import REGIMES, TrainConfig


def run(cfg: TrainConfig):
    """Trains as `cfg` says; returns the checkpoint directory (sebench.train.runner.run)."""
    from sebench.train.runner import run as _run

    return _run(cfg)


__all__ = ["REGIMES", "TrainConfig", "run"]

"""Training regimes of the paper (behind the `train` extra): Open-SFT, Closed-SFT (TRL), Open-RL,
Closed-RL, Closed-SFT-RL (GRPO: rl.py, or TRL's trainer: engine_trl.py), Self-Play with SFT and with RL
(selfplay.py, on tasks the model writes: modelgen.py). The entry point is `train_model(TrainConfig(...))`;
it writes a checkpoint that the rollout backends load.
"""

from sebench.exports import front_door

__all__ = ["MIN_CASES", "REGIMES", "REGIME_ALIASES", "REGIME_SPECS", "REWARDS", "TrainConfig", "batch_plan",
           "canonical_regime", "comparable_settings", "drop_long_prompts", "rl_prompts", "rollout_pairs",
           "score", "seeded_choice", "select_tasks", "sft_examples", "train_model", "writing_example"]
__getattr__ = front_door(__name__, __all__, {
    "config": ("REGIMES", "REGIME_ALIASES", "REGIME_SPECS", "REWARDS", "TrainConfig", "canonical_regime",
               "comparable_settings"),
    "data": ("drop_long_prompts", "rl_prompts", "rollout_pairs", "seeded_choice", "select_tasks", "sft_examples"),
    "modelgen": ("MIN_CASES", "writing_example"),
    "reward": ("score",),
    "rl": ("batch_plan",),
    "run": ("train_model",),
})

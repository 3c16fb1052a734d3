"""Training regimes of the paper (behind the `train` extra): Open-SFT, Closed-SFT (TRL), Open-RL,
Closed-RL, Closed-SFT-RL (GRPO: rl.py, or TRL's trainer: engine_trl.py), Self-Play with SFT and with RL
(selfplay.py, on tasks the model writes: modelgen.py). The docs-only methods' data (docs/docs-only.md):
docs_data.py, doc_tasks.py, reward_groups.py. The entry point is `train_model(TrainConfig(...))`;
it writes a checkpoint that the rollout backends load.
"""

from sebench.exports import front_door

__all__ = ["CHECKPOINT_MARKERS", "MIN_CASES", "REGIMES", "REGIME_ALIASES", "REGIME_SPECS", "REWARDS", "REWRITE_FORMS", "DistillPrompts",
           "GroupSpread", "Launch", "TrainConfig", "batch_plan", "canonical_regime", "comparable_settings", "cooccurrence",
           "distill_prompts", "docs_cpt_augmented_examples", "docs_cpt_examples", "drop_long_prompts",
           "examples_without", "gradient_groups", "pit_stages", "reference_pairs", "reward_spread", "rl_prompts", "rollout_pairs",
           "score", "seeded_choice", "select_tasks", "sft_examples", "split_docs_only", "tasks_without",
           "text_example", "train_model", "writing_example"]
__getattr__ = front_door(__name__, __all__, {
    "config": ("REGIMES", "REGIME_ALIASES", "REGIME_SPECS", "REWARDS", "TrainConfig", "canonical_regime",
               "comparable_settings"),
    "doc_rewrites": ("REWRITE_FORMS",),
    "doc_tasks": ("DistillPrompts", "distill_prompts"),
    "docs_data": ("cooccurrence", "docs_cpt_augmented_examples", "docs_cpt_examples", "examples_without", "pit_stages",
                  "split_docs_only", "tasks_without", "text_example"),
    "data": ("drop_long_prompts", "reference_pairs", "rl_prompts", "rollout_pairs", "seeded_choice", "select_tasks", "sft_examples"),
    "launched": ("Launch",),
    "modelgen": ("MIN_CASES", "writing_example"),
    "reward": ("score",),
    "reward_groups": ("GroupSpread", "gradient_groups", "reward_spread"),
    "rl": ("batch_plan",),
    "run": ("CHECKPOINT_MARKERS", "train_model"),
})

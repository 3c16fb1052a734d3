"""TrainConfig: one field per `sebench train` flag, each with its help text (the CLI is built from it).

Light on purpose (no torch/TRL import), so that `sebench --help` and `sebench run` stay fast.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from pathlib import Path

from sebench.errors import SebenchError

log = logging.getLogger(__name__)

TRAIN_SOURCES = ("rollouts", "reference")
REWARDS = ("binary", "graded")
TARGETS = ("response", "code")
OLD_LOGPS = ("sampling", "recompute")
NEGATIVE_ADVANTAGES = ("keep", "drop")
PROMPT_MODES = ("open", "closed")


@dataclass(frozen=True)
class Regime:
    """One training regime of the paper: its stages and the prompt each stage shows.

    sft: the prompt mode of the SFT stage (None: no SFT stage); rl_sample / rl_train: the prompt GRPO
    samples from and the prompt its loss is computed on (None: no RL stage); self_play: the model writes
    its own training tasks in rounds (then the SFT or RL stage runs once per round on them).
    """

    name: str
    sft: str | None = None
    rl_sample: str | None = None
    rl_train: str | None = None
    self_play: bool = False

    @property
    def rl(self) -> bool:
        return self.rl_train is not None


# The one definition of the regimes (`sebench train --regime`, `sebench run --regimes`); evaluation is
# always closed-book afterwards.
REGIME_SPECS = {r.name: r for r in (
    Regime("open-sft", sft="open"),
    Regime("closed-sft", sft="closed"),
    Regime("open-rl", rl_sample="open", rl_train="open"),
    Regime("closed-rl", rl_sample="open", rl_train="closed"),
    Regime("closed-sft-rl", sft="closed", rl_sample="open", rl_train="closed"),
    Regime("self-play-sft", sft="closed", self_play=True),
    Regime("self-play-rl", rl_sample="open", rl_train="closed", self_play=True),
)}
REGIMES = tuple(REGIME_SPECS)
# Earlier names, still accepted; each logs the paper's name that it now means.
REGIME_ALIASES = {
    "grpo-open": "open-rl",
    "grpo-closed": "closed-rl",
    "sft-grpo": "closed-sft-rl",
    "self-play": "self-play-sft",
}


def canonical_regime(name: str) -> str:
    """The paper's name of a regime (aliases are logged); unknown names are errors with a suggestion."""
    if name in REGIME_ALIASES:
        new = REGIME_ALIASES[name]
        log.warning("regime '%s' is now called '%s' (%s)", name, new, _ALIAS_NOTES.get(name, "same training"))
        return new
    check_choice("regime", name, REGIMES)
    return name


_ALIAS_NOTES = {"grpo-closed": "it now samples WITH the docs and computes the loss on the closed prompt, "
                               "as the paper does; --sample-mode closed samples closed-book as before"}


@dataclass
class TrainConfig:
    """Settings of one training run (`sebench train`); the run writes them to OUT/train_config.json."""

    data: Path = field(metadata={"required": True, "help": "instance directory (from `sebench build`)"})
    regime: str = field(metadata={"required": True, "choices": REGIMES + tuple(REGIME_ALIASES), "help": "training regime: " + " | ".join(REGIMES) + " (earlier names: "
                                  + ", ".join(f"{a} = {n}" for a, n in REGIME_ALIASES.items()) + ")"})
    out: Path = field(metadata={"required": True, "help": "checkpoint directory to write (HF format, loadable by the hf backend)"})
    model: str = field(
        default="smollm2-135m",
        metadata={"help": "model to start from: smollm2-135m (embedded), a local HF folder, or hf:<path>"},
    )
    train_source: str | None = field(
        default=None,
        metadata={"choices": TRAIN_SOURCES,
            "help": "SFT answers: rollouts (judged-correct answers from --rollouts, the paper's way) or "
            "reference (the tasks' reference solutions); default: rollouts if --rollouts is given, else reference"
        },
    )
    rollouts: Path | None = field(default=None, metadata={"help": "rollouts.jsonl whose correct answers are SFT data"})
    verdicts: Path | None = field(
        default=None, metadata={"help": "verdicts.jsonl of --rollouts (default: verdicts.jsonl beside it)"}
    )
    target: str = field(
        default="response",
        metadata={"choices": TARGETS, "help": "SFT target: response (the whole judged answer, reasoning included, as in the paper) or "
                  "code (only its code block); reference solutions are code either way"},
    )
    functions: list[str] | None = field(
        default=None,
        metadata={
            "help": "train only on tasks whose functions are all in this comma-separated list of public names "
            "(default: all); self-play writes tasks for these functions"
        },
    )
    max_examples: int | None = field(default=None, metadata={"help": "use at most this many training examples"})
    mix_data: list[str] | None = field(
        default=None,
        metadata={"help": "SFT: other instance directories (comma-separated) whose training tasks' reference "
                  "solutions join --data's examples, each prompted with its own package: replay of libraries "
                  "learned before, or several libraries learned at once"},
    )
    mix_share: float = field(
        default=1.0,
        metadata={"above": 0.0, "maximum": 1.0, "help": "SFT: the share of each --mix-data instance's training "
                  "examples used (a seeded choice, at least one)"},
    )
    epochs: float = field(default=3.0, metadata={"help": "passes over the training data"})
    max_steps: int | None = field(default=None, metadata={"help": "stop after this many optimizer steps (overrides --epochs)"})
    lr: float = field(
        default=2e-4,
        metadata={"help": "learning rate (2e-4 taught SmolLM2-135M 20 renamed functions in 3-5 epochs; 5e-5 did not)"},
    )
    batch_size: int = field(default=4, metadata={"help": "examples per device per step (GRPO: completions per device per step)"})
    grad_accum: int = field(default=1, metadata={"help": "gradient accumulation steps"})
    lr_scheduler: str = field(default="linear", metadata={"help": "learning-rate schedule (transformers' names: linear, cosine, constant, ...)"})
    warmup_ratio: float = field(default=0.0, metadata={"help": "share of the steps spent warming the learning rate up (below 1)"})
    weight_decay: float = field(default=0.0, metadata={"help": "AdamW weight decay"})
    adam_beta1: float = field(default=0.9, metadata={"help": "AdamW beta1"})
    adam_beta2: float = field(default=0.999, metadata={"help": "AdamW beta2 (the paper: 0.95)"})
    max_length: int = field(default=2048, metadata={"help": "SFT: longest tokenized prompt+answer; longer ones are cut"})
    lora: bool = field(default=False, metadata={"help": "train LoRA adapters (merged into the weights before saving)"})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank"})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha"})
    gradient_checkpointing: bool = field(default=False, metadata={"help": "trade compute for memory (large models)"})
    seed: int = field(default=0, metadata={"help": "random seed (data order, LoRA init, sampling)"})
    # GRPO
    reward: str = field(
        default="binary",
        metadata={"choices": REWARDS, "help": "GRPO reward from the judge: binary (1 if correct, as in the paper) or graded (share of "
                  "tests passed, when the code uses the package)"},
    )
    num_generations: int = field(default=4, metadata={"help": "GRPO: completions sampled per prompt (group size)"})
    max_completion_length: int = field(default=384, metadata={"help": "GRPO / self-play: longest generated answer, tokens"})
    temperature: float = field(default=1.0, metadata={"help": "GRPO / self-play: sampling temperature"})
    epsilon: float = field(default=0.2, metadata={"help": "GRPO: lower clipping range of the importance ratio"})
    epsilon_high: float | None = field(
        default=None, metadata={"help": "GRPO: upper clipping range (default: --epsilon; DAPO uses 0.28)"}
    )
    negative_advantages: str = field(
        default="keep",
        metadata={"choices": NEGATIVE_ADVANTAGES, "help": "GRPO: keep, or drop (samples with a negative advantage give no gradient), one of the "
                  "two suspects of the paper's RL gap"},
    )
    old_logps: str = field(
        default="sampling",
        metadata={"choices": OLD_LOGPS, "help": "GRPO: the 'old' log-probabilities of the PPO ratio: sampling (the sampling policy's, on the "
                  "prompt it sampled from, as in the paper) or recompute (the policy's, on the training prompt)"},
    )
    sample_mode: str | None = field(
        default=None,
        metadata={"choices": PROMPT_MODES, "help": "GRPO: prompt to sample from, open or closed (default: the regime's; closed-rl samples open)"},
    )
    mini_batches: int = field(
        default=1,
        metadata={"help": "GRPO: optimizer steps per sampled batch (the batch split into this many mini-batches, "
                  "the PPO way; the paper: batch 32, mini-batch 16 open / 32 closed)"},
    )
    generation_batch: int | None = field(
        default=None,
        metadata={"help": "GRPO: rows sampled per generate call (default: all of a batch's samples at once; "
                  "lower it when the KV cache of long answers does not fit)"},
    )
    sft_checkpoint: Path | None = field(
        default=None,
        metadata={"help": "closed-sft-rl: Closed-SFT checkpoint to start from (default: train Closed-SFT first, in the same run)"},
    )
    judge_workers: int | None = field(default=None, metadata={"help": "judge sandbox workers for rewards and filtering"})
    # Self-play
    rounds: int = field(default=2, metadata={"help": "self-play: rounds of write tasks -> solve open-book -> train closed-book"})
    selfplay_tasks: int = field(default=32, metadata={"help": "self-play: tasks the model is asked to write per round"})
    selfplay_samples: int = field(default=2, metadata={"help": "self-play: solutions per written task for the agreement check"})
    selfplay_solves: int = field(default=2, metadata={"help": "self-play: open-book answers sampled per kept task"})
    selfplay_backend: str | None = field(
        default=None,
        metadata={"help": "self-play: backend spec that writes and solves the tasks (default: the model being "
                  "trained, in-process; e.g. fake:... in tests)"},
    )
    overwrite: bool = field(default=False, metadata={"help": "replace an existing checkpoint in OUT"})
    threads: int | None = field(
        default=None,
        metadata={"help": "CPU threads for training (default: $SEBENCH_THREADS, else the cores no other process "
                  "is busy on)"},
    )

    def __post_init__(self) -> None:
        self.data = Path(self.data)
        self.out = Path(self.out)
        for name in ("rollouts", "verdicts", "sft_checkpoint"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, Path(value))
        if isinstance(self.functions, str):
            self.functions = [f.strip() for f in self.functions.split(",") if f.strip()]
        if isinstance(self.mix_data, str):
            self.mix_data = [p.strip() for p in self.mix_data.split(",") if p.strip()]

    def resolved(self) -> "TrainConfig":
        """A validated copy with defaults filled in (train_source, verdicts, epsilon_high)."""
        regime = REGIME_SPECS[canonical_regime(self.regime)]
        check_choice("reward", self.reward, REWARDS)
        check_choice("target", self.target, TARGETS)
        check_choice("old-logps", self.old_logps, OLD_LOGPS)
        check_choice("negative-advantages", self.negative_advantages, NEGATIVE_ADVANTAGES)
        if self.sample_mode is not None:
            check_choice("sample-mode", self.sample_mode, PROMPT_MODES)
        source = self.train_source or ("rollouts" if self.rollouts else "reference")
        check_choice("train-source", source, TRAIN_SOURCES)
        if source == "rollouts" and self.rollouts is None and regime.sft and not regime.self_play:
            raise SebenchError("--train-source rollouts needs --rollouts FILE (a rollouts.jsonl judged by `sebench judge`)")
        if self.mix_data and not (regime.sft and not regime.self_play):
            raise SebenchError(f"--mix-data adds SFT examples; regime {regime.name} has no SFT stage on tasks")
        if not 0 < self.mix_share <= 1:
            raise SebenchError(f"--mix-share must be in (0, 1], got {self.mix_share}")
        verdicts = self.verdicts or (self.rollouts.with_name("verdicts.jsonl") if self.rollouts else None)
        if not 0 <= self.warmup_ratio < 1:
            raise SebenchError(f"--warmup-ratio must be in [0, 1), got {self.warmup_ratio}")
        for name, value in (("epochs", self.epochs), ("lr", self.lr)):
            if value <= 0:
                raise SebenchError(f"--{name} must be positive, got {value}")
        for name in ("batch_size", "grad_accum", "num_generations", "rounds", "max_length", "max_completion_length",
                     "mini_batches"):
            if getattr(self, name) < 1:
                raise SebenchError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if regime.rl:
            if self.num_generations < 2:
                raise SebenchError("--num-generations must be at least 2: GRPO compares completions within a group")
            if (self.batch_size * self.grad_accum) % self.num_generations:
                raise SebenchError(
                    f"--batch-size x --grad-accum ({self.batch_size} x {self.grad_accum}) must be a multiple of "
                    f"--num-generations ({self.num_generations}): each step trains on whole groups"
                )
            if (self.batch_size * self.grad_accum) % self.mini_batches:
                raise SebenchError(f"--mini-batches {self.mini_batches} must divide --batch-size x --grad-accum")
        return dataclasses.replace(
            self, regime=regime.name, sample_mode=self.sample_mode or regime.rl_sample, train_source=source, verdicts=verdicts,
            epsilon_high=self.epsilon if self.epsilon_high is None else self.epsilon_high,
        )

    @property
    def spec(self) -> Regime:
        """The regime's stages (after `resolved()`, which maps earlier names to the paper's)."""
        return REGIME_SPECS[self.regime]

    def to_json(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(self).items()}


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        import difflib

        close = difflib.get_close_matches(value, choices, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise SebenchError(f"unknown --{name} '{value}'{hint} (choose one of: {', '.join(choices)})")

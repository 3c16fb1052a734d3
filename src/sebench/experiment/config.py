"""The configuration of a whole study (`sebench run`) and its presets.

A preset is a plain dict of field values; command-line flags and `--set KEY=VALUE` override it. The
resolved config is what every stage's completion record is compared against on a re-run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from sebench.errors import SebenchError
from sebench.protocols import PROTOCOLS
from sebench.records import MODES, SPLITS
from sebench.train.config import REGIME_ALIASES, REGIMES, TrainConfig, canonical_regime


@dataclass
class RunConfig:
    """Everything that decides the outcome of a study (not where it is written)."""

    preset: str = "quick"
    model: str = "smollm2-135m"  # the untrained model: a backend spec for rollouts, a load spec for training
    train_model: str | None = None  # the weights training starts from when --model is served (openai:...)
    seed: int = 0
    regimes: list = field(default_factory=lambda: ["closed-sft"])
    instance: str | None = None  # an existing instance directory to use instead of building one
    # build: sizes of the instance's task splits (TaskSizes)
    build_train: int = 720
    build_single: int = 259
    build_multiple: int = 300
    # selection: a subset of functions and tasks (None = everything the instance has)
    functions: int | None = None  # number of functions studied
    max_train: int | None = None  # training tasks kept (of the studied functions)
    max_single: int | None = None  # single-function test tasks kept
    max_multiple: int | None = None  # multi-function test tasks kept
    # evaluation (rollout + judge)
    splits: list = field(default_factory=lambda: ["single_test", "multiple_test"])
    untrained_modes: list = field(default_factory=lambda: ["closed", "open"])
    trained_modes: list = field(default_factory=lambda: ["closed", "open"])
    samples: int = 1  # samples per task (pass@k needs k or more)
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    concurrency: int = 8  # requests in flight (openai) / prompts per batch (local models)
    judge_workers: int | None = None
    # the evaluation protocol (sebench.protocols): "original" also means the original's prompts, read from
    # original_repo, and its decoding (5 samples, T=0.6, 8192 tokens, thinking on) unless set here
    protocol: str = "sebench"
    original_repo: str | None = None
    thinking: str | None = None  # "on" | "off": the chat template's enable_thinking (None: the protocol's)
    # training
    train_source: str = "reference"  # "reference" solutions, or the model's own judged open-book "rollouts"
    source_samples: int = 4  # open-book samples per training task when train_source is "rollouts"
    source_temperature: float = 0.7  # their sampling temperature
    epochs: float = 3.0
    lr: float = 2e-4
    lora: bool = False
    max_steps: int | None = None
    batch_size: int = 8
    # further TrainConfig fields: {"field": value} for every regime, {"closed-rl": {"field": value}} for one
    train_extra: dict = field(default_factory=dict)
    # named variants of a regime, listed in `regimes` like one: {"label": {"regime": name, field: value, ...}}
    variants: dict = field(default_factory=dict)
    # a doc-literate base first (`sebench warmup` settings: docs, max_examples, epochs, lr, batch_size, ...):
    # the untrained rows and every regime then start from it (None: from `model` itself)
    warmup: dict | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# The paper's GRPO settings, shared by the gpu preset's RL regimes.
_GRPO = dict(lr=1e-6, lr_scheduler="constant", warmup_ratio=0.0, weight_decay=0.0, num_generations=8,
             batch_size=2, grad_accum=128, generation_batch=32, max_completion_length=8192, temperature=1.0,
             epsilon=0.2, epsilon_high=0.2, negative_advantages="keep", old_logps="sampling")

# paper-mini's GRPO: one prompt's 4 samples a step (a whole group), short answers, a gentle learning rate
_MINI_RL = {"num_generations": 4, "batch_size": 4, "grad_accum": 1, "max_completion_length": 128, "lr": 2e-5}

PRESETS: dict[str, dict] = {
    # the embedded model on a CPU, sized for ~12 min on 2 idle cores (bench/cpu_profile.py): an SFT step
    # of the embedded model runs at ~150 tokens/s with 2 threads, a closed-book example is ~420 tokens,
    # so 48 examples x 3 epochs (~60k tokens) take ~7 min; updates of 4 keep the 36 optimizer steps at
    # lr 2e-4 that taught 12 functions before (3-5 epochs needed; 5e-5 too slow). Activations cost ~1.7 MB
    # a token in fp32 over ~2.2 GB of weights, gradients and Adam state: one row a forward keeps the peak
    # under 4 GB. Closed-book evaluation only: the untrained model's open-book answers (0% before) cost
    # more than the whole training. Measured: 5 min 36 s, peak 3.85 GB, closed-book single 0% -> 64.7%.
    "quick": dict(
        model="smollm2-135m",
        regimes=["closed-sft"],
        build_train=720, build_single=259, build_multiple=300,
        functions=8, max_train=48, max_single=24, max_multiple=8,
        untrained_modes=["closed"], trained_modes=["closed"],
        samples=1, temperature=0.0, max_tokens=128, concurrency=16,
        train_source="reference", epochs=3.0, lr=2e-4, batch_size=1,
        # updates of 4 examples computed one at a time: as fast as 2 at a time on 2 cores, and the peak
        # resident memory of the run stays under 4 GB (3.7 GB measured; 2 at a time peaked at 4.4 GB)
        train_extra={"grad_accum": 4},
    ),
    # the paper's headline comparison on a CPU at three times paper-mini's size, one seed: the warmed-up
    # base (as paper-mini) over 24 functions, its open-book and memory baselines, and Open-SFT, Closed-SFT,
    # Closed-RL and Closed-SFT-then-RL, with twice paper-mini's RL steps. Self-play is left out: the warmed
    # 135M model wrote no usable task in paper-mini (0 of 16 proposals). Timing: README "Presets".
    "cpu": dict(
        model="smollm2-135m",
        warmup={"docs": "compact", "max_examples": 48, "epochs": 1.0, "lr": 2e-4, "batch_size": 4},
        regimes=["open-sft", "closed-sft", "closed-rl", "closed-sft-rl"],
        functions=24, max_train=96, max_single=72, max_multiple=24,
        untrained_modes=["closed", "open", "memory"], trained_modes=["closed"],
        samples=1, temperature=0.0, max_tokens=128, concurrency=16,
        train_source="rollouts", source_samples=2, source_temperature=0.7, epochs=3.0, lr=2e-4, batch_size=1,
        train_extra={
            "grad_accum": 4,
            "closed-rl": dict(_MINI_RL, max_steps=48),
            "closed-sft-rl": dict(_MINI_RL, max_steps=48),
        },
    ),
    # the paper in miniature on a CPU (README "Reproducing the paper"): a warmed-up base that can use docs,
    # then every regime of the paper and the switches of the RL gap, closed-book. Measured on 2 idle cores
    # (seed 0, every regime): 58 min, the warm-up's 3 min included; an SFT regime 1.6-2.3 min, an RL
    # regime of 24 steps 6.4-8.2 min, the base's evaluations 4 min; peak resident memory 7.5 GB (Open-RL:
    # 4 samples with open-book prompts in one forward). README "Reproducing the paper" has the results.
    "paper-mini": dict(
        model="smollm2-135m",
        warmup={"docs": "compact", "max_examples": 48, "epochs": 1.0, "lr": 2e-4, "batch_size": 4},
        regimes=["open-sft", "closed-sft", "open-rl", "closed-rl", "closed-rl-wide-clip", "closed-rl-no-negative",
                 "closed-sft-rl", "self-play-sft", "self-play-rl", "closed-rl-recompute"],
        # the RL gap's two suspects switched off one at a time, and a third measured here: the PPO ratio
        # against the sampling policy on the open prompt (recompute: against the policy on the closed one)
        variants={"closed-rl-wide-clip": {"regime": "closed-rl", "epsilon_high": 0.5},
                  "closed-rl-no-negative": {"regime": "closed-rl", "negative_advantages": "drop"},
                  "closed-rl-recompute": {"regime": "closed-rl", "old_logps": "recompute"}},
        functions=8, max_train=32, max_single=24, max_multiple=8,
        untrained_modes=["closed", "open", "memory"], trained_modes=["closed"],
        samples=1, temperature=0.0, max_tokens=128, concurrency=16,
        train_source="rollouts", source_samples=2, source_temperature=0.7, epochs=3.0, lr=2e-4, batch_size=1,
        train_extra={
            "grad_accum": 4,
            "open-rl": dict(_MINI_RL, max_steps=24),
            "closed-rl": dict(_MINI_RL, max_steps=24),
            "closed-sft-rl": dict(_MINI_RL, max_steps=24),
            "self-play-sft": {"rounds": 1, "selfplay_tasks": 16},
            "self-play-rl": dict(_MINI_RL, max_steps=12, rounds=1, selfplay_tasks=16),
        },
    ),
    # the paper's recipe (arXiv 2602.04811), field by field: README "The gpu preset: the paper's recipe"
    # (tests/experiment/test_gpu_recipe.py checks that table against this dict). Give --model.
    "gpu": dict(
        model="hf:Qwen/Qwen3-8B",
        regimes=list(REGIMES),
        functions=None, max_train=None, max_single=None, max_multiple=None,
        untrained_modes=["closed", "open"], trained_modes=["closed", "open"],
        samples=5, temperature=0.6, top_p=1.0, max_tokens=8192, concurrency=64,
        train_source="rollouts", source_samples=5, source_temperature=0.6,
        # SFT
        epochs=4.0, lr=1e-5, batch_size=4,
        train_extra={
            "grad_accum": 8,  # 4 x 8 = a global batch of 32 on one GPU
            "lr_scheduler": "cosine", "warmup_ratio": 0.1, "weight_decay": 0.01, "adam_beta1": 0.9,
            "adam_beta2": 0.95, "max_length": 20000, "target": "response", "gradient_checkpointing": True,
            # GRPO: 32 prompts x 8 samples a batch (2 rows a forward x 128), no KL, clip 0.2
            "open-rl": dict(_GRPO, epochs=3.0, mini_batches=2),  # mini-batch 16 of 32 prompts
            "closed-rl": dict(_GRPO, epochs=30.0, mini_batches=1),  # mini-batch 32 of 32
            "closed-sft-rl": dict(_GRPO, epochs=30.0, mini_batches=1),
            "self-play-rl": dict(_GRPO, epochs=30.0, mini_batches=1),
        },
    ),
}


def resolve(preset: str, overrides: dict) -> RunConfig:
    """The preset's values, then `overrides`; unknown keys are errors."""
    if preset not in PRESETS:
        raise SebenchError(f"unknown preset '{preset}'; choose one of {', '.join(PRESETS)}")
    names = {f.name: f for f in dataclasses.fields(RunConfig)}
    values = {"preset": preset, **PRESETS[preset]}
    for key, value in overrides.items():
        if key not in names:
            raise SebenchError(f"unknown setting '{key}'; known: {', '.join(sorted(names))}")
        values[key] = value
    cfg = RunConfig(**values)
    for label, variant in cfg.variants.items():
        if not isinstance(variant, dict) or "regime" not in variant:
            raise SebenchError(f"variants: '{label}' needs a \"regime\" (one of {', '.join(REGIMES)})")
        _check("regime of variant " + label, [variant["regime"]], REGIMES + tuple(REGIME_ALIASES))
    _check("regimes", cfg.regimes, REGIMES + tuple(REGIME_ALIASES) + tuple(cfg.variants))
    cfg.regimes = [r if r in cfg.variants else canonical_regime(r) for r in cfg.regimes]
    cfg.train_extra = {(canonical_regime(k) if k in REGIME_ALIASES else k): v for k, v in cfg.train_extra.items()}
    _check_training_settings(cfg)
    _check("splits", cfg.splits, SPLITS)
    _check("untrained_modes", cfg.untrained_modes, MODES)
    _check("trained_modes", cfg.trained_modes, tuple(m for m in MODES if m != "memory"))
    _check("train_source", [cfg.train_source], ("reference", "rollouts"))
    _check("protocol", [cfg.protocol], tuple(PROTOCOLS))
    protocol = PROTOCOLS[cfg.protocol]
    for name, value in (("samples", protocol.samples), ("temperature", protocol.temperature),
                        ("max_tokens", protocol.max_tokens)):
        if value is not None and name not in overrides:
            setattr(cfg, name, value)
    if cfg.thinking is None and protocol.thinking is not None:
        cfg.thinking = "on" if protocol.thinking else "off"
    return cfg


# the TrainConfig fields that train_extra and variants may set (the study sets the others itself)
_STUDY_SETS = ("data", "out", "regime", "model", "rollouts", "verdicts", "sft_checkpoint", "overwrite")


def _check_training_settings(cfg: RunConfig) -> None:
    """train_extra and variants name TrainConfig fields (train_extra also regimes holding such fields):
    a misspelt one fails here, not when its regime starts training an hour later."""
    known = tuple(f.name for f in dataclasses.fields(TrainConfig) if f.name not in _STUDY_SETS)
    groups = [(f"train_extra.{key}", value) for key, value in cfg.train_extra.items() if key in REGIMES]
    groups += [(f"variants.{label}", {k: v for k, v in variant.items() if k != "regime"})
               for label, variant in cfg.variants.items()]
    groups.append(("train_extra", {k: v for k, v in cfg.train_extra.items() if k not in REGIMES}))
    for where, settings in groups:
        if not isinstance(settings, dict):
            raise SebenchError(f"{where}: expected {{setting: value}}, got {settings!r}")
        for key in settings:
            _check(f"training setting in {where}", [key], known)


def _check(name: str, values: list, choices: tuple[str, ...]) -> None:
    import difflib

    for value in values:
        if value not in choices:
            close = difflib.get_close_matches(str(value), choices, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise SebenchError(f"unknown {name} value '{value}'{hint} (choose from {', '.join(choices)})")


def parse_setting(text: str) -> tuple[str, object]:
    """`KEY=VALUE` from `--set`: the value is parsed as JSON when it can be (numbers, lists, null)."""
    import json

    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise SebenchError(f"--set expects KEY=VALUE, got '{text}'")
    try:
        return key.strip().replace("-", "_"), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip().replace("-", "_"), raw

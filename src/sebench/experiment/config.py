"""The configuration of a whole study (`sebench run`) and its presets.

`RunConfig` holds the study's own settings (model, seed, regimes, sizes, modes, protocol) and one section
per stage: `rollout`, `judge`, `train` (every regime), `train_regimes` (one regime), `warmup`. A section
holds fields of that stage's own config dataclass (RolloutConfig, JudgeConfig, TrainConfig,
WarmupConfig), which declares each of them once, with its default, bounds and help; the study fills in
the fields it decides itself (paths, the regime, the seed: `Section.study_sets`).

A preset is a plain dict of values; command-line flags and `--set KEY=VALUE` override it (`--set
train.lr=1e-4`, `--set train_regimes.closed-rl.max_steps=48`, `--set rollout.max_tokens=256`). The
resolved config shows every field of every section (`--show-config`); each stage's completion record is
the stage config the study builds from it.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
from dataclasses import dataclass, field
from pathlib import Path

from sebench.cliflags import range_problem
from sebench.errors import SebenchError
from sebench.experiment.lifelong import LifelongConfig
from sebench.experiment.warmup import WarmupConfig
from sebench.judge.run import JudgeConfig
from sebench.protocols import PROTOCOLS
from sebench.records import MODES, SPLITS
from sebench.rollout.run import RolloutConfig
from sebench.train.config import REGIME_ALIASES, REGIMES, TrainConfig, canonical_regime


@dataclass(frozen=True)
class Section:
    """A stage's settings in a RunConfig: the fields of `config_cls` except those the study sets."""

    config_cls: type
    study_sets: tuple[str, ...]  # fields the study fills in for each stage it runs
    required: tuple[tuple[str, object], ...] = ()  # placeholder values of required fields, for checking

    def fields(self) -> list[dataclasses.Field]:
        return [f for f in dataclasses.fields(self.config_cls)
                if f.name not in self.study_sets and f.metadata.get("cli", True)]

    def defaults(self) -> dict:
        """Each field's default (paths as strings, so that the config is plain JSON)."""
        out = {}
        for f in self.fields():
            value = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            out[f.name] = str(value) if isinstance(value, Path) else value
        return out

    def check(self, where: str, values: dict) -> None:
        """Refuses an unknown field (with a "did you mean"), a value outside its choices or bounds."""
        if not isinstance(values, dict):
            raise SebenchError(f"{where}: expected {{setting: value}}, got {values!r}")
        known = {f.name: f for f in self.fields()}
        for key, value in values.items():
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise SebenchError(f"{where}: unknown setting '{key}'{hint} (a field of {self.config_cls.__name__}; "
                                   f"known: {', '.join(known)})")
            meta = known[key].metadata
            problem = range_problem(value, meta)
            if problem is None and "choices" in meta and value is not None and value not in meta["choices"]:
                problem = f"must be one of {', '.join(map(str, meta['choices']))} (got {value!r})"
            if problem:
                raise SebenchError(f"{where}.{key} {problem}")
        self.config_cls(**dict(self.required), **values)  # the stage's own checks (types, paths)


SECTIONS = {
    "rollout": Section(RolloutConfig, ("data", "out", "split", "mode", "model", "protocol", "original_repo", "seed",
                                       "overwrite", "limit", "memory")),
    "judge": Section(JudgeConfig, ("data", "rollouts", "out", "summary", "protocol")),
    "train": Section(TrainConfig, ("data", "out", "regime", "model", "rollouts", "verdicts", "sft_checkpoint",
                                   "overwrite", "seed", "train_source", "judge_workers", "mix_data", "mix_share"),
                     required=(("data", "."), ("out", "."), ("regime", "closed-sft"))),
    "warmup": Section(WarmupConfig, ("data", "studied", "studied_from", "model", "seed"), required=(("data", "."),)),
    "lifelong": Section(LifelongConfig, ()),
}


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
    # evaluation: which splits, and the modes of the untrained base and of each trained model
    splits: list = field(default_factory=lambda: ["single_test", "multiple_test"])
    untrained_modes: list = field(default_factory=lambda: ["closed", "open"])
    trained_modes: list = field(default_factory=lambda: ["closed", "open"])
    # the evaluation protocol (sebench.protocols): "original" also means the original's prompts, read from
    # original_repo, and its decoding (rollout.n 5, temperature 0.6, 8192 tokens, thinking on) unless set here
    protocol: str = "sebench"
    original_repo: str | None = None
    # SFT data: "reference" solutions, or the base's own judged open-book "rollouts" on the train split
    # (source_samples of them per task at source_temperature; also the memory baseline's store)
    train_source: str = "reference"
    source_samples: int = 4
    source_temperature: float = 0.7
    # the stages' sections (see the module docstring): {field: value} of their config dataclasses
    rollout: dict = field(default_factory=dict)  # RolloutConfig: decoding, batching
    judge: dict = field(default_factory=dict)  # JudgeConfig: workers, limits
    train: dict = field(default_factory=dict)  # TrainConfig: every regime's training settings
    train_regimes: dict = field(default_factory=dict)  # {regime: {TrainConfig field: value}} for one regime
    # named variants of a regime, listed in `regimes` like one: {"label": {"regime": name, field: value, ...}}
    variants: dict = field(default_factory=dict)
    # a doc-literate base first (WarmupConfig: docs, max_examples, epochs, lr, batch_size, ...): the untrained
    # rows and every regime then start from it (None: from `model` itself)
    warmup: dict | None = None
    # libraries learned one after another (LifelongConfig: libraries, designs, replay, at_once; see
    # experiment/lifelong.py): the study is then the lifelong schedule (None: the regimes above)
    lifelong: dict | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def regime_of(self, label: str) -> str:
        """The training regime of a label of `regimes`: itself, or the regime of the variant it names."""
        return self.variants.get(label, {}).get("regime", label)

    def train_settings(self, label: str) -> dict:
        """The TrainConfig fields of a label of `regimes`: the train section, then its regime's, then the
        variant's."""
        variant = {k: v for k, v in self.variants.get(label, {}).items() if k != "regime"}
        return {**self.train, **self.train_regimes.get(self.regime_of(label), {}), **variant}


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
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="reference",
        # updates of 4 examples computed one at a time: as fast as 2 at a time on 2 cores, and the peak
        # resident memory of the run stays under 4 GB (3.7 GB measured; 2 at a time peaked at 4.4 GB)
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
    ),
    # the paper's headline comparison on a CPU at three times paper-mini's size, one seed: the warmed-up
    # base (as paper-mini) over 24 functions, its open-book and memory baselines, and Open-SFT, Closed-SFT,
    # Closed-RL and Closed-SFT-then-RL, with twice paper-mini's RL steps. Self-play is left out: the warmed
    # 135M model wrote no usable task in paper-mini (0 of 16 proposals). Measured on 2 idle cores (seed 0):
    # 1 h 27 min, the warm-up's 3 min included; an SFT regime 6.5-8.9 min, an RL regime of 48 steps 13-20
    # min, peak resident memory 7.2 GB (Closed-RL). README "The cpu preset" has the results.
    "cpu": dict(
        model="smollm2-135m",
        warmup={"docs": "compact", "max_examples": 48, "epochs": 1.0, "lr": 2e-4, "batch_size": 4},
        regimes=["open-sft", "closed-sft", "closed-rl", "closed-sft-rl", "closed-rl-no-negative"],
        # the paper's negative-gradient suspect switched off (README "The cpu preset": Closed-RL's answers
        # degrade over 48 steps, this variant's do not)
        variants={"closed-rl-no-negative": {"regime": "closed-rl", "negative_advantages": "drop"}},
        functions=24, max_train=96, max_single=72, max_multiple=24,
        untrained_modes=["closed", "open", "memory"], trained_modes=["closed"],
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="rollouts", source_samples=2, source_temperature=0.7,
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
        train_regimes={"closed-rl": dict(_MINI_RL, max_steps=48), "closed-sft-rl": dict(_MINI_RL, max_steps=48)},
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
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="rollouts", source_samples=2, source_temperature=0.7,
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
        train_regimes={
            "open-rl": dict(_MINI_RL, max_steps=24),
            "closed-rl": dict(_MINI_RL, max_steps=24),
            "closed-sft-rl": dict(_MINI_RL, max_steps=24),
            "self-play-sft": {"rounds": 1, "selfplay_tasks": 16},
            "self-play-rl": dict(_MINI_RL, max_steps=12, rounds=1, selfplay_tasks=16),
        },
    ),
    # lifelong internalization (README "Lifelong internalization", experiment/lifelong.py): three libraries
    # learned one after another with Closed-SFT from the warmed-up base (as paper-mini's), in the same and the
    # disjoint design, each stage evaluated closed-book on every library. Sized for ~30-45 min a seed on 2
    # cores: 6 functions a library (12-13 single-function test tasks), 36 reference solutions x 3 epochs a
    # stage (the quick preset's 6 examples a function and lr), five trainings (the designs share the first).
    # Reference solutions rather than the base's own answers: every function gets its examples, no sampling
    # stage per library, and replay and the at-once reference mix them across libraries.
    "lifelong": dict(
        model="smollm2-135m",
        warmup={"docs": "compact", "max_examples": 48, "epochs": 1.0, "lr": 2e-4, "batch_size": 4},
        regimes=["closed-sft"],
        functions=6, max_train=36, max_single=24, max_multiple=8,
        splits=["single_test"], untrained_modes=["closed"], trained_modes=["closed"],
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="reference",
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
        lifelong={"libraries": 3, "designs": ["same", "disjoint"], "replay": [0.0], "at_once": False},
    ),
    # the paper's recipe (arXiv 2602.04811), field by field: README "The gpu preset: the paper's recipe"
    # (tests/experiment/test_gpu_recipe.py checks that table against this dict). Give --model.
    "gpu": dict(
        model="hf:Qwen/Qwen3-8B",
        regimes=list(REGIMES),
        functions=None, max_train=None, max_single=None, max_multiple=None,
        untrained_modes=["closed", "open"], trained_modes=["closed", "open"],
        rollout=dict(n=5, temperature=0.6, top_p=1.0, max_tokens=8192, concurrency=64),
        train_source="rollouts", source_samples=5, source_temperature=0.6,
        # SFT: 4 rows x 8 accumulated = a global batch of 32 on one GPU
        train=dict(epochs=4.0, lr=1e-5, batch_size=4, grad_accum=8, lr_scheduler="cosine", warmup_ratio=0.1,
                   weight_decay=0.01, adam_beta1=0.9, adam_beta2=0.95, max_length=20000, target="response",
                   gradient_checkpointing=True),
        # GRPO: 32 prompts x 8 samples a batch (2 rows a forward x 128), no KL, clip 0.2
        train_regimes={
            "open-rl": dict(_GRPO, epochs=3.0, mini_batches=2),  # mini-batch 16 of 32 prompts
            "closed-rl": dict(_GRPO, epochs=30.0, mini_batches=1),  # mini-batch 32 of 32
            "closed-sft-rl": dict(_GRPO, epochs=30.0, mini_batches=1),
            "self-play-rl": dict(_GRPO, epochs=30.0, mini_batches=1),
        },
    ),
}


def resolve(preset: str, overrides: dict) -> RunConfig:
    """The preset's values, then `overrides` (keys are RunConfig fields or dotted paths into a section:
    "train.lr", "train_regimes.closed-rl.max_steps"); unknown keys and values are errors."""
    if preset not in PRESETS:
        raise SebenchError(f"unknown preset '{preset}'; choose one of {', '.join(PRESETS)}")
    values = copy.deepcopy({"preset": preset, **PRESETS[preset]})
    for key, value in overrides.items():
        _set(values, key, copy.deepcopy(value))
    cfg = RunConfig(**values)
    for label, variant in cfg.variants.items():
        if not isinstance(variant, dict) or "regime" not in variant:
            raise SebenchError(f"variants: '{label}' needs a \"regime\" (one of {', '.join(REGIMES)})")
        _check("regime of variant " + label, [variant["regime"]], REGIMES + tuple(REGIME_ALIASES))
        variant["regime"] = canonical_regime(variant["regime"])
    _check("regimes", cfg.regimes, REGIMES + tuple(REGIME_ALIASES) + tuple(cfg.variants))
    cfg.regimes = [r if r in cfg.variants else canonical_regime(r) for r in cfg.regimes]
    if not isinstance(cfg.train_regimes, dict):
        raise SebenchError(f"train_regimes: expected {{regime: {{setting: value}}}}, got {cfg.train_regimes!r}")
    _check("train_regimes key", list(cfg.train_regimes), REGIMES + tuple(REGIME_ALIASES))
    cfg.train_regimes = {canonical_regime(k): v for k, v in cfg.train_regimes.items()}
    _check("splits", cfg.splits, SPLITS)
    _check("untrained_modes", cfg.untrained_modes, MODES)
    _check("trained_modes", cfg.trained_modes, tuple(m for m in MODES if m != "memory"))
    _check("train_source", [cfg.train_source], ("reference", "rollouts"))
    _check("protocol", [cfg.protocol], tuple(PROTOCOLS))
    protocol = PROTOCOLS[cfg.protocol]
    given = {key.partition(".")[2] for key in overrides if key.startswith("rollout.")}
    given |= set(overrides.get("rollout") or {})
    for name, value in (("n", protocol.samples), ("temperature", protocol.temperature),
                        ("max_tokens", protocol.max_tokens)):
        if value is not None and name not in given:
            cfg.rollout[name] = value
    if cfg.rollout.get("thinking") is None and protocol.thinking is not None:
        cfg.rollout["thinking"] = "on" if protocol.thinking else "off"
    _check_sections(cfg)
    return cfg


def _set(values: dict, key: str, value: object) -> None:
    """values[key] = value, where `key` may be a dotted path into a section."""
    head, *path = key.split(".")
    head = head.replace("-", "_")
    names = {f.name for f in dataclasses.fields(RunConfig)}
    if head not in names:
        raise SebenchError(f"unknown setting '{key}'{_hint(head, names)}")
    if not path:
        values[head] = value
        return
    if head not in SECTIONS and head not in ("train_regimes", "variants"):
        raise SebenchError(f"setting '{key}': '{head}' is a single value, not a section")
    target = values.get(head) or {}
    values[head] = target
    for part in path[:-1]:  # a regime or variant label: kept as written
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            raise SebenchError(f"setting '{key}': '{part}' is not a section")
    target[path[-1].replace("-", "_")] = value


def _hint(name: str, names: set[str]) -> str:
    """Where a setting lives: a field of a stage's section, or a close name."""
    if name == "samples":
        return "; did you mean 'rollout.n'?"
    if name == "judge_workers":
        return "; did you mean 'judge.workers'?"
    if name == "train_extra":
        return "; did you mean 'train' (every regime) or 'train_regimes' ({regime: settings})?"
    homes = [home for home, section in SECTIONS.items() if any(f.name == name for f in section.fields())]
    if homes:
        return f"; did you mean '{homes[0]}.{name}'?"
    close = difflib.get_close_matches(name, names, n=1)
    return f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(sorted(names))}"


def _check_sections(cfg: RunConfig) -> None:
    """Each section names fields of its stage's config with values it accepts, and is filled in with the
    fields' defaults; a misspelt training setting fails here, not when its regime starts an hour later."""
    for name in ("rollout", "judge", "train"):
        section = SECTIONS[name]
        given = getattr(cfg, name)
        section.check(name, given)
        setattr(cfg, name, {**section.defaults(), **given})
    train = SECTIONS["train"]
    for regime, settings in cfg.train_regimes.items():
        train.check(f"train_regimes.{regime}", settings)
    for label, variant in cfg.variants.items():
        train.check(f"variants.{label}", {k: v for k, v in variant.items() if k != "regime"})
    for name in ("warmup", "lifelong"):
        given = getattr(cfg, name)
        if given is not None:
            SECTIONS[name].check(name, given)
            setattr(cfg, name, {**SECTIONS[name].defaults(), **given})
    if cfg.lifelong is not None:
        _check_lifelong(cfg)


def _check_lifelong(cfg: RunConfig) -> None:
    """The lifelong schedule learns each library with Closed-SFT on its reference solutions (which replay and
    the at-once reference mix across libraries), evaluates closed-book, and builds its own libraries."""
    fixed = (("regimes", cfg.regimes, ["closed-sft"]), ("train_source", cfg.train_source, "reference"),
             ("untrained_modes", cfg.untrained_modes, ["closed"]), ("trained_modes", cfg.trained_modes, ["closed"]),
             ("instance", cfg.instance, None))
    for name, value, needed in fixed:
        if value != needed:
            raise SebenchError(f"lifelong: {name} must be {needed!r} (got {value!r}): each library is learned with "
                               "Closed-SFT on reference solutions, evaluated closed-book, built by the study")
    if not cfg.functions:
        raise SebenchError("lifelong: set functions, the number of functions each library studies")


def _check(name: str, values: list, choices: tuple[str, ...]) -> None:
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
        return key.strip(), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip(), raw

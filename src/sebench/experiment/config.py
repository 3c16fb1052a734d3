"""The configuration of a whole study (`sebench run`) and its presets.

`RunConfig` holds the study's own settings (model, seed, regimes, sizes, modes, protocol) and one section
per stage: `rollout`, `judge`, `train` (every regime), `train_regimes` (one regime), `warmup`, `lifelong`.
A section holds fields of that stage's own config dataclass (RolloutConfig, JudgeConfig, TrainConfig,
WarmupConfig, LifelongConfig), which declares each of them once, with its default, bounds and help; the
study fills in the fields it decides itself (paths, the regime, the seed: `Section.study_sets`).

A preset is a plain dict of values; command-line flags and `--set KEY=VALUE` override it (`--set
train.lr=1e-4`, `--set train_regimes.closed-rl.max_steps=48`, `--set rollout.max_tokens=256`). The
resolved config shows every field of every section (`--show-config`); each stage's completion record is
the stage config the study builds from it.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from sebench.cliflags import option, range_problem
from sebench.errors import SebenchError
from sebench.experiment.launch import LaunchConfig, apply_launch
from sebench.experiment.lifelong import LifelongConfig
from sebench.experiment.warmup import WarmupConfig
from sebench.judge import JudgeConfig
from sebench.methods import FENCE_KEYS, OutputRules, accepts, check_arguments, is_method_spec, output_rules
from sebench.methods import resolve as resolve_method
from sebench.protocols import PROTOCOLS
from sebench.records import MODES, SPLITS
from sebench.rollout import RolloutConfig
from sebench.train import REGIME_ALIASES, REGIMES, TrainConfig, canonical_regime


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
            items = value if isinstance(value, list) else [value]  # a list field: each item is one of the choices
            if problem is None and "choices" in meta and value is not None and any(v not in meta["choices"] for v in items):
                problem = f"must be one of {', '.join(map(str, meta['choices']))} (got {value!r})"
            if problem is None:
                problem = type_problem(known[key], value)
            if problem:
                raise SebenchError(f"{where}.{key} {problem}")
        self.config_cls(**dict(self.required), **values)  # the stage's own checks (types, paths)


def type_problem(field: dataclasses.Field, value: object) -> str | None:
    """Why `value` (as `--set` parsed it) does not fit the field's annotation (`epochs: float` and "abc"), or None."""
    annotation = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", str(field.type))
    return None if accepts(annotation, value) else f"must be {annotation} (got {value!r})"


SECTIONS = {
    "rollout": Section(RolloutConfig, ("data", "out", "split", "mode", "model", "protocol", "original_repo", "seed",
                                       "overwrite", "limit", "memory")),
    "judge": Section(JudgeConfig, ("data", "rollouts", "out", "summary", "protocol")),
    "train": Section(TrainConfig, ("data", "out", "regime", "model", "rollouts", "verdicts", "sft_checkpoint",
                                   "overwrite", "seed", "train_source", "judge_workers", "protocol", "original_repo",
                                   "mix_data", "mix_share"),
                     required=(("data", "."), ("out", "."), ("regime", "closed-sft"))),
    "warmup": Section(WarmupConfig, ("data", "studied", "studied_from", "model", "seed"), required=(("data", "."),)),
    "lifelong": Section(LifelongConfig, ()),
    "launch": Section(LaunchConfig, ()),
}


TRAINED_MODES = tuple(m for m in MODES if m != "memory")
# The Random-FT control (after CodeUpdateArena, Liu et al. 2024, arXiv 2407.06249): Closed-SFT with the same
# settings on another seed's package (seed + RANDOM_SEED_OFFSET), evaluated on this study's tests; a variant
# every study may list in `regimes` ("package": "random" is a variant's own key, not a TrainConfig field).
RANDOM_PACKAGE = "random"
RANDOM_SEED_OFFSET = 1000
CONTROL_VARIANTS = {"closed-sft-random": {"regime": "closed-sft", "package": RANDOM_PACKAGE}}
VARIANT_KEYS = ("regime", "package")  # a variant's keys that are not TrainConfig fields
TRAIN_SOURCES = ("reference", "rollouts")


@dataclass
class RunConfig:
    """Everything that decides the outcome of a study (not where it is written). Each field is also a flag of
    `sebench run` that overrides the preset's value (`path`: resolved to an absolute path; `cli=False`: a
    section, set with `--set`)."""

    preset: str = option("quick", "sizes and settings", cli=False)  # `sebench run --preset`, with its choices
    model: str = option("smollm2-135m", "model spec: smollm2-135m, a local HF folder, hf:<path or id>, "
                        "openai:<model>@<url> (evaluation only), fake:... (tests); the untrained model, and the "
                        "weights training starts from")
    train_model: str | None = option(None, "weights to train from when --model is a server (openai:...), e.g. "
                                     "hf:Qwen/Qwen3-8B; default: --model")
    seed: int = option(0, "seed of the instance, the task subset, sampling and training")
    library: str = option("numpy", "the library the study's package renames: a registry name (numpy, more-itertools) "
                          "or module:attr (docs/libraries.md)", metavar="NAME")
    regimes: list = option(factory=lambda: ["closed-sft"], help="training regimes: " + " ".join(REGIMES) + " (none: "
                           "evaluate the untrained model only)", nargs="*", metavar="REGIME")
    instance: str | None = option(None, "use this built instance directory instead of building one", path=True,
                                  metavar="DIR")
    # build: sizes of the instance's task splits (TaskSizes)
    build_train: int = option(720, "the built instance's training tasks", minimum=0)
    build_single: int = option(259, "the built instance's one-function test tasks", minimum=0)
    build_multiple: int = option(300, "the built instance's multi-function test tasks", minimum=0)
    # selection: a subset of functions and tasks (None = everything the instance has)
    functions: int | None = option(None, "number of functions studied (0: all the instance has)", minimum=0)
    max_train: int | None = option(None, "training tasks of the studied subset (with --functions; default: 100)",
                                   minimum=1)
    max_single: int | None = option(None, "one-function test tasks of the studied subset (with --functions; "
                                    "default: 30)", minimum=1)
    max_multiple: int | None = option(None, "multi-function test tasks of the studied subset (with --functions; "
                                      "default: 10)", minimum=1)
    docs_only: float | None = option(None, "share of the studied functions made docs-only: no training "
                                     "task, example or judge call of any method mentions them, only their docs "
                                     "(a seeded split; default: none)", minimum=0.0, maximum=1.0)
    # evaluation: which splits, and the modes of the untrained base and of each trained model
    splits: list = option(factory=lambda: ["single_test", "multiple_test"], help="the splits evaluated",
                          choices=SPLITS)
    untrained_modes: list = option(factory=lambda: ["closed", "open"], help="the untrained model's modes",
                                   choices=MODES)
    trained_modes: list = option(factory=lambda: ["closed", "open"], help="each trained model's modes",
                                 choices=TRAINED_MODES)
    name_recall: bool = option(False, "also score each model's name recall: closed-book, given a studied function's "
                               "behaviour, the rank of its name among all the package's names "
                               "(sebench.rollout.name_recall; models with local weights)")
    protocol: str = option("sebench", "evaluation protocol; original: the original benchmark's prompts (read from "
                           "--original-repo), decoding (rollout.n 5, temperature 0.6, 8192 tokens, thinking on), "
                           "judge and training (its training prompts, reward rule, SFT filter over source_samples 5 at "
                           "source_temperature 0.6, RL data) unless set here (docs/protocols.md)",
                           choices=tuple(PROTOCOLS))
    original_repo: str | None = option(None, "your copy of the original SE-Bench repository (--protocol original "
                                       "reads its prompt templates there)", path=True, metavar="DIR")
    train_source: str = option("reference", "SFT data: the tasks' reference solutions, or the base's own judged "
                               "open-book rollouts on the train split (also the memory baseline's store)",
                               choices=TRAIN_SOURCES)
    source_samples: int = option(4, "--train-source rollouts: samples per training task", minimum=1)
    source_temperature: float = option(0.7, "--train-source rollouts: their sampling temperature", minimum=0.0)
    # the stages' sections (see the module docstring): {field: value} of their config dataclasses
    rollout: dict = option(factory=dict, help="RolloutConfig fields: decoding, batching", cli=False)
    judge: dict = option(factory=dict, help="JudgeConfig fields: workers, limits", cli=False)
    train: dict = option(factory=dict, help="TrainConfig fields of every regime", cli=False)
    train_regimes: dict = option(factory=dict, help="{regime: {TrainConfig field: value}} for one regime", cli=False)
    variants: dict = option(factory=dict, help="named variants of a regime, listed in `regimes` like one: "
                            "{label: {\"regime\": name, field: value, ...}}", cli=False)
    methods: dict = option(factory=dict, help="arguments of the methods named in `regimes` (sebench.methods): "
                           "{label: {argument: value}}, e.g. --set methods.MyMethod.epochs=2; a label of your own "
                           "with {\"method\": spec, ...} runs that method under that label", cli=False)
    warmup: dict | None = option(None, "a doc-literate base first (WarmupConfig fields: docs, max_examples, epochs, "
                                 "lr, batch_size, ...): the untrained rows and every regime then start from it "
                                 "(None: from `model` itself)", cli=False)
    launch: dict = option(factory=dict, help="LaunchConfig fields: processes per training stage (`--gpus`), "
                          "DeepSpeed, the evaluation engine (sebench.experiment.launch)", cli=False)
    lifelong: dict | None = option(None, "libraries learned one after another (LifelongConfig fields: libraries, "
                                   "designs, replay, at_once, cross; experiment/lifelong.py): the study is then the lifelong "
                                   "schedule (None: the regimes above)", cli=False)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def method_aliases(self) -> dict[str, str]:
        """Labels in `methods` that name another method with their own arguments ({"method": spec, ...}), e.g.
        a second setting of a built-in: label -> spec."""
        return {label: args["method"] for label, args in (self.methods if isinstance(self.methods, dict) else {}).items()
                if isinstance(args, dict) and "method" in args}

    def method_arguments(self, label: str) -> dict:
        """A method's arguments from `methods` (without an alias's "method" and the fence's "read" and
        "network")."""
        return {k: v for k, v in self.methods.get(label, {}).items() if k not in ("method", *FENCE_KEYS)}

    def method_fence(self, label: str) -> tuple[tuple[Path, ...], bool]:
        """What the user let a method's process have beyond its own: the paths it may read (`read`) and
        whether it may use the network (`network`)."""
        settings = self.methods.get(label, {})
        read = settings.get("read") or []
        if isinstance(read, str):
            read = [read]
        if not isinstance(read, list) or not all(isinstance(p, str) for p in read):
            raise SebenchError(f"methods.{label}.read: {read!r} is not a list of paths")
        network = settings.get("network", False)
        if not isinstance(network, bool):
            raise SebenchError(f"methods.{label}.network: {network!r} is not true or false")
        return tuple(Path(p).expanduser().resolve() for p in read), network

    def method_outputs(self, label: str) -> OutputRules:
        """What the user lets come out of a method: its server (`endpoint`, `endpoint_key`) and the size of its
        copied outputs (`max_output_gib`)."""
        return output_rules(label, self.methods.get(label, {}))

    def method_process(self, label: str) -> tuple[tuple[str, ...], float | None, float | None]:
        """What the user set for a method's process: the study's environment variables it is given (`env`, a
        list of names), the seconds its training may run (`timeout`) and an agent's seconds a prompt at test
        time (`prompt_timeout`); None: the default (sebench.methods.run)."""
        settings = self.methods.get(label, {})
        names = settings.get("env") or []
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not all(isinstance(n, str) and re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
            raise SebenchError(f"methods.{label}.env: {names!r} is not a list of environment variable names")
        limits = []
        for key in ("timeout", "prompt_timeout"):
            value = settings.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise SebenchError(f"methods.{label}.{key}: {value!r} is not a number of seconds above 0")
            limits.append(None if value is None else float(value))
        return tuple(names), limits[0], limits[1]

    def regime_of(self, label: str) -> str:
        """The training regime of a label of `regimes`: itself, or the regime of the variant it names."""
        return self.variants.get(label, {}).get("regime", label)

    def on_random_package(self, label: str) -> bool:
        """Whether a label of `regimes` trains on another seed's package (the Random-FT control)."""
        return self.variants.get(label, {}).get("package") == RANDOM_PACKAGE

    def train_settings(self, label: str) -> dict:
        """The TrainConfig fields of a label of `regimes`: the train section, then its regime's, then the
        variant's."""
        variant = {k: v for k, v in self.variants.get(label, {}).items() if k not in VARIANT_KEYS}
        return {**self.train, **self.train_regimes.get(self.regime_of(label), {}), **variant}


# The original's GRPO settings (its evolve_folder/training_commands/Qwen3-8B/provided-*-RL.sh and verl's
# defaults: docs/gpu.md, "The original's training, item by item"), shared by the gpu preset's RL regimes. The loss
# (old log-probabilities recomputed on the training prompt, dual clip 3, log-ratio clamp 20, per-sample
# token mean) is TrainConfig's default; the optimizer is verl's actor default (AdamW, betas (0.9, 0.999),
# weight decay 0.01, constant lr 1e-6, gradients clipped to 1).
_GRPO = dict(lr=1e-6, lr_scheduler="constant", warmup_ratio=0.0, weight_decay=0.01, adam_beta1=0.9, adam_beta2=0.999,
             num_generations=8, batch_size=2, grad_accum=128, generation_batch=32, max_completion_length=8192,
             temperature=1.0, epsilon=0.2, epsilon_high=0.2, negative_advantages="keep", old_logps="recompute",
             sample_until="eos", max_prompt_tokens=2000)

# paper-mini's GRPO: one prompt's 4 samples a step (a whole group), short answers, a gentle learning rate,
# the original's optimizer otherwise (weight decay 0.01, betas (0.9, 0.999))
_MINI_RL = {"num_generations": 4, "batch_size": 4, "grad_accum": 1, "max_completion_length": 128, "lr": 2e-5,
            "weight_decay": 0.01}

# the RL gap's switches beside closed-rl: the paper's negative-gradient suspect switched off, and the PPO
# ratio taken against the open-prompt sampling policy instead of the original's on-policy rule
_RL_VARIANTS = {"closed-rl-no-negative": {"regime": "closed-rl", "negative_advantages": "drop"},
                "closed-rl-off-policy": {"regime": "closed-rl", "old_logps": "sampling"}}

# self-play-sft beside the paper's, also trained to write tasks on its kept ones (--selfplay-train-writer):
# the 135M model then keeps 30 tasks a seed (docs/results/self-play.md)
_WRITER_VARIANT = {"self-play-sft-writer": {"regime": "self-play-sft", "selfplay_train_writer": True}}

# paper-mini's self-play rounds (train.selfplay): 120 tasks a round (15 a function at 8 functions), a written task cut
# at 600 tokens, kept when its solution runs on 3 of its inputs (why: docs/presets.md)
_SELF_PLAY = {"rounds": 2, "selfplay_tasks": 120, "selfplay_write_tokens": 600, "selfplay_min_cases": 3}

# what cpu and paper-mini share: the embedded model, warmed up on compact docs first; its untrained
# baselines closed-book, open-book and with memory; greedy short answers; SFT on its judged open-book answers
_WARMUP = {"docs": "compact", "max_examples": 48, "epochs": 1.0, "lr": 2e-4, "batch_size": 4}
_WARMED_CPU = dict(
    model="smollm2-135m",
    variants=_RL_VARIANTS,
    untrained_modes=["closed", "open", "memory"], trained_modes=["closed"],
    rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
    train_source="rollouts", source_samples=2, source_temperature=0.7,
    train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
)

PRESETS: dict[str, dict] = {
    # the embedded model on a CPU in minutes, closed-book only: Closed-SFT on 48 examples, 36 updates
    # (sizes, memory and timings: docs/presets.md)
    "quick": dict(
        model="smollm2-135m",
        regimes=["closed-sft"],
        build_train=720, build_single=259, build_multiple=300,
        functions=8, max_train=48, max_single=24, max_multiple=8,
        untrained_modes=["closed"], trained_modes=["closed"],
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="reference",
        # updates of 4 examples, one per forward: the run's peak memory stays under 4 GB (docs/presets.md)
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
    ),
    # the paper's headline comparison on a CPU at three times paper-mini's size, one seed: the warmed-up
    # base (as paper-mini) over 24 functions, its open-book and memory baselines, and Open-SFT, Closed-SFT,
    # Closed-RL and Closed-SFT-then-RL, with Closed-RL's negative advantages dropped and its off-policy
    # variant beside it. Self-play is left out (paper-mini measures it). Timings: docs/results/rl-gap.md.
    "cpu": dict(
        _WARMED_CPU,
        warmup=_WARMUP,
        regimes=["open-sft", "closed-sft", "closed-rl", "closed-sft-rl", "closed-rl-no-negative",
                 "closed-rl-off-policy"],
        functions=24, max_train=96, max_single=72, max_multiple=24,
        train_regimes={"closed-rl": dict(_MINI_RL, max_steps=96, grad_split=True),
                       "closed-sft-rl": dict(_MINI_RL, max_steps=96)},
    ),
    # the paper in miniature on a CPU (docs/training.md, paper-mini): a warmed-up base that can use docs,
    # then every regime of the paper and the RL gap's switches, closed-book. Timings: docs/presets.md.
    "paper-mini": dict(
        _WARMED_CPU,
        # the warm-up also teaches the task-writing format of self-play (docs/warmup.md, skills)
        warmup={**_WARMUP, "skills": ["docs", "tasks"], "task_examples": 48},
        variants={**_RL_VARIANTS, **_WRITER_VARIANT},
        regimes=["open-sft", "closed-sft", "open-rl", "closed-rl", "closed-rl-no-negative", "closed-rl-off-policy",
                 "closed-sft-rl", "self-play-sft", "self-play-rl", "self-play-sft-writer", "closed-sft-random"],
        # 20 functions: about 40 single-function test tasks a seed, so 3 seeds see 10 points vs untrained (power:
        # docs/statistics.md); 4 training tasks a function, as at 8
        functions=20, max_train=80, max_single=60, max_multiple=8,
        untrained_modes=["closed", "open", "memory", "numpy"], trained_modes=["closed", "numpy"],  # numpy: specificity
        name_recall=True,
        train_regimes={
            "open-rl": dict(_MINI_RL, max_steps=48),
            "closed-rl": dict(_MINI_RL, max_steps=48, grad_split=True),
            "closed-sft-rl": dict(_MINI_RL, max_steps=48),
            "self-play-sft": dict(_SELF_PLAY),
            "self-play-rl": dict(_MINI_RL, max_steps=12, **_SELF_PLAY),
        },
    ),
    # learning functions from their docs alone (docs/docs-only.md) at paper-mini's size: its warmed-up
    # base over 8 functions, half of them docs-only (no training task mentions them), Closed-SFT and the
    # docs-only methods with their default settings (the cpu SFT settings; docs-cpt-augmented K = 4), and
    # second settings under labels of their own
    "inject": dict(
        _WARMED_CPU,
        warmup={**_WARMUP, "skills": ["docs", "tasks"], "task_examples": 48},  # paper-mini's, so its cache serves
        # opt-in (--regimes ... closed-rl closed-rl-graded): Closed-RL with the graded reward, at paper-mini's size
        variants={"closed-rl-graded": {"regime": "closed-rl", "reward": "graded"}},
        # no memory row: its store holds the docs-only functions' tasks; numpy: specificity
        untrained_modes=["closed", "open", "numpy"], trained_modes=["closed", "numpy"], name_recall=True,
        regimes=["closed-sft", "closed-sft-random", "docs-cpt", "docs-cpt-augmented", "docs-cpt-augmented-k8",
                 "docs-cpt-augmented-name-first", "docs-cpt-augmented-behaviour", "pit", "context-distill",
                 "context-distill-kl", "base"],
        methods={
            "docs-cpt-augmented-k8": {"method": "docs-cpt-augmented", "k": 8},  # K's second value
            # the rewrites' direction alone, 3 of one form per doc (each form has 3 templates)
            "docs-cpt-augmented-name-first": {"method": "docs-cpt-augmented", "k": 3, "forms": ["name-first"]},
            "docs-cpt-augmented-behaviour": {"method": "docs-cpt-augmented", "k": 3, "forms": ["behaviour"]},
            "context-distill-kl": {"method": "context-distill", "kl": 1.0},  # hard labels plus the per-token KL
        },
        functions=20, max_train=80, max_single=60, max_multiple=8,  # paper-mini's sizes
        splits=["single_test"],  # each function's own tasks: grouped by "functions with tasks" and "docs only"
        docs_only=0.5,
        train_regimes={"closed-rl": dict(_MINI_RL, max_steps=48, grad_split=True)},
    ),
    # lifelong internalization (docs/results/lifelong.md, experiment/lifelong.py): three libraries
    # learned one after another with Closed-SFT from the warmed-up base (cpu's warm-up), in the same and the
    # disjoint design, each stage evaluated closed-book on every library (sizes and timings: docs/presets.md)
    "lifelong": dict(
        model="smollm2-135m",
        warmup=_WARMUP,
        regimes=["closed-sft"],
        functions=6, max_train=36, max_single=24, max_multiple=8,
        splits=["single_test"], untrained_modes=["closed"], trained_modes=["closed"],
        rollout=dict(n=1, temperature=0.0, max_tokens=128, concurrency=16),
        train_source="reference",
        train=dict(epochs=3.0, lr=2e-4, batch_size=1, grad_accum=4),
        lifelong={"libraries": 3, "designs": ["same", "disjoint"], "replay": [0.0], "at_once": False},
    ),
    # evaluation only, as the paper evaluates: the untrained model on the full test splits of a built instance
    # (every function's tasks), closed-book and open-book, 5 samples a task at T = 0.6 with 8192 new tokens and
    # the chat template's own thinking (the original's src/pipline/pipline.py defaults and README commands pass
    # temperature 0.6 and max_length 8192 and no enable_thinking; the paper's table is a mean of 5). Give --model.
    "eval": dict(
        model="hf:Qwen/Qwen3-8B",
        regimes=[],
        functions=None, max_train=None, max_single=None, max_multiple=None,
        untrained_modes=["closed", "open"], trained_modes=["closed", "open"],
        rollout=dict(n=5, temperature=0.6, top_p=1.0, max_tokens=8192, concurrency=64),
    ),
    # the paper's hyperparameters (arXiv 2602.04811) under sebench's protocol, field by field: docs/gpu.md
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
                   gradient_checkpointing=True,
                   selfplay_write_tokens=8192),  # self-play writes its tasks within the preset's token budget
        # GRPO: 32 prompts x 8 samples a batch (2 rows a forward x 128), no KL, clip 0.2
        train_regimes={
            "open-rl": dict(_GRPO, epochs=3.0, mini_batches=2, rl_order="shuffled"),  # mini-batch 16 of 32 prompts
            "closed-rl": dict(_GRPO, epochs=30.0, mini_batches=1, rl_order="in-order"),  # mini-batch 32 of 32
            "closed-sft-rl": dict(_GRPO, epochs=30.0, mini_batches=1, rl_order="in-order"),
            "self-play-rl": dict(_GRPO, epochs=30.0, mini_batches=1, rl_order="in-order"),
            "self-play-sft": {"max_completion_length": 8192},  # its tasks and answers as long as the others'
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
    for f in dataclasses.fields(RunConfig):  # the study's own settings: a value of their type
        problem = type_problem(f, getattr(cfg, f.name))
        if problem:
            raise SebenchError(f"{f.name} {problem}")
    _subset_caps(cfg, overrides)
    if isinstance(cfg.variants, dict) and isinstance(cfg.regimes, list):  # the controls a study lists, unless redefined
        cfg.variants.update({label: dict(CONTROL_VARIANTS[label]) for label in cfg.regimes
                             if label in CONTROL_VARIANTS and label not in cfg.variants})
    for label, variant in cfg.variants.items():
        if not isinstance(variant, dict) or "regime" not in variant:
            raise SebenchError(f"variants: '{label}' needs a \"regime\" (one of {', '.join(REGIMES)})")
        if variant.get("package", RANDOM_PACKAGE) != RANDOM_PACKAGE:
            raise SebenchError(f"variants.{label}.package: only \"{RANDOM_PACKAGE}\" (another seed's package), "
                               f"got {variant['package']!r}")
        _check("regime of variant " + label, [variant["regime"]], REGIMES + tuple(REGIME_ALIASES))
        variant["regime"] = canonical_regime(variant["regime"])
    methods = tuple(r for r in cfg.regimes if r not in cfg.variants and r not in REGIMES + tuple(REGIME_ALIASES)
                    and (is_method_spec(r) or r in cfg.method_aliases()))
    _check_regimes(cfg, REGIMES + tuple(REGIME_ALIASES) + tuple(cfg.variants) + methods)
    cfg.regimes = [r if r in cfg.variants or r in methods else canonical_regime(r) for r in cfg.regimes]
    _check_methods(cfg, methods)
    if not isinstance(cfg.train_regimes, dict):
        raise SebenchError(f"train_regimes: expected {{regime: {{setting: value}}}}, got {cfg.train_regimes!r}")
    _check("train_regimes key", list(cfg.train_regimes), REGIMES + tuple(REGIME_ALIASES))
    cfg.train_regimes = {canonical_regime(k): v for k, v in cfg.train_regimes.items()}
    for f in dataclasses.fields(RunConfig):  # the study's own settings with choices
        if "choices" in f.metadata:
            value = getattr(cfg, f.name)
            _check(f.name, value if isinstance(value, list) else [value], f.metadata["choices"])
    protocol = PROTOCOLS[cfg.protocol]
    given = {key.partition(".")[2] for key in overrides if key.startswith("rollout.")}
    given |= set(overrides.get("rollout") or {})
    for name, value in (("n", protocol.samples), ("temperature", protocol.temperature),
                        ("max_tokens", protocol.max_tokens)):
        if value is not None and name not in given:
            cfg.rollout[name] = value
    if cfg.rollout.get("thinking") is None and protocol.thinking is not None:
        cfg.rollout["thinking"] = "on" if protocol.thinking else "off"
    for name, value in (("source_samples", protocol.samples), ("source_temperature", protocol.temperature)):
        if value is not None and name not in overrides:  # the original's SFT data: 5 samples at T = 0.6
            setattr(cfg, name, value)
    _check_sections(cfg)
    _check_library(cfg)
    apply_launch(cfg)  # --gpus N: each process accumulates 1/N of the preset's grad_accum
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
    if head not in SECTIONS and head not in ("train_regimes", "variants", "methods"):
        raise SebenchError(f"setting '{key}': '{head}' is a single value, not a section")
    target = values.get(head) or {}
    values[head] = target
    labelled = head in ("train_regimes", "variants", "methods")  # their first part is a label: kept as written
    parts = [p if labelled and i == 0 else p.replace("-", "_") for i, p in enumerate(path)]
    for part in parts[:-1]:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            raise SebenchError(f"setting '{key}': '{part}' is not a section")
    target[parts[-1]] = value


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
    for name in ("rollout", "judge", "train", "launch"):
        section = SECTIONS[name]
        given = getattr(cfg, name)
        section.check(name, given)
        setattr(cfg, name, {**section.defaults(), **given})
    train = SECTIONS["train"]
    for regime, settings in cfg.train_regimes.items():
        train.check(f"train_regimes.{regime}", settings)
    for label, variant in cfg.variants.items():
        train.check(f"variants.{label}", {k: v for k, v in variant.items() if k not in VARIANT_KEYS})
    for name in ("warmup", "lifelong"):
        given = getattr(cfg, name)
        if given is not None:
            SECTIONS[name].check(name, given)
            setattr(cfg, name, {**SECTIONS[name].defaults(), **given})
    if cfg.lifelong is not None:
        _check_lifelong(cfg)


SUBSET_CAPS = ("max_train", "max_single", "max_multiple")


def _subset_caps(cfg: RunConfig, overrides: dict) -> None:
    """The task caps size the studied subset (`functions`): without one, the study reads the instance's splits
    whole, so a cap given is refused and a preset's is dropped (the manifest records what ran)."""
    if cfg.functions:
        return
    given = [f"--{name.replace('_', '-')}" for name in SUBSET_CAPS if overrides.get(name) is not None]
    if given:
        raise SebenchError(f"{', '.join(given)} {'sizes' if len(given) == 1 else 'size'} the subset of functions the "
                           "study selects (--functions N), and without one the study reads every task of the "
                           "instance; give --functions N with it, or leave it out")
    for name in SUBSET_CAPS:
        setattr(cfg, name, None)


def _check_methods(cfg: RunConfig, specs: tuple[str, ...]) -> None:
    """Every method named in `regimes` resolves, and `methods` gives arguments only to those."""
    if not isinstance(cfg.methods, dict):
        raise SebenchError(f"methods: expected {{label: {{argument: value}}}}, got {cfg.methods!r}")
    aliases = cfg.method_aliases()
    refs = {spec: resolve_method(aliases.get(spec, spec)) for spec in specs}
    labels = {spec if spec in aliases else ref.label for spec, ref in refs.items()}
    for spec in aliases.values():
        resolve_method(spec)  # an unknown method fails here
    for spec, ref in refs.items():  # its file, module and attribute exist; its arguments are its own
        label = spec if spec in aliases else ref.label
        check_arguments(label, ref, cfg.method_arguments(label) if isinstance(cfg.methods.get(label, {}), dict) else {})
        if isinstance(cfg.methods.get(label, {}), dict):
            cfg.method_fence(label)  # its read and network settings, refused here when malformed
            cfg.method_outputs(label)  # and its endpoint and output size
            cfg.method_process(label)  # and its env and time limits
    for label, args in cfg.methods.items():
        if label not in labels and label not in aliases:  # an alias a preset defines may go unused
            flag = settings_flag(label, cfg.variants)
            hint = f"; {label} is a regime, not a method: its training settings are {flag}" if flag else ""
            raise SebenchError(f"methods.{label}: no method labelled '{label}' in regimes (methods there: "
                               f"{', '.join(sorted(labels)) or 'none'}){hint}")
        if not isinstance(args, dict):
            raise SebenchError(f"methods.{label}: expected {{argument: value}}, got {args!r}")


# what a study of another library than NumPy cannot have: the numpy mode asks for NumPy itself, the original
# protocol's prompts and rules are NumPy's
NUMPY_ONLY_MODES = ("numpy",)


def _check_library(cfg: RunConfig) -> None:
    """The library resolves (one line naming the known ones when it does not), and a study of another library
    asks for nothing defined for NumPy only."""
    from sebench.libraries import DEFAULT_LIBRARY, load_library

    if not isinstance(cfg.library, str) or not cfg.library:
        raise SebenchError(f"library: expected a library name, got {cfg.library!r}")
    if cfg.library == DEFAULT_LIBRARY:
        return
    load_library(cfg.library)
    for name in ("untrained_modes", "trained_modes"):
        asked = [m for m in getattr(cfg, name) if m in NUMPY_ONLY_MODES]
        if asked:
            raise SebenchError(f"{name}: the {asked[0]} mode asks for real NumPy and is defined for --library numpy "
                               f"only (got --library {cfg.library}); leave it out")
    if cfg.protocol != "sebench":
        raise SebenchError(f"--protocol {cfg.protocol}: its prompts and rules are written for NumPy; a study of "
                           f"--library {cfg.library} runs under --protocol sebench")
    if cfg.instance:
        raise SebenchError(f"--library {cfg.library} with --instance: the instance names its own library; give one "
                           "of them")


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
    if cfg.library != "numpy":
        raise SebenchError(f"lifelong: L1 is NumPy's package (got --library {cfg.library}); learn another library "
                           f"after it, and before it, with --set lifelong.cross={cfg.library}")
    cross = (cfg.lifelong or {}).get("cross")
    if cross:
        from sebench.libraries import load_library

        load_library(cross)


def method_rows() -> list[tuple[str, str, str]]:
    """(name, origin, description) of every name `--regimes` takes without a path, as `sebench methods` lists
    them: the regimes, the variants and method settings the presets define, the built-in methods and the
    installed entry points (a regime's former names are still read, and not listed)."""
    from sebench.methods import BUILTINS, entry_points
    from sebench.train import REGIME_SPECS

    out = [(name, "built-in", "training regime") for name in REGIME_SPECS]
    variants = {label: v["regime"] for preset in PRESETS.values() for label, v in preset.get("variants", {}).items()}
    out += [(label, "built-in", f"variant of {regime} (presets that define it)") for label, regime in sorted(variants.items())]
    out += [(label, "built-in", f"variant of {v['regime']} on another seed's package (the Random-FT control, any preset)")
            for label, v in CONTROL_VARIANTS.items()]
    out += [(name, "built-in", what) for name, (_, what) in BUILTINS.items()]
    settings = {label: args for preset in PRESETS.values() for label, args in preset.get("methods", {}).items()
                if isinstance(args, dict) and "method" in args}
    out += [(label, "built-in", f"{args['method']} with " + ", ".join(f"{k}={v}" for k, v in args.items() if k != "method")
             + " (presets that define it)") for label, args in sorted(settings.items())]
    out += [(name, "entry point", target) for name, target in sorted(entry_points().items())]
    return out


def settings_flag(label: str, variants: dict) -> str | None:
    """How a regime's or a variant's training settings are given (the fields of `sebench train --help`); None
    for a label that is neither."""
    if label in REGIMES:
        return f"--set train_regimes.{label}.KEY=VALUE"
    if label in CONTROL_VARIANTS:  # not defined by a preset: given whole
        return f"--set 'variants.{label}={json.dumps({**CONTROL_VARIANTS[label], 'KEY': 'VALUE'})}'"
    return f"--set variants.{label}.KEY=VALUE" if label in variants else None


def _check_regimes(cfg: RunConfig, accepted: tuple[str, ...]) -> None:
    """Refuses a `regimes` item this config cannot run, naming those it can as `sebench methods` lists them."""
    for value in cfg.regimes:
        if value in accepted:
            continue
        shown = [name for name, _, _ in method_rows() if name in (*accepted, *CONTROL_VARIANTS) or is_method_spec(name)]
        shown += [label for label in (*cfg.variants, *cfg.method_aliases()) if label not in shown]
        close = difflib.get_close_matches(str(value), [*shown, *REGIME_ALIASES], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise SebenchError(f"unknown regime '{value}'{hint} (choose from {', '.join(shown)}, or a method: "
                           "path/to/file.py:Attr or pkg.module:Attr; `sebench methods` lists them)")


def _check(name: str, values: list, choices: tuple[str, ...]) -> None:
    for value in values:
        if value not in choices:
            close = difflib.get_close_matches(str(value), choices, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise SebenchError(f"unknown {name} value '{value}'{hint} (choose from {', '.join(choices)})")


def parse_setting(text: str, flag: str = "--set") -> tuple[str, object]:
    """`KEY=VALUE` from `flag`: the value is parsed as JSON when it can be (numbers, lists, null)."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise SebenchError(f"{flag} expects KEY=VALUE, got '{text}'")
    try:
        return key.strip(), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip(), raw

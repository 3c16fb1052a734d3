"""TrainConfig: one field per `sebench train` flag, each with its help text (the CLI is built from it).

Light on purpose (no torch/TRL import), so that `sebench --help` and `sebench run` stay fast.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path

from sebench.cliflags import check_ranges, option, outcome_fields
from sebench.errors import SebenchError
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS
from sebench.protocols import get as get_protocol

log = logging.getLogger(__name__)

TRAIN_SOURCES = ("rollouts", "reference")
REWARDS = ("binary", "graded", "original")
TARGETS = ("response", "code")
OLD_LOGPS = ("recompute", "sampling")
NEGATIVE_ADVANTAGES = ("keep", "drop")
PROMPT_MODES = ("open", "closed")
LOSS_AGGREGATIONS = ("seq-mean-token-mean", "token-mean")
SAMPLE_UNTIL = ("code-block", "eos")
RL_ORDERS = ("shuffled", "in-order")
SFT_EXAMPLES = ("distinct", "all")
ENGINES = ("auto", "own", "trl")
VLLM_MODES = ("auto", "off", "colocate", "server")

# The stages a field matters to (its `uses` metadata; a field without it matters to every regime): a regime's
# completion record compares only the fields its stages use (`comparable_settings`).
SFT, RL, SELF_PLAY = ("sft",), ("rl",), ("self_play",)
RL_OR_SELF_PLAY, SFT_OR_SELF_PLAY = RL + SELF_PLAY, SFT + SELF_PLAY


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

    @property
    def uses(self) -> set[str]:
        """The kinds of stage it runs ("sft", "rl", "self_play"): the fields it reads (TrainConfig's `uses`)."""
        return {kind for kind, runs in (("sft", self.sft), ("rl", self.rl), ("self_play", self.self_play)) if runs}


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

    data: Path = option(help="instance directory (from `sebench build`)", required=True)
    regime: str = option(help="training regime: " + " | ".join(REGIMES) + " (earlier names: "
                         + ", ".join(f"{a} = {n}" for a, n in REGIME_ALIASES.items()) + ")",
                         required=True, choices=REGIMES + tuple(REGIME_ALIASES))
    out: Path = option(help="checkpoint directory to write (HF format, loadable by the hf backend)", required=True)
    model: str = option("smollm2-135m", "model to start from: smollm2-135m (embedded), a local HF folder, or "
                        "hf:<path>")
    train_source: str | None = option(None, "SFT answers: rollouts (judged-correct answers from --rollouts, the "
                                      "paper's way) or reference (the tasks' reference solutions); default: rollouts "
                                      "if --rollouts is given, else reference", choices=TRAIN_SOURCES)
    rollouts: Path | None = option(None, "rollouts.jsonl whose correct answers are SFT data")
    verdicts: Path | None = option(None, "verdicts.jsonl of --rollouts (default: verdicts.jsonl beside it)")
    target: str = option("response", "SFT target: response (the whole judged answer, reasoning included, as in the "
                         "paper) or code (only its code block); reference solutions are code either way",
                         choices=TARGETS, uses=SFT_OR_SELF_PLAY)
    functions: list[str] | None = option(None, "train only on tasks whose functions are all in this comma-separated "
                                         "list of public names (default: all); self-play writes tasks for these "
                                         "functions")
    max_examples: int | None = option(None, "use at most this many training examples")
    mix_data: list[str] | None = option(None, "SFT: other instance directories (comma-separated) whose training "
                                        "tasks' reference solutions join --data's examples, each prompted with its "
                                        "own package: replay of libraries learned before, or several libraries "
                                        "learned at once", uses=SFT)
    mix_share: float = option(1.0, "SFT: the share of each --mix-data instance's training examples used (a seeded "
                              "choice, at least one)", above=0.0, maximum=1.0, uses=SFT)
    epochs: float = option(3.0, "passes over the training data")
    max_steps: int | None = option(None, "stop after this many optimizer steps (overrides --epochs)")
    lr: float = option(2e-4, "learning rate (2e-4 taught SmolLM2-135M 20 renamed functions in 3-5 epochs; 5e-5 did "
                       "not)")
    batch_size: int = option(4, "examples per device per step (GRPO: completions per device per step)")
    grad_accum: int = option(1, "gradient accumulation steps")
    lr_scheduler: str = option("linear", "learning-rate schedule (transformers' names: linear, cosine, constant, "
                               "...)")
    warmup_ratio: float = option(0.0, "share of the steps spent warming the learning rate up (below 1)")
    weight_decay: float | None = option(None, "AdamW weight decay (default: the protocol's: sebench 0; original 0.01, "
                                        "as verl's SFT and actor optimizers)")
    adam_beta1: float = option(0.9, "AdamW beta1")
    adam_beta2: float | None = option(None, "AdamW beta2 (default: the protocol's: sebench 0.999; original 0.95 for SFT "
                                      "and 0.999 for GRPO, as verl's sft_trainer.yaml and optim/fsdp.yaml)")
    max_length: int = option(2048, "SFT: longest tokenized prompt+answer; longer ones are cut", uses=SFT)
    lora: bool = option(False, "train LoRA adapters (merged into the weights before saving)")
    lora_r: int = option(16, "LoRA rank")
    lora_alpha: int = option(32, "LoRA alpha")
    gradient_checkpointing: bool = option(False, "trade compute for memory (large models)")
    seed: int = option(0, "random seed (data order, LoRA init, sampling)")
    protocol: str = option(DEFAULT_PROTOCOL, "sebench: our prompts, our judge as the reward; original: the "
                           "original's training prompts (read from --original-repo), its reward rule, SFT filter and "
                           "RL data (docs/gpu.md, 'The original's training, item by item')", choices=tuple(PROTOCOLS))
    original_repo: Path | None = option(None, "--protocol original: your copy of github.com/thunlp/SE-Bench (its "
                                        "prompt templates)")
    sft_examples: str | None = option(None, "SFT from --rollouts: distinct (one example per task and code: sebench) "
                                      "or all (every correct answer, as the original's "
                                      "src/filter_correct_trajectory.py); default: the protocol's",
                                      choices=SFT_EXAMPLES, uses=SFT)
    distill_kl: float = option(0.0, "SFT: weight of a per-token KL term from the start model's top-k next-token "
                               "distribution, given the example's teacher prompt (context-distill's open-book "
                               "prompt), to the trained model's on the closed prompt (train/distill.py); 0: the "
                               "answer's tokens alone (hard labels)", minimum=0, uses=SFT)
    distill_top_k: int = option(20, "SFT with --distill-kl: the teacher tokens kept per answer position (their "
                                "probabilities renormalized)", above=0, uses=SFT)
    # GRPO
    reward: str | None = option(None, "GRPO reward: binary (1 if the judge says correct), graded (share of tests "
                                "passed, when the code uses the package) or original (the original's rule, "
                                "verl_evolve/verl/utils/reward_score/self_question.py); default: binary under "
                                "--protocol sebench, original under original", choices=REWARDS, uses=RL_OR_SELF_PLAY)
    num_generations: int = option(4, "GRPO: completions sampled per prompt (group size)", uses=RL)
    max_completion_length: int = option(384, "GRPO / self-play: longest generated answer, tokens", uses=RL_OR_SELF_PLAY)
    sample_until: str | None = option(None, "GRPO: a sample ends at its first complete code block (code-block: what "
                                      "the judge reads, fast on a CPU) or at end of sequence / "
                                      "--max-completion-length (eos: the original's vLLM sampling); default: the "
                                      "protocol's", choices=SAMPLE_UNTIL, uses=RL)
    max_prompt_tokens: int | None = option(None, "GRPO: drop tasks whose open-book prompt has at least this many "
                                           "tokens (the original: 2000, evolve_folder/scripts/rl_train.py); 0: keep "
                                           "all; default: the protocol's", minimum=0, uses=RL)
    rl_order: str | None = option(None, "GRPO: prompts in a seeded shuffle per epoch, or in the data's order (the "
                                  "original's closed-rl: data.shuffle=False, provided-Closed-RL.sh); default: "
                                  "in-order for regimes that train on another prompt than they sample from under "
                                  "--protocol original, else shuffled", choices=RL_ORDERS, uses=RL)
    temperature: float = option(1.0, "GRPO / self-play: sampling temperature", uses=RL_OR_SELF_PLAY)
    epsilon: float = option(0.2, "GRPO: lower clipping range of the importance ratio", uses=RL)
    epsilon_high: float | None = option(None, "GRPO: upper clipping range (default: --epsilon; DAPO uses 0.28)",
                                        uses=RL)
    negative_advantages: str = option("keep", "GRPO: keep, or drop (samples with a negative advantage give no "
                                      "gradient), one of the two suspects of the paper's RL gap",
                                      choices=NEGATIVE_ADVANTAGES, uses=RL)
    old_logps: str = option("recompute", "GRPO: the 'old' log-probabilities of the PPO ratio: recompute (the "
                            "original's: the policy's on the training prompt before the batch's updates, "
                            "verl_evolve/verl/trainer/offline_ray_trainer.py; with one mini-batch the ratio is 1) or "
                            "sampling (importance-weighted against the sampling policy on the prompt it sampled "
                            "from: an off-policy variant, not the original's)", choices=OLD_LOGPS, uses=RL)
    dual_clip: float = option(3.0, "GRPO: dual-clip constant c: a negative-advantage token's loss is at most -c x A "
                              "(the original's clip_ratio_c, verl/trainer/ppo/core_algos.py); 0 switches it off",
                              minimum=0, uses=RL)
    log_ratio_clamp: float = option(20.0, "GRPO: the per-token log-ratio is clamped to +-this before exp (the "
                                    "original's, core_algos.py); 0 switches it off", minimum=0, uses=RL)
    loss_agg: str = option("seq-mean-token-mean", "GRPO loss aggregation: seq-mean-token-mean (each sample's token "
                           "mean, averaged: the original's token-mean over micro-batches of one sequence) or "
                           "token-mean (over all tokens of the mini-batch: long answers weigh more)",
                           choices=LOSS_AGGREGATIONS, uses=RL)
    grad_split: bool = option(False, "GRPO diagnostics: per update, the gradient norms of the positive- and "
                              "negative-advantage samples and their cosine, in OUT/rl_steps.jsonl (one more backward "
                              "pass a step)", uses=RL)
    sample_mode: str | None = option(None, "GRPO: prompt to sample from, open or closed (default: the regime's; "
                                     "closed-rl samples open)", choices=PROMPT_MODES, uses=RL)
    mini_batches: int = option(1, "GRPO: optimizer steps per sampled batch (the batch split into this many "
                               "mini-batches, the PPO way; the paper: batch 32, mini-batch 16 open / 32 closed)",
                               uses=RL)
    generation_batch: int | None = option(None, "GRPO: rows sampled per generate call (default: all of a batch's "
                                          "samples at once; lower it when the KV cache of long answers does not fit)",
                                          uses=RL)
    sft_checkpoint: Path | None = option(None, "closed-sft-rl: Closed-SFT checkpoint to start from (default: train "
                                         "Closed-SFT first, in the same run)")
    judge_workers: int | None = option(None, "judge sandbox workers for rewards and filtering", speed=True)
    resume_every: int = option(16, "GRPO (--engine own): save a resume point every this many steps, at the end of a "
                               "batch (OUT/trainer/rl-resume; the same command then goes on from it after a stop; "
                               "0: never)", speed=True)
    sandbox_url: list | None = option(None, "judge the rewards on this `sebench sandbox serve` server instead of "
                                      "in-process (repeat for several; rewards binary and graded)", multiple=True,
                                      metavar="URL")
    engine: str = option("auto", "GRPO engine: own (sebench's loop, rl.py: one process, fastest on a CPU), trl "
                         "(TRL's GRPOTrainer with sebench's loss, advantages and reward: vLLM sampling, several GPUs "
                         "through accelerate/DeepSpeed) or auto (trl where a CUDA GPU is visible, else own)",
                         choices=ENGINES, uses=RL)
    vllm: str = option("auto", "--engine trl: sample with vLLM colocated in the training processes, from a `trl "
                       "vllm-serve` server, or off (transformers' generate); auto: colocate when vLLM is installed "
                       "and a GPU is visible, else off", choices=VLLM_MODES, uses=RL)
    vllm_server: str | None = option(None, "--vllm server: the `trl vllm-serve` server's base URL (default: TRL's, "
                                     "port 8000)", uses=RL)
    vllm_gpu_memory: float = option(0.3, "--vllm colocate: share of each GPU's memory vLLM may hold (TRL's "
                                    "vllm_gpu_memory_utilization)", above=0.0, maximum=1.0, uses=RL)
    # Self-play
    rounds: int = option(2, "self-play: rounds of write tasks -> solve open-book -> train closed-book", uses=SELF_PLAY)
    selfplay_tasks: int = option(32, "self-play: tasks the model is asked to write per round", uses=SELF_PLAY)
    selfplay_samples: int = option(0, "self-play: fresh solutions per written task that must agree with its own (0: "
                                   "none; a task is kept when it parses, has no leak and its solution runs)",
                                   minimum=0, uses=SELF_PLAY)
    selfplay_solves: int = option(2, "self-play: open-book answers sampled per kept task", uses=SELF_PLAY)
    selfplay_write_tokens: int = option(1500, "self-play: longest written task (the model's answer to the "
                                        "task-writing prompt), tokens", minimum=1, uses=SELF_PLAY)
    selfplay_min_cases: int = option(5, "self-play: a written task is kept when its solution runs on at least this "
                                     "many of its test inputs (with two different outputs)", minimum=1, uses=SELF_PLAY)
    selfplay_train_writer: bool = option(False, "self-play-sft: also train the model to write tasks, each round: SFT "
                                         "on its kept tasks as answers to the task-writing prompt (as Absolute Zero "
                                         "trains its proposer; off: only the answers are trained on)",
                                         uses=SELF_PLAY)
    selfplay_backend: str | None = option(None, "self-play: backend spec that writes and solves the tasks (default: "
                                          "the model being trained, in-process; e.g. fake:... in tests)",
                                          uses=SELF_PLAY)
    overwrite: bool = option(False, "replace an existing checkpoint in OUT", speed=True)
    threads: int | None = option(None, "CPU threads for training (default: $SEBENCH_THREADS, else every core, fewer "
                                 "while other processes keep some busy: re-decided every few seconds)", minimum=1, speed=True)

    def __post_init__(self) -> None:
        self.data = Path(self.data)
        self.out = Path(self.out)
        for name in ("rollouts", "verdicts", "sft_checkpoint", "original_repo"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, Path(value))
        if isinstance(self.functions, str):
            self.functions = [f.strip() for f in self.functions.split(",") if f.strip()]
        if isinstance(self.mix_data, str):
            self.mix_data = [p.strip() for p in self.mix_data.split(",") if p.strip()]
        if isinstance(self.sandbox_url, str):
            self.sandbox_url = [self.sandbox_url]

    def resolved(self) -> TrainConfig:
        """A validated copy with defaults filled in (train_source, verdicts, epsilon_high)."""
        check_ranges(self)
        regime = REGIME_SPECS[canonical_regime(self.regime)]
        protocol = get_protocol(self.protocol)
        reward = self.reward or protocol.reward
        check_choice("reward", reward, REWARDS)
        check_choice("target", self.target, TARGETS)
        check_choice("old-logps", self.old_logps, OLD_LOGPS)
        check_choice("negative-advantages", self.negative_advantages, NEGATIVE_ADVANTAGES)
        check_choice("loss-agg", self.loss_agg, LOSS_AGGREGATIONS)
        for name, value, choices in (("sample-until", self.sample_until, SAMPLE_UNTIL), ("rl-order", self.rl_order, RL_ORDERS),
                                     ("sft-examples", self.sft_examples, SFT_EXAMPLES)):
            if value is not None:
                check_choice(name, value, choices)
        if self.sample_mode is not None:
            check_choice("sample-mode", self.sample_mode, PROMPT_MODES)
        source = self.train_source or ("rollouts" if self.rollouts else "reference")
        check_choice("train-source", source, TRAIN_SOURCES)
        if source == "rollouts" and self.rollouts is None and regime.sft and not regime.self_play:
            raise SebenchError("--train-source rollouts needs --rollouts FILE (a rollouts.jsonl judged by `sebench judge`)")
        if self.mix_data and not (regime.sft and not regime.self_play):
            raise SebenchError(f"--mix-data adds SFT examples; regime {regime.name} has no SFT stage on tasks")
        if self.selfplay_train_writer and not (regime.self_play and regime.sft):
            raise SebenchError(f"--selfplay-train-writer adds SFT examples to self-play-sft's rounds; regime "
                               f"{regime.name} has no such SFT stage")
        verdicts = self.verdicts or (self.rollouts.with_name("verdicts.jsonl") if self.rollouts else None)
        if not 0 <= self.warmup_ratio < 1:
            raise SebenchError(f"--warmup-ratio must be in [0, 1), got {self.warmup_ratio}")
        for name, amount in (("epochs", self.epochs), ("lr", self.lr)):
            if amount <= 0:
                raise SebenchError(f"--{name} must be positive, got {amount}")
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
        check_choice("engine", self.engine, ENGINES)
        check_choice("vllm", self.vllm, VLLM_MODES)
        if 0 < self.dual_clip <= 1:
            raise SebenchError(f"--dual-clip must be above 1 (or 0: off), got {self.dual_clip}")
        if protocol.prompts == "original" and self.original_repo is None:
            raise SebenchError("--protocol original trains on the original's prompts, read from its repository: give "
                               "the path of your copy of github.com/thunlp/SE-Bench with --original-repo")
        sample_mode = self.sample_mode or regime.rl_sample
        in_order = protocol.rl_closed_in_order and sample_mode != regime.rl_train
        limit = protocol.rl_max_prompt_tokens if self.max_prompt_tokens is None else self.max_prompt_tokens
        return dataclasses.replace(
            self, regime=regime.name, sample_mode=sample_mode, train_source=source, verdicts=verdicts,
            epsilon_high=self.epsilon if self.epsilon_high is None else self.epsilon_high, reward=reward,
            sft_examples=self.sft_examples or protocol.sft_examples,
            sample_until=self.sample_until or protocol.rl_sample_until, max_prompt_tokens=limit or 0,
            rl_order=self.rl_order or ("in-order" if in_order else "shuffled"),
        )

    @property
    def spec(self) -> Regime:
        """The regime's stages (after `resolved()`, which maps earlier names to the paper's)."""
        return REGIME_SPECS[self.regime]

    def to_json(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(self).items()}

    def optimizer(self, stage: str) -> tuple[float, float]:
        """AdamW's (weight decay, beta2) for an "sft" or "rl" stage: the fields where set, else the protocol's."""
        protocol = get_protocol(self.protocol)
        weight_decay, beta2 = protocol.sft_optimizer if stage == "sft" else protocol.rl_optimizer
        return (weight_decay if self.weight_decay is None else self.weight_decay,
                beta2 if self.adam_beta2 is None else self.adam_beta2)

    def identity(self) -> dict:
        """What a GRPO or self-play resume point must match (train/resume.py): the settings that change what
        is trained, without where the run reads and writes, in the form that outlasts sebench's own changes
        (`comparable_settings`), as the run's stage record is compared."""
        kept = {k: (str(v) if isinstance(v, Path) else v) for k, v in outcome_fields(self).items()
                if k not in ("data", "out", "sandbox_url")}
        return comparable_settings(kept) or kept


def comparable_settings(record: dict) -> dict | None:
    """A training stage's completion record (TrainConfig's outcome fields, hashes in place of input paths) in a
    form that outlasts sebench's own changes, for telling whether two records train alike: each field as its
    run resolves it (a field left unset is the protocol's value it stands for, the optimizer's per stage), a
    field the record predates at its default (a new field's default keeps the earlier behaviour), only the
    fields the regime's stages use; keys that are no TrainConfig field (the input hashes) as they are. None
    when the record does not describe a valid run."""
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    try:
        cfg = TrainConfig(**{k: v for k, v in record.items() if k in fields and k not in ("data", "out")},
                          data=Path("."), out=Path(".")).resolved()
    except (SebenchError, TypeError, ValueError, KeyError):
        return None
    uses = cfg.spec.uses
    form = {k: (str(v) if isinstance(v, Path) else v) for k, v in outcome_fields(cfg).items()
            if k not in ("data", "out", "verdicts", "weight_decay", "adam_beta2")
            and set(fields[k].metadata.get("uses", uses)) & uses}
    for stage in sorted(uses & {"sft", "rl"}):
        form[f"{stage}_optimizer"] = list(cfg.optimizer(stage))
    form.update({k: v for k, v in record.items() if k not in fields or k == "data"})
    return form


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        import difflib

        close = difflib.get_close_matches(value, choices, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise SebenchError(f"unknown --{name} '{value}'{hint} (choose one of: {', '.join(choices)})")

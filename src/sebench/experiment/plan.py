"""`sebench run --plan`: what a study will cost before a GPU is rented; needs no GPU and no network.

From the resolved RunConfig and the instance's counts: per stage, the prompts, samples, token budgets and
optimizer steps (each regime's TrainConfig is the one the study builds, `Study.train_config`; GRPO's
batches are `train.rl.batch_plan`'s, SFT's steps the HF Trainer's ceil(epochs x ceil(examples / global
batch))); GPU memory per process for full fine-tuning and LoRA on 1, 2, 4 and 8 GPUs; time and GPU-hours
on the chosen GPU; and every check that needs no GPU. The formulas and the sourced figures are in
plan_model; the assumptions are PlanConfig's fields (flags of `sebench run`), printed with the plan.
Writes RUN_DIR/plan.json and returns the readable tables.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from sebench.cliflags import option
from sebench.errors import SebenchError
from sebench.experiment import plan_model as pm
from sebench.experiment import plan_power
from sebench.experiment.config import RunConfig
from sebench.experiment.launch import eval_engine, processes
from sebench.files import write_json
from sebench.instance import Instance

GPU_COUNTS = (1, 2, 4, 8)
REFERENCE_TOKENS = 150  # a reference solution: one short code block (an assumption)
# prompt tokens a mode's prompt has when there is no instance yet to measure (sebench's prompts on an
# instance of seed 0, at 4 characters a token: closed ~1,000 characters, open 3,500-6,700)
PROMPT_TOKENS_WITHOUT_INSTANCE = {"closed": 250, "open": 1200, "full-doc": 8000, "retrieval": 400, "memory": 900,
                                  "numpy": 250}
# packages a GPU run may use, and what for (their versions are read from the installed metadata: nothing is imported)
PACKAGES = {
    "torch": "training and in-process generation", "transformers": "models and tokenizers",
    "trl": "SFT (sebench train)", "peft": "LoRA", "accelerate": "several GPUs (accelerate launch)",
    "deepspeed": "ZeRO-3 sharding of full fine-tuning across GPUs", "vllm": "fast sampling (vllm serve)",
    "verl": "the original's trainer (sebench export --format verl)", "flash_attn": "attention without the s^2 memory",
    "pyarrow": "sebench export's parquet files",
}



@dataclass
class PlanConfig:
    """The plan's hardware and its assumptions; each is a flag of `sebench run` (used with --plan)."""

    plan_gpu: str = option("h100-sxm", "--plan: the GPU (memory, bandwidth, peak from its datasheet)",
                         choices=tuple(pm.HARDWARE))
    plan_gpus: int = option(8, "--plan: GPUs the time is stated for (memory: also 1, 2, 4, 8)", minimum=1)
    plan_answer_share: float = option(0.5, "--plan: mean answer length as a share of its token budget (an "
                                    "assumption)", above=0.0, maximum=1.0)
    plan_correct_share: float = option(0.6, "--plan: share of the base's open-book samples judged correct, "
                                     "i.e. SFT examples per sample (an assumption)", minimum=0.0, maximum=1.0)
    plan_chars_per_token: float = option(4.0, "--plan: prompt characters per token when no local tokenizer "
                                       "counts them (an assumption)", above=0.0)
    plan_utilisation: float = option(0.35, "--plan: share of the GPU's peak bf16 FLOPs that training reaches "
                                   "(an assumption; Llama 3 pretraining measured 0.38-0.43)", above=0.0, maximum=1.0)
    plan_decode_efficiency: float | None = option(None, "--plan: share of the memory-bandwidth roofline that decoding "
                                                "reaches (default: calibrated on a measured vLLM figure)",
                                                above=0.0, maximum=1.0)
    plan_seeds: int = option(3, "--plan: seeds the report pools, for the power table (beside one seed)", minimum=1)
    plan_untrained_accuracy: float = option(0.02, "--plan: the untrained model's accuracy, for the power table (an "
                                            "assumption: an obfuscated package's names are unknown to it)",
                                            minimum=0.0, maximum=1.0)
    plan_trained_accuracy: float = option(0.3, "--plan: a trained model's accuracy when two are compared, for the "
                                          "power table (an assumption)", minimum=0.0, maximum=1.0)
    plan_kv_share: float = option(0.8, "--plan: share of GPU memory the sampler may fill, weights and KV cache (the "
                                "original: vLLM gpu_memory_utilization 0.8)", above=0.0, maximum=1.0)


def calibrated_efficiency() -> float:
    """η such that the decode formula gives the measured vLLM figure in its setting (plan_model.THROUGHPUT)."""
    figure = pm.THROUGHPUT["vllm_llama31_8b_h100"]
    s = figure["setting"]
    seconds_per_step = (2 * s["params"] + s["sequences"] * s["mean_context"] * s["kv_bytes_per_token"]) \
        / pm.HARDWARE["h100-sxm"]["bandwidth"]
    return figure["value"] / (s["sequences"] / seconds_per_step)


def build_plan(cfg: RunConfig, run_dir: Path, pc: PlanConfig) -> dict:
    """The plan as plain data (see the module docstring)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sebench-plan-") as scratch:
        return _build_plan(cfg, Path(run_dir), pc, Path(scratch))


def _build_plan(cfg: RunConfig, run_dir: Path, pc: PlanConfig, scratch: Path) -> dict:
    from sebench.experiment.run import Study

    study = Study(cfg, run_dir)
    data, checks = _data(study, scratch)
    study.data = data or Path(run_dir) / "instance"
    counts, prompt_tokens = _counts(study, data, pc, checks)
    shape = _shape(cfg, checks)
    efficiency = pc.plan_decode_efficiency or calibrated_efficiency()
    ctx = _Context(cfg, pc, shape, pm.HARDWARE[pc.plan_gpu], efficiency, counts, prompt_tokens)
    stages = _lifelong(ctx) if cfg.lifelong is not None else _stages(study, ctx, checks)
    memory = _memory(ctx, stages) if shape else []
    checks += _package_checks() + _fit_checks(memory, pc) + _batch_checks(stages, pc) + _disk_check(run_dir, shape, stages)
    total = sum(s["gpu_hours"] or 0.0 for s in stages)
    return {
        "preset": cfg.preset, "model": cfg.train_model or cfg.model, "protocol": cfg.protocol,
        "gpu": pc.plan_gpu, "gpus": pc.plan_gpus, "shape": shape.to_dict() if shape else None,
        "assumptions": {**{f.name: getattr(pc, f.name) for f in dataclasses.fields(pc)},
                        "plan_decode_efficiency": efficiency, "sampler": "vLLM-like continuous batching"},
        "sources": {"gpu": ctx.gpu["source"], **{k: v["source"] for k, v in pm.THROUGHPUT.items()}},
        "counts": counts, "prompt_tokens": prompt_tokens, "stages": stages,
        "totals": {"gpu_hours": round(total, 1), "wall_hours": round(total / pc.plan_gpus, 1),
                   "optimizer_steps": sum(s["steps"] or 0 for s in stages),
                   "tokens_generated": sum(s["tokens_generated"] for s in stages),
                   "not_counted": [s["stage"] for s in stages if s.get("note") == UNKNOWN_COST]},
        "memory": memory, "checks": checks,
        "power": plan_power.comparisons(cfg, counts, data is not None, pc.plan_seeds, pc.plan_untrained_accuracy,
                                        pc.plan_trained_accuracy),
    }


@dataclass
class _Context:
    cfg: RunConfig
    pc: PlanConfig
    shape: pm.ModelShape | None
    gpu: dict
    efficiency: float
    counts: dict
    prompt_tokens: dict

    def generation_hours(self, samples: int, prompt: float, budget: int, per_gpu_at_once: int | None = None) -> float | None:
        """GPU-hours to sample `samples` answers of at most `budget` tokens on plan_gpus GPUs."""
        if self.shape is None:
            return None
        gpus, answer = self.pc.plan_gpus, self.pc.plan_answer_share * budget
        fit = pm.kv_budget_sequences(self.shape, self.gpu, self.pc.plan_kv_share, int(prompt) + budget)
        at_once = min(fit, per_gpu_at_once) if per_gpu_at_once else fit
        seconds = pm.decode_seconds(self.shape, self.gpu, samples * answer / gpus, prompt, answer, budget, at_once,
                                    self.efficiency, self.pc.plan_utilisation)
        return seconds * gpus / 3600

    def training_hours(self, tokens: float, sequence: float, forwards: int) -> float | None:
        if self.shape is None:
            return None
        return pm.train_seconds(self.shape, self.gpu, tokens, sequence, forwards, self.pc.plan_utilisation) / 3600


# ---- data and model ---------------------------------------------------------------------------------------


def _data(study, scratch: Path) -> tuple[Path | None, list[dict]]:
    """The data the study will read, if it can be known yet, and the check that says so: the instance (given
    with --instance, or built in the run), or with --functions the subset the run selected, else the one it
    will select, selected here as the run selects it (in `scratch`) so that the counts are the run's."""
    cfg, run_dir = study.cfg, study.root
    where = Path(cfg.instance) if cfg.instance else run_dir / "instance"
    if cfg.functions and Instance(run_dir / "data").manifest_path.is_file():
        where = run_dir / "data"
    if not Instance(where).manifest_path.is_file():
        if cfg.instance:
            return None, [_check("instance", False, f"--instance {where}: no manifest.json (not an instance)")]
        return None, [_check("instance", None, f"{where} is not built yet: the run builds it (seed {cfg.seed}); "
                             "counts below are the build sizes")]
    try:
        if cfg.functions and where != run_dir / "data":
            study._select(where, scratch / "data", study.subset_sizes())
            where = scratch / "data"
        instance = Instance.open(where)
        found = {s: len(instance.tasks(s)) for s in ("train", "single_test", "multiple_test")
                 if instance.split_path(s).is_file()}
        docs = len(instance.api_docs())
        instance.mapping()
    except SebenchError as exc:
        return None, [_check("instance", False, str(exc))]
    what = f"the subset of {cfg.functions} functions the run selects" if where.parent == scratch else str(where)
    return where, [_check("instance", True, f"{what}: package {instance.package_name}, {docs} documented "
                          f"functions, tasks {found}")]


def _counts(study, data: Path | None, pc: PlanConfig, checks: list) -> tuple[dict, dict]:
    """Valid tasks per split, and mean prompt tokens per (mode, split)."""
    cfg = study.cfg
    if data is None:  # not built yet: the build sizes, or the subset's where the run selects one
        sizes = {"train": cfg.build_train, "single_test": cfg.build_single, "multiple_test": cfg.build_multiple}
        if cfg.functions:
            subset = study.subset_sizes()
            sizes = {"train": min(sizes["train"], subset.train), "single_test": min(sizes["single_test"], subset.single),
                     "multiple_test": min(sizes["multiple_test"], subset.multiple)}
        modes = set(cfg.untrained_modes) | set(cfg.trained_modes) | {"open", "closed"}
        return sizes, {m: {s: PROMPT_TOKENS_WITHOUT_INSTANCE.get(m, 1000) for s in sizes} for m in modes}
    from sebench.rollout import PromptBuilder

    instance = Instance.open(data)
    tasks = {s: [t for t in instance.tasks(s) if t.is_valid] for s in ("train", "single_test", "multiple_test")
             if instance.split_path(s).is_file()}
    invalid = {s: len(instance.tasks(s)) - len(ts) for s, ts in tasks.items()}
    checks.append(_check("tasks", all(tasks.values()), f"valid tasks {({s: len(t) for s, t in tasks.items()})}, "
                         f"invalid (left out) {invalid}"))
    prompts: dict = {}
    asked = set(cfg.untrained_modes) | set(cfg.trained_modes)
    for mode in {"closed", "open"} | (asked & {"closed", "open", "full-doc", "numpy"}):
        builder = PromptBuilder(instance, mode)
        prompts[mode] = {s: round(sum(sum(len(m["content"]) for m in builder.messages(t)) for t in ts)
                                  / max(1, len(ts)) / pc.plan_chars_per_token) for s, ts in tasks.items()}
    return {s: len(ts) for s, ts in tasks.items()}, prompts


def _shape(cfg: RunConfig, checks: list) -> pm.ModelShape | None:
    """The trained model's shape: a local folder's config.json, the local HF cache, or KNOWN_SHAPES."""
    spec = cfg.train_model or cfg.model
    name = spec.split(":", 1)[1] if ":" in spec else spec
    name = name.split("@", 1)[0]
    folder = Path(name)
    try:
        if (folder / "config.json").is_file():
            shape = pm.ModelShape.from_file(folder / "config.json")
            weights = any(folder.glob("*.safetensors")) or any(folder.glob("*.bin"))
            checks.append(_check("weights", weights, f"{folder}: {'weights found' if weights else 'no weight files'}"))
        elif _cached_config(name):
            shape = pm.ModelShape.from_file(Path(_cached_config(name)))
            checks.append(_check("weights", None, f"{name}: its config is in the local HF cache; weights not checked"))
        elif name in pm.KNOWN_SHAPES:
            shape = pm.KNOWN_SHAPES[name]
            if spec.split(":", 1)[0] == "openai":  # a served model: its server holds the weights
                checks.append(_check("weights", None, f"{name}: served at {spec.partition('@')[2] or 'its URL'}; "
                                     "the run downloads no weights (evaluation only)"))
            elif name != "smollm2-135m":
                checks.append(_check("weights", None, f"{name}: not on this machine; the run downloads about "
                                     f"{2 * shape.parameters() / 1e9:.1f} GB (bf16)"))
        else:
            checks.append(_check("model config", False, f"{spec}: no config.json here and not a known architecture "
                                 f"({', '.join(pm.KNOWN_SHAPES)}); give a local folder"))
            return None
    except (OSError, ValueError, KeyError, TypeError, SebenchError) as exc:  # not there, not JSON, a field not a count
        checks.append(_check("model config", False, f"{spec}: its config.json cannot be read ({exc})"))
        return None
    checks.append(_check("model config", True, f"{spec}: {shape.parameters() / 1e9:.2f}B parameters, {shape.layers} "
                         f"layers, hidden {shape.hidden}, {shape.kv_heads} KV heads ({shape.source})"))
    return shape


def _cached_config(name: str) -> str | None:
    """config.json of a hub id in the local HF cache (no network), or None."""
    if "/" not in name:
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(name, "config.json")
    return found if isinstance(found, str) else None


# ---- stages ---------------------------------------------------------------------------------------------


def _stages(study: Any, ctx: _Context, checks: list) -> list[dict]:
    from sebench.experiment.run import SFT_FROM_DATA, UNTRAINED

    cfg, rows = ctx.cfg, []
    served = cfg.model.startswith("openai:") and not cfg.warmup  # the untrained rows ask the server
    checks.append(_check("evaluation engine", None, f"evaluations of loaded weights sample with {eval_engine(cfg)} "
                         "(vllm: `vllm serve` where vLLM is installed; transformers: at most rollout.batch_size "
                         "sequences at once)" + ("; the untrained model's rows ask its server" if served else "")))
    if cfg.warmup:
        rows.append(_warmup(ctx, cfg.warmup))
    for mode in cfg.untrained_modes:
        for split in cfg.splits:
            rows.append(_generation(ctx, f"{UNTRAINED} {mode} {split}", mode, split, cfg.rollout["n"], served))
    regimes = study._training_order()
    methods = [label for label in regimes if study.is_method(label)]
    sft_from_answers = cfg.train_source == "rollouts" and set(map(cfg.regime_of, regimes)) & set(SFT_FROM_DATA)
    answers_used = (cfg.train_source == "rollouts" and bool(methods)) or any(_builtin(cfg, m) == "memory" for m in methods)
    if "memory" in cfg.untrained_modes or sft_from_answers or answers_used:
        rows.insert(1 if cfg.warmup else 0,
                    _generation(ctx, "SFT data: base open-book on train", "open", "train", cfg.source_samples, served))
    for label in regimes:
        modes = cfg.trained_modes
        try:
            if label in methods:
                method_rows, modes = _method(ctx, label, study.label_of(label))
                rows += method_rows
                label = study.label_of(label)
            else:
                rows += _training(study, ctx, label, checks)
        except SebenchError as exc:
            checks.append(_check(f"regime {label}", False, str(exc)))
            continue
        for mode in modes:
            for split in cfg.splits:
                rows.append(_generation(ctx, f"{label} {mode} {split}", mode, split, cfg.rollout["n"]))
    return rows


def _builtin(cfg: RunConfig, label: str) -> str | None:
    """The built-in method a `regimes` label runs (through an alias of `methods` too), else None."""
    from sebench.methods import BUILTINS

    spec = cfg.method_aliases().get(label, label)
    return spec if spec in BUILTINS else None


UNKNOWN_COST = "unknown: the method's own"


def _method(ctx: _Context, label: str, shown: str) -> tuple[list[dict], list[str]]:
    """A method's rows (named `shown`, its label in the run) and the modes its model is evaluated in. A built-in's cost follows from its arguments
    (docs/docs-only.md says what each trains on); any other method's training is its own: counted as unknown."""
    from sebench.methods import ContextDistill, DocsMethod

    cfg, name = ctx.cfg, _builtin(ctx.cfg, label)
    if name not in ("base", "open-book", "memory", "docs-cpt", "docs-cpt-augmented", "pit", "context-distill"):
        return [_row(f"{shown}: training", "method", note=UNKNOWN_COST)], cfg.trained_modes
    if name in ("base", "open-book", "memory"):
        what = {"base": "the start model as it is", "open-book": "the start model, the docs in its prompt",
                "memory": "the base's judged open-book training answers (the SFT data row), recalled"}[name]
        modes = {"base": cfg.trained_modes, "open-book": ["open"], "memory": ["memory"]}[name]
        return [_row(f"{shown}: no training", "method", steps=0, gpu_hours=0.0, note=what)], modes
    args = cfg.method_arguments(label)
    settings = {**{f: getattr(DocsMethod, f) for f in ("epochs", "batch_size", "grad_accum", "max_length",
                                                        "max_steps")}, **args}
    tasks, functions = ctx.counts.get("train", 0), cfg.functions or 0
    closed = ctx.prompt_tokens.get("closed", {}).get("train", 250)
    doc = max(100, ctx.prompt_tokens.get("open", {}).get("train", 1200) - closed)  # a task's docs, in tokens
    task_example = closed + REFERENCE_TOKENS
    hidden = round(functions * (cfg.docs_only or 0.0))
    rows: list[dict] = []
    if name == "docs-cpt":
        parts = [(functions, doc)]
    elif name == "docs-cpt-augmented":
        parts = [(int(settings.get("k", 4)) * functions, doc), (tasks, task_example)]
    elif name == "pit":
        keep = float(settings.get("keep_share", 0.1))
        parts = [(tasks, task_example), (tasks, doc + task_example), (hidden + round(keep * tasks), doc)]
    else:  # context-distill: the open-book start model answers the tasks and the docs' examples, n times each
        n = int(settings.get("n", ContextDistill.n))
        budget = int(settings.get("max_tokens", ContextDistill.max_tokens))
        prompts = tasks + functions  # about one doc-made prompt a function (docs/docs-only.md)
        rows.append(_generation(ctx, f"{shown}: open-book answers", "open", "train", n, prompts=prompts, budget=budget))
        parts = [(round(prompts * n * ctx.pc.plan_correct_share), closed + ctx.pc.plan_answer_share * budget)]
    examples = sum(count for count, _ in parts)
    sequence = sum(count * tokens for count, tokens in parts) / max(1, examples)
    rows.append(_plain_sft(ctx, f"{shown}: SFT ({name})", examples, sequence, settings, stages=3 if name == "pit" else 1))
    return rows, cfg.trained_modes


def _plain_sft(ctx: _Context, stage: str, examples: int, sequence: float, settings: dict, stages: int = 1) -> dict:
    """An SFT row of `examples` of `sequence` tokens (cut at max_length) with the HF Trainer's steps, over
    `stages` runs of the same settings (max_steps counts each run's)."""
    sequence = min(settings["max_length"], sequence)
    batch = int(settings["batch_size"]) * int(settings["grad_accum"])
    per_epoch = math.ceil(math.ceil(examples / int(settings["batch_size"])) / int(settings["grad_accum"]))
    steps = settings["max_steps"] * stages if settings["max_steps"] else math.ceil(float(settings["epochs"]) * per_epoch)
    tokens = steps * batch * sequence
    return _row(stage, "sft", prompts=examples, samples=examples, prompt_tokens=round(sequence),
                max_new_tokens=settings["max_length"], steps=steps, tokens_trained=round(tokens),
                gpu_hours=ctx.training_hours(tokens, sequence, 4), global_batch=batch)


def _lifelong(ctx: _Context) -> list[dict]:
    """The lifelong schedule (experiment/lifelong.py): the warm-up, then each step's Closed-SFT on its library's
    reference solutions (and its replayed share of earlier ones), and every model closed-book on the libraries
    of its tracks (and open-book on the targets of the cross design's transfers)."""
    from sebench.experiment.lifelong import BASE, LifelongConfig, schedule

    cfg = ctx.cfg
    plan = schedule(LifelongConfig(**(cfg.lifelong or {})))
    rows = [_warmup(ctx, cfg.warmup)] if cfg.warmup else []
    settings = cfg.train_settings("closed-sft")
    example = ctx.prompt_tokens.get("closed", {}).get("train", 250) + REFERENCE_TOKENS
    for model, step in [(BASE, None), *((s.label, s) for s in plan.steps)]:
        if step is not None:
            examples = round(ctx.counts.get("train", 0) * (1 + len(step.mixed) * step.mix_share))
            rows.append(_plain_sft(ctx, f"{model}: SFT", examples, example, settings))
        asked = [(library, "closed") for library in plan.evaluated_on(model)]
        asked += [(library, "open") for library in plan.open_on(model)]  # the cross design's transfer
        for library, mode in asked:
            for split in cfg.splits:
                rows.append(_generation(ctx, f"{model}/{library} {mode} {split}", mode, split, cfg.rollout["n"]))
    return rows


def _row(stage: str, kind: str, **values: Any) -> dict:
    row = {"stage": stage, "kind": kind, "prompts": 0, "samples": 0, "prompt_tokens": 0, "max_new_tokens": 0,
           "steps": None, "tokens_generated": 0, "tokens_trained": 0, "gpu_hours": None, **values}
    if row["gpu_hours"] is not None:
        row["gpu_hours"] = round(row["gpu_hours"], 2)
    return row


def _warmup(ctx: _Context, warmup: dict) -> dict:
    """Open-SFT on reference solutions of the other functions (sebench warmup): at most max_examples."""
    examples = warmup["max_examples"] or ctx.counts.get("train", 0)
    steps = math.ceil(warmup["epochs"] * math.ceil(examples / warmup["batch_size"]))
    sequence = ctx.prompt_tokens["open"].get("train", 1000) + REFERENCE_TOKENS
    tokens = steps * warmup["batch_size"] * sequence
    return _row("warm-up: SFT", "warm-up", prompts=examples, samples=examples, prompt_tokens=sequence - REFERENCE_TOKENS,
                max_new_tokens=warmup["max_length"], steps=steps, tokens_trained=round(tokens),
                gpu_hours=ctx.training_hours(tokens, sequence, 4), global_batch=warmup["batch_size"])


def _generation(ctx: _Context, stage: str, mode: str, split: str, samples_per_task: int, served: bool = False,
                prompts: int | None = None, budget: int | None = None) -> dict:
    """An evaluation's sampling, on the engine the study will use (launch.py): a served model's server or vLLM
    (continuous batching), or transformers' generate (at most the rollout's batch of sequences at once)."""
    prompts = ctx.counts.get(split, 0) if prompts is None else prompts
    budget = int(ctx.cfg.rollout["max_tokens"]) if budget is None else budget
    prompt = ctx.prompt_tokens.get(mode, {}).get(split, PROMPT_TOKENS_WITHOUT_INSTANCE.get(mode, 1000))
    samples = prompts * samples_per_task
    engine = "served" if served else eval_engine(ctx.cfg)
    at_once = int(ctx.cfg.rollout["batch_size"] or ctx.cfg.rollout["concurrency"]) if engine == "transformers" else None
    return _row(stage, "generate", prompts=prompts, samples=samples, prompt_tokens=prompt, max_new_tokens=budget,
                tokens_generated=round(samples * ctx.pc.plan_answer_share * budget), engine=engine,
                gpu_hours=ctx.generation_hours(samples, prompt, budget, at_once))


def _training(study: Any, ctx: _Context, label: str, checks: list) -> list[dict]:
    """The SFT and GRPO stages of one regime, from the TrainConfig the study builds for it."""
    from sebench.experiment.run import SFT_FROM_DATA

    cfg, regime = ctx.cfg, ctx.cfg.regime_of(label)
    rollouts = Path("source-rollouts.jsonl") if cfg.train_source == "rollouts" and regime in SFT_FROM_DATA else None
    start = Path("closed-sft") if regime == "closed-sft-rl" else None
    train = study.train_config(label, Path("checkpoint"), rollouts, start).resolved()
    spec, rows = train.spec, []
    tasks = ctx.counts.get("train", 0)
    rounds = train.rounds if spec.self_play else 1
    if spec.self_play:
        tasks = train.selfplay_tasks  # every written task kept: an upper bound
        written = rounds * tasks * (1 + train.selfplay_samples + train.selfplay_solves)
        rows.append(_row(f"{label}: write and solve tasks", "generate", prompts=rounds * tasks, samples=written,
                         prompt_tokens=ctx.prompt_tokens["open"].get("train", 1000),
                         max_new_tokens=train.max_completion_length,
                         tokens_generated=round(written * ctx.pc.plan_answer_share * train.max_completion_length),
                         gpu_hours=ctx.generation_hours(written, ctx.prompt_tokens["open"].get("train", 1000),
                                                        train.max_completion_length)))
    if spec.sft and start is None:
        rows.append(_sft(ctx, label, train, tasks, rounds))
    if spec.rl:
        rows.append(_grpo(ctx, label, train, tasks, rounds))
        if train.max_prompt_tokens and not spec.self_play:
            checks.append(_check(f"{label} prompts", None, f"all {tasks} training tasks counted; the run drops those "
                                 f"whose open-book prompt has {train.max_prompt_tokens} tokens or more"))
    return rows


def _sft(ctx: _Context, label: str, train: Any, tasks: int, rounds: int) -> dict:
    cfg = ctx.cfg
    if train.spec.self_play:
        examples = round(rounds * tasks * train.selfplay_solves * ctx.pc.plan_correct_share)
        answer = ctx.pc.plan_answer_share * train.max_completion_length
    elif train.train_source == "rollouts":
        examples = round(tasks * cfg.source_samples * ctx.pc.plan_correct_share)
        answer = ctx.pc.plan_answer_share * cfg.rollout["max_tokens"]
    else:
        examples, answer = tasks, REFERENCE_TOKENS
    n = processes(cfg, label)  # --gpus N: grad_accum is per process (launch.py)
    batch = train.batch_size * train.grad_accum * n
    per_epoch = math.ceil(math.ceil(examples / (train.batch_size * n)) / train.grad_accum) if examples else 0
    steps = train.max_steps or math.ceil(train.epochs * per_epoch)
    prompt = ctx.prompt_tokens[train.spec.sft].get("train", 1000)
    sequence = min(train.max_length, prompt + answer)
    tokens = steps * batch * sequence
    return _row(f"{label}: SFT", "sft", prompts=examples, samples=examples, prompt_tokens=prompt,
                max_new_tokens=train.max_length, steps=steps, tokens_trained=round(tokens),
                gpu_hours=ctx.training_hours(tokens, sequence, 4), global_batch=batch, processes=n)


def _grpo(ctx: _Context, label: str, train: Any, tasks: int, rounds: int) -> dict:
    from sebench.train import batch_plan

    per_batch = train.batch_size * train.grad_accum * processes(ctx.cfg, label) // train.num_generations
    batches = rounds * len(batch_plan(tasks, per_batch, train, train.seed))
    steps = min(batches * train.mini_batches, train.max_steps or batches * train.mini_batches)
    samples = batches * per_batch * train.num_generations
    budget, share = train.max_completion_length, ctx.pc.plan_answer_share
    sample_prompt = ctx.prompt_tokens[train.sample_mode].get("train", 1000)
    train_prompt = ctx.prompt_tokens[train.spec.rl_train].get("train", 1000)
    per_gpu = math.ceil(per_batch * train.num_generations / ctx.pc.plan_gpus)
    generation = ctx.generation_hours(per_batch * train.num_generations, sample_prompt, budget, per_gpu)
    sequence = train_prompt + share * budget
    tokens = samples * sequence
    update = ctx.training_hours(tokens, sequence, 5)
    hours = None if generation is None else generation * batches + update
    return _row(f"{label}: GRPO", "grpo", prompts=per_batch * batches, samples=samples, prompt_tokens=sample_prompt,
                max_new_tokens=budget, steps=steps, tokens_generated=round(samples * share * budget),
                tokens_trained=round(tokens), gpu_hours=hours, batches=batches,
                sampling_gpu_hours=None if generation is None else round(generation * batches, 2),
                update_gpu_hours=None if update is None else round(update, 2),
                prompts_per_batch=per_batch, dataset_prompts=tasks)


# ---- memory and checks ----------------------------------------------------------------------------------


def _memory(ctx: _Context, stages: list[dict]) -> list[dict]:
    """GiB per GPU of the training processes: SFT and GRPO, full and LoRA, on 1, 2, 4, 8 (and plan_gpus) GPUs."""
    cfg, out = ctx.cfg, []
    counts = sorted(set(GPU_COUNTS) | {ctx.pc.plan_gpus})
    for kind, label in (("sft", _first(cfg, lambda r: r.endswith("sft"))), ("grpo", _first(cfg, lambda r: "rl" in r))):
        if label is None:
            continue
        settings = cfg.train_settings(label)
        open_prompt = ctx.prompt_tokens["open"].get("train", 1000)
        if kind == "sft":  # the longest: an open-book prompt and a whole answer, cut at max_length
            answer = cfg.rollout["max_tokens"] if cfg.train_source == "rollouts" else REFERENCE_TOKENS
            tokens = int(min(settings["max_length"], open_prompt + answer))
        else:
            tokens = int(open_prompt + settings["max_completion_length"])
        rows = int(settings.get("batch_size", 4))
        for method, rank in (("full", None), ("lora", int(settings.get("lora_r", 16)))):
            per = {n: pm.training_memory(ctx.shape, n, rows, tokens, rank) for n in counts}
            out.append({"stage": kind, "regime": label, "method": method, "rows": rows, "tokens": tokens,
                        "gib": {n: round(p["total"] / pm.GIB, 1) for n, p in per.items()},
                        "parts_gib": {n: {k: round(v / pm.GIB, 2) for k, v in p.items()} for n, p in per.items()}})
    fit = pm.kv_budget_sequences(ctx.shape, ctx.gpu, ctx.pc.plan_kv_share,
                                 ctx.prompt_tokens["open"].get("train", 1000) + int(cfg.rollout["max_tokens"]))
    out.append({"stage": "sampling", "method": "kv-cache", "kv_bytes_per_token": ctx.shape.kv_bytes_per_token(),
                "sequences_per_gpu": fit, "gib": {}})
    return out


def _first(cfg: RunConfig, wanted) -> str | None:
    from sebench.train import REGIMES

    return next((label for label in cfg.regimes if cfg.regime_of(label) in REGIMES and wanted(cfg.regime_of(label))),
                None)


def _check(name: str, ok: bool | None, detail: str) -> dict:
    """ok: True passed, False failed, None for information."""
    return {"check": name, "ok": ok, "detail": detail}


def _package_checks() -> list[dict]:
    checks = []
    for name, purpose in PACKAGES.items():
        try:
            version = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            version = None
        checks.append(_check(f"package {name}", None, f"{version or 'not installed'} ({purpose})"))
    checks.append(_check("GPU", None, "not looked at: the plan needs none"))
    return checks


def _fit_checks(memory: list[dict], pc: PlanConfig) -> list[dict]:
    capacity = pm.HARDWARE[pc.plan_gpu]["memory_gib"]
    out = []
    for row in memory:
        if row["gib"]:
            need = row["gib"][pc.plan_gpus]
            out.append(_check(f"memory {row['stage']} {row['method']}", need <= capacity,
                              f"{need} GiB per GPU on {pc.plan_gpus} x {pc.plan_gpu} ({capacity} GiB): "
                              f"{row['rows']} rows of {row['tokens']} tokens a micro-batch"))
    return out


def _batch_checks(stages: list[dict], pc: PlanConfig) -> list[dict]:
    """SFT's steps are counted for one process; `accelerate launch` on N processes multiplies its global batch."""
    sft = [s for s in stages if s["kind"] == "sft"]
    if pc.plan_gpus == 1 or not sft:
        return []
    batch, n = sft[0]["global_batch"], sft[0].get("processes", 1)
    if n > 1:
        return [_check("SFT global batch", None, f"{batch} over {n} processes (--gpus {n}: each accumulates "
                       "grad_accum / N batches)")]
    return [_check("SFT global batch", None, f"{batch} in one process (the steps above); `sebench run --gpus "
                   f"{pc.plan_gpus}` keeps it on {pc.plan_gpus} processes (grad_accum divided among them)")]


def disk_check(cfg: RunConfig, run_dir: Path, seeds: int = 1) -> dict | None:
    """The plan's disk check for a study about to run (each label of `regimes` writing one checkpoint a seed),
    or None when the model's size is not known here."""
    found = _disk_check(run_dir, _shape(cfg, []), seeds * len(dict.fromkeys(cfg.regimes)))
    return found[0] if found else None


def _disk_check(run_dir: Path, shape: pm.ModelShape | None, trained: list[dict] | int) -> list[dict]:
    """Whether the disk under `run_dir` holds the checkpoints of the training `stages` (or of `trained` ones)."""
    if shape is None or trained == 0:
        return []
    regimes = trained if isinstance(trained, int) else len({s["stage"].split(":")[0] for s in trained
                                                            if s["kind"] in ("sft", "grpo")})
    need = regimes * 2 * shape.parameters()
    where = next(p for p in [Path(run_dir).resolve(), *Path(run_dir).resolve().parents] if p.exists())
    free = shutil.disk_usage(where).free
    return [_check("disk", free >= need, f"{regimes} checkpoints of {2 * shape.parameters() / 1e9:.1f} GB (bf16) "
                   f"need {need / 1e9:.0f} GB; {free / 1e9:.0f} GB free at {where}")]


# ---- output ---------------------------------------------------------------------------------------------


def write_plan(cfg: RunConfig, run_dir: Path, pc: PlanConfig) -> tuple[dict, str]:
    """Builds the plan, writes RUN_DIR/plan.json, and returns it with its tables as text."""
    plan = build_plan(cfg, run_dir, pc)
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    write_json(Path(run_dir) / "plan.json", plan)
    return plan, render(plan)


def render(plan: dict) -> str:
    a = plan["assumptions"]
    lines = [f"plan: preset {plan['preset']}, model {plan['model']}, protocol {plan['protocol']}, "
             f"{plan['gpus']} x {plan['gpu']}", ""]
    lines += _table(["stage", "prompts", "samples", "prompt tok", "max new", "steps", "gen tokens", "train tokens",
                     "GPU-h"],
                    [[s["stage"], s["prompts"], s["samples"], s["prompt_tokens"], s["max_new_tokens"],
                      "" if s["steps"] is None else s["steps"], f"{s['tokens_generated']:,}", f"{s['tokens_trained']:,}",
                      "?" if s["gpu_hours"] is None else f"{s['gpu_hours']:.1f}"] for s in plan["stages"]])
    lines += [f"  {s['stage']}: {s['note']}" for s in plan["stages"] if s.get("note")]
    t = plan["totals"]
    unknown = f" (not counting {', '.join(t['not_counted'])}: {UNKNOWN_COST})" if t.get("not_counted") else ""
    lines += ["", f"total: {t['gpu_hours']} GPU-hours, {t['wall_hours']} h on {plan['gpus']} GPUs, "
              f"{t['optimizer_steps']} optimizer steps, {t['tokens_generated']:,} tokens generated{unknown}", ""]
    counts, n = sorted({n for row in plan["memory"] for n in row["gib"]}), plan["gpus"]
    lines += _table(["memory per GPU (GiB)", "rows x tokens", *[f"{k} GPU" for k in counts],
                     f"on {n}: states + gathered + activations + logits"],
                    [[f"{r['stage']} {r['method']} ({r['regime']})", f"{r['rows']} x {r['tokens']}",
                      *[r["gib"][k] for k in counts], " + ".join(f"{r['parts_gib'][n][part]:.1f}" for part in
                                                                  ("states", "gathered", "activations", "logits"))]
                     for r in plan["memory"] if r["gib"]])
    for row in plan["memory"]:
        if not row["gib"]:
            lines.append(f"sampling: {row['kv_bytes_per_token'] / 1024:.0f} KiB of KV cache a token; "
                         f"{row['sequences_per_gpu']} full-length sequences fit per GPU")
    lines += ["", *plan_power.render(plan.get("power", []))]
    lines += ["", "checks:"] + [f"  [{_mark(c['ok'])}] {c['check']}: {c['detail']}" for c in plan["checks"]]
    lines += ["", "assumptions (flags --plan-*): " + ", ".join(f"{k.removeprefix('plan_')}={v:.3g}" if isinstance(v, float)
                                                             else f"{k.removeprefix('plan_')}={v}" for k, v in a.items()),
              "sources:"] + [f"  {k}: {v}" for k, v in plan["sources"].items()]
    lines.append("formulas: sebench.experiment.plan_model (module docstring); plan.json has every number")
    return "\n".join(lines)


def _mark(ok: bool | None) -> str:
    return {True: "ok", False: "FAIL", None: "info"}[ok]


def _table(headers: list[str], rows: list[list]) -> list[str]:
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for k, row in enumerate(cells):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return out

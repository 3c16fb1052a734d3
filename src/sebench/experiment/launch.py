"""A study on several processes (`sebench run --gpus N`): each training stage through `accelerate launch`,
models with weights evaluated through vLLM where it is installed.

The `launch` section of a RunConfig (LaunchConfig's fields; `--gpus N` sets `launch.gpus`) decides:
- how many processes each training stage runs on: `gpus`, except the self-play regimes, which write and
  solve their tasks in-process and run as one (sebench.train.run refuses them under several);
- the per-process batch: the preset's `grad_accum` is the one-process value, so each of N processes
  accumulates grad_accum / N batches and the global batch stays the preset's (`per_process`, applied when
  the config is resolved, so `--show-config` shows what each stage runs with);
- DeepSpeed ZeRO-3 for full fine-tuning on several GPUs: the plan's memory model assumes it there
  (sebench.experiment.plan_model: optimizer states sharded over N), and none on the CPU or with LoRA;
- the evaluation engine of loaded weights (trained checkpoints, an `hf:` base): vLLM (served on the study's
  GPUs, then stopped) where it is installed and the study is not on the CPU, else transformers in-process.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from sebench.cliflags import option
from sebench.errors import SebenchError
from sebench.train import Launch

DEEPSPEED = ("auto", "zero3", "off")
EVAL_ENGINES = ("auto", "vllm", "transformers")


@dataclass
class LaunchConfig:
    """How the study's stages use the machine's accelerators (the `launch` section of `sebench run`)."""

    gpus: int = option(1, "processes each training stage runs on, through `accelerate launch --num_processes N` "
                       "(1: in the study's own process); grad_accum is divided among them", minimum=1)
    cpu: bool = option(False, "launch the processes on the CPU (torch's gloo backend, accelerate's "
                       "ACCELERATE_USE_CPU), e.g. to try the path without GPUs")
    deepspeed: str = option("auto", "DeepSpeed ZeRO-3 under the launcher: auto (for full fine-tuning on several "
                            "GPUs; not on the CPU or with LoRA), zero3, or off", choices=DEEPSPEED)
    eval_engine: str = option("auto", "what samples the evaluations: vllm (`vllm serve` on the study's GPUs for "
                              "each model, stopped after), transformers (in-process), or auto (vllm when it is "
                              "installed and the study is not on the CPU)", choices=EVAL_ENGINES)
    accelerate_config: str | None = option(None, "an `accelerate config` file for the launcher (--config_file), "
                                           "e.g. for several machines; the settings above override it")


def processes(cfg, label: str) -> int:
    """The processes the training stage of `label` (a regime or variant of cfg.regimes) runs on."""
    from sebench.train import REGIME_SPECS

    regime = cfg.regime_of(label)
    if regime not in REGIME_SPECS or REGIME_SPECS[regime].self_play:
        return 1
    return int(cfg.launch["gpus"])


def stage_launch(cfg, label: str, lora: bool) -> Launch | None:
    """The launch of `label`'s training stage, or None: it trains in the study's own process."""
    n = processes(cfg, label)
    if n == 1:
        return None
    zero3 = cfg.launch["deepspeed"] == "zero3" or (cfg.launch["deepspeed"] == "auto" and n > 1 and not lora)
    return Launch(processes=n, cpu=bool(cfg.launch["cpu"]), deepspeed=zero3 and not cfg.launch["cpu"],
                  accelerate_config=cfg.launch["accelerate_config"])


def method_launch(cfg) -> dict | None:
    """What a method's job is given (its sampler's options, "launch") to train under `accelerate launch` itself:
    the fields of a sebench.train.Launch for full fine-tuning on the study's processes; None on one."""
    n = int(cfg.launch["gpus"])
    if n == 1:
        return None
    zero3 = cfg.launch["deepspeed"] != "off" and not cfg.launch["cpu"]
    return Launch(processes=n, cpu=bool(cfg.launch["cpu"]), deepspeed=zero3,
                  accelerate_config=cfg.launch["accelerate_config"]).to_json()


def apply_launch(cfg) -> None:
    """The launch section applied to a resolved RunConfig (in place): the per-process grad_accum, and the
    evaluation engine checked before anything runs."""
    per_process(cfg)
    eval_engine(cfg)


def per_process(cfg) -> None:
    """Divides the grad_accum that each launched regime uses by the launch's processes (in place), so that its
    global batch is the preset's; a self-play regime, run as one process, keeps the undivided value (pinned
    in its train_regimes entry). Refuses a grad_accum the processes do not divide."""
    n = int(cfg.launch["gpus"])
    if n == 1:
        return
    labels = [r for r in dict.fromkeys(cfg.regimes) if r in cfg.variants or cfg.regime_of(r) in _regimes()]
    divided: dict[tuple[str, ...], int] = {}
    for label in labels:
        where = _grad_accum_source(cfg, label)
        if processes(cfg, label) == 1:
            if where == ("train",):
                cfg.train_regimes.setdefault(cfg.regime_of(label), {})["grad_accum"] = cfg.train_settings(label)["grad_accum"]
            continue
        divided[where] = cfg.train_settings(label)["grad_accum"]
    for where, value in divided.items():
        if value % n:
            key = ".".join(where) + ".grad_accum"
            raise SebenchError(f"--gpus {n}: {key} is {value}, which {n} processes cannot share; give a --gpus that "
                               f"divides it, or --set {key}=<a multiple of {n}> (the one-process value)")
        _section(cfg, where)["grad_accum"] = value // n


def _regimes() -> tuple[str, ...]:
    from sebench.train import REGIMES

    return tuple(REGIMES)


def _grad_accum_source(cfg, label: str) -> tuple[str, ...]:
    """Where `label`'s grad_accum is set: its variant, its regime's section, or the train section."""
    if "grad_accum" in cfg.variants.get(label, {}):
        return ("variants", label)
    if "grad_accum" in cfg.train_regimes.get(cfg.regime_of(label), {}):
        return ("train_regimes", cfg.regime_of(label))
    return ("train",)


def _section(cfg, where: tuple[str, ...]) -> dict:
    section = getattr(cfg, where[0])
    return section if len(where) == 1 else section[where[1]]


# ---- evaluation -------------------------------------------------------------------------------------------


def eval_engine(cfg) -> str:
    """"vllm" or "transformers": the engine that samples the study's evaluations of loaded weights."""
    engine = cfg.launch["eval_engine"]
    if engine == "auto":
        return "vllm" if importlib.util.find_spec("vllm") is not None and not cfg.launch["cpu"] else "transformers"
    if engine == "vllm" and importlib.util.find_spec("vllm") is None:
        raise SebenchError("launch.eval_engine vllm: vLLM is not installed (pip install vllm), or set it to auto")
    return str(engine)


def eval_spec(cfg, model: str) -> str:
    """The backend spec that evaluates `model`: its weights served by vLLM (`vllm:`) when that is the engine."""
    if model.startswith("hf:") and eval_engine(cfg) == "vllm":
        return "vllm:" + model.removeprefix("hf:")
    return model

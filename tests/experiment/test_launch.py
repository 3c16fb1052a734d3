"""`sebench run --gpus N`: each training stage through `accelerate launch` with the settings `--show-config`
shows (the per-process grad_accum, self-play in one process), `sebench train --preset` resolving the same
values, and on the CPU (`--set launch.cpu=true`, 2 processes) a study whose training ran in 2 processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.errors import SebenchError
from sebench.experiment.config import resolve
from sebench.experiment.launch import eval_spec, stage_launch
from sebench.train import REGIME_SPECS, Launch

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false",
       "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH")) if p)}
# the study of tests/experiment/test_run.py, trained through the launcher on 2 CPU processes
TINY = ["--functions", "3", "--set", "max_train=8", "--set", "max_single=4", "--set", "max_multiple=2",
        "--max-tokens", "8", "--set", "rollout.concurrency=2", "--set", "train.max_steps=2", "--set",
        "train.batch_size=2", "--set", "train.grad_accum=2", "--set", 'trained_modes=["closed"]', "--set",
        'untrained_modes=["closed"]', "--set", 'splits=["single_test"]', "--set", "judge.workers=1",
        "--gpus", "2", "--set", "launch.cpu=true"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _show_config(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "sebench.cli", "run", "--out", "unused", *args, "--show-config"],
                         capture_output=True, text=True, env=ENV, check=True).stdout
    return json.loads(out)


# ---- the per-process settings -------------------------------------------------------------------------


def test_gpus_divide_grad_accum_so_the_global_batch_stays_the_presets():
    one, eight = resolve("gpu", {}), resolve("gpu", {"launch.gpus": 8})
    assert one.train["grad_accum"] == 8 and eight.train["grad_accum"] == 1  # SFT: 4 rows x 8 = 32 either way
    for regime in ("open-rl", "closed-rl", "closed-sft-rl"):
        assert eight.train_regimes[regime]["grad_accum"] * 8 == one.train_regimes[regime]["grad_accum"]
    # self-play writes and solves in-process: one process, the one-process values (pinned where shared)
    assert eight.train_settings("self-play-sft")["grad_accum"] == 8
    assert eight.train_settings("self-play-rl")["grad_accum"] == 128
    assert [stage_launch(eight, r, lora=False) is None for r in REGIME_SPECS] == \
        [REGIME_SPECS[r].self_play for r in REGIME_SPECS]


def test_a_grad_accum_the_processes_cannot_share_is_refused_with_one_line():
    with pytest.raises(SebenchError, match=r"--gpus 3: train.grad_accum is 8"):
        resolve("gpu", {"launch.gpus": 3})
    with pytest.raises(SebenchError, match=r"launch\.gpus must be at least 1"):
        resolve("gpu", {"launch.gpus": 0})


def test_full_fine_tuning_on_several_gpus_launches_with_zero3_and_lora_or_the_cpu_without():
    cfg = resolve("gpu", {"launch.gpus": 8})
    full, lora = stage_launch(cfg, "closed-sft", lora=False), stage_launch(cfg, "closed-sft", lora=True)
    assert full == Launch(processes=8, deepspeed=True) and lora == Launch(processes=8)
    argv = full.command(Path("c.json"))
    assert argv[1:3] == ["-m", "accelerate.commands.launch"] and argv[-3:] == ["-m", "sebench.train.launched", "c.json"]
    assert {"--use_deepspeed", "--zero_stage", "3"} <= set(argv) and argv[argv.index("--num_processes") + 1] == "8"
    assert "--multi_gpu" in lora.command(Path("c.json")) and "--use_deepspeed" not in lora.command(Path("c.json"))
    cpu = stage_launch(resolve("quick", {"launch.gpus": 2, "launch.cpu": True}), "closed-sft", lora=False)
    assert cpu == Launch(processes=2, cpu=True) and cpu.env()["ACCELERATE_USE_CPU"] == "true"
    assert "--multi_gpu" in cpu.command(Path("c.json"))  # torchrun's 2 processes (`--cpu` starts one)
    assert stage_launch(resolve("quick", {}), "closed-sft", lora=False) is None  # one process: in-process


def test_evaluations_go_through_vllm_only_where_it_is_the_engine(monkeypatch):
    import importlib.util

    cpu = resolve("quick", {"launch.gpus": 2, "launch.cpu": True})
    assert eval_spec(cpu, "hf:/ckpt") == "hf:/ckpt"  # on the CPU: transformers
    gpu = resolve("gpu", {"launch.gpus": 8})
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name == "vllm" else real(name))
    assert eval_spec(gpu, "hf:/ckpt") == "vllm:/ckpt" and eval_spec(gpu, "openai:m@http://h/v1") == "openai:m@http://h/v1"
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "vllm" else real(name))
    assert eval_spec(gpu, "hf:/ckpt") == "hf:/ckpt"
    monkeypatch.undo()
    if importlib.util.find_spec("vllm") is None:  # refused when the settings are resolved, before anything runs
        with pytest.raises(SebenchError, match="vLLM is not installed"):
            resolve("gpu", {"launch.eval_engine": "vllm"})


# ---- sebench train --preset: the same source ----------------------------------------------------------


def _train_config(capsys, *args: str) -> dict:
    assert main(["train", "--data", "d", "--out", "o", *args, "--show-config"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("regime", ["closed-sft", "closed-rl", "open-rl", "self-play-sft"])
def test_sebench_train_with_a_preset_gets_the_studys_settings(capsys, regime):
    cfg = resolve("gpu", {})
    rollouts = ["--rollouts", "r.jsonl"] if regime.endswith("sft") and "self" not in regime else []
    shown = _train_config(capsys, "--preset", "gpu", "--regime", regime, *rollouts)
    _assert_ran_with(shown, cfg.to_dict(), regime)
    assert shown["model"] == "hf:Qwen/Qwen3-8B" and shown["max_length"] == 20000


def test_sebench_train_flags_given_win_over_the_preset_even_at_their_default(capsys, monkeypatch):
    given = ["--preset", "gpu", "--regime", "closed-sft", "--rollouts", "r.jsonl"]
    shown = _train_config(capsys, *given, "--lr", "0.0002", "--max-length", "2048")
    assert shown["lr"] == 2e-4 and shown["max_length"] == 2048 and shown["lr_scheduler"] == "cosine"
    monkeypatch.setenv("WORLD_SIZE", "8")  # under `accelerate launch --num_processes 8`: the per-process value
    assert _train_config(capsys, *given)["grad_accum"] == 1
    assert _train_config(capsys, "--regime", "closed-sft")["max_length"] == 2048  # no preset: the defaults


# ---- the launcher on the CPU --------------------------------------------------------------------------


def _assert_ran_with(trained: dict, shown: dict, label: str, processes: int = 1) -> None:
    """The settings a stage trained with (its train_config.json) are --show-config's for its regime, resolved
    as `sebench train` resolves them (None: the protocol's default; GRPO's engine auto: TRL's under several
    processes)."""
    from sebench.train import TrainConfig

    settings = {**shown["train"], **shown["train_regimes"].get(label, {})}
    expected = TrainConfig(data=trained["data"], out=trained["out"], regime=label, **settings).resolved().to_json()
    if "rl" in label and expected["engine"] == "auto" and processes > 1:
        expected["engine"] = "trl"
    if "self-play" in label:  # the study gives self-play the studied functions to write tasks for
        expected["functions"] = trained["functions"]
    for key in settings:
        assert trained[key] == expected[key], f"{label}: {key}"


def _right_answers(instance: Path, folder: Path) -> Path:
    """A scripted untrained model that answers each training task with its reference solution (so that the
    judged open-book answers hold SFT examples; a tiny random model writes none)."""
    from sebench.instance import Instance
    from sebench.rollout.prompts import format_answer

    path = folder / "answers.json"
    path.write_text(json.dumps({"answers": {t.query.strip(): format_answer(t.reference_solution)
                                            for t in Instance.open(instance).tasks("train")}}))
    return path


def _stage_settings(run: Path, label: str) -> dict:
    return json.loads((run / "train" / label / "checkpoint" / "train_config.json").read_text())


@pytest.mark.timeout(300)
def test_a_study_trains_through_the_launcher_on_two_cpu_processes(tmp_path, built_instance, tiny_model):
    """One SFT stage through `accelerate launch --cpu --num_processes 2`, the settings --show-config shows."""
    args = ["--instance", str(built_instance), "--model", f"hf:{tiny_model}", *TINY, "--regimes", "closed-sft"]
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "sebench.cli", "run", "--out", str(run), *args],
                          capture_output=True, text=True, env=ENV, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    trained = _stage_settings(run, "closed-sft")
    assert trained["device"]["processes"] == 2
    shown = _show_config(*args)
    _assert_ran_with(trained["config"], shown, "closed-sft")
    assert shown["train"]["grad_accum"] == 1  # 2 over 2 processes
    # the record names the one-process grad_accum (the preset's, as `sebench train --preset` under `accelerate
    # launch` and one process record it) beside the per-process value the trainer ran with
    assert trained["batch"] == {"processes": 2, "per_process_batch_size": 2, "per_process_grad_accum": 1,
                                "grad_accum": 2, "examples": 4}
    record = json.loads((run / "stages" / "train--closed-sft.json").read_text())
    assert record["config"]["processes"] == 2
    assert (run / "report" / "report.md").is_file()


# the gpu preset at the tiny model's size: one step a regime, one-process batches that 2 processes share
GPU_TINY = ["--preset", "gpu", "--functions", "3", "--set", "max_train=4", "--set", "max_single=3", "--set",
            "max_multiple=1", "--max-tokens", "8", "--samples", "1", "--set", "source_samples=1", "--set",
            "rollout.concurrency=2", "--set", 'splits=["single_test"]', "--set", 'trained_modes=["closed"]',
            "--set", "judge.workers=1", "--set", "train.max_steps=1", "--set", "train.batch_size=1", "--set",
            "train.grad_accum=2",
            *(f"--set=train_regimes.closed-rl.{k}={v}" for k, v in (
                ("max_steps", 1), ("num_generations", 2), ("batch_size", 2), ("grad_accum", 2),
                ("max_completion_length", 8), ("max_prompt_tokens", 0))),
            *(f"--set=train_regimes.self-play-sft.{k}={v}" for k, v in (
                ("rounds", 1), ("selfplay_tasks", 1), ("selfplay_write_tokens", 8), ("max_completion_length", 8))),
            "--regimes", "closed-sft", "closed-rl", "self-play-sft", "--gpus", "2", "--set", "launch.cpu=true"]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_gpu_presets_launcher_path_on_two_cpu_processes_resumes_after_a_kill(tmp_path, built_instance, tiny_model):
    """`sebench run --preset gpu --gpus 2` on the CPU: its judged open-book SFT data, Closed-SFT and Closed-RL
    (TRL's GRPO) each in 2 processes, self-play in one; killed during Closed-RL's training and run again, it
    finishes, and each stage trained with --show-config's settings."""
    import signal
    import time

    args = ["--instance", str(built_instance), "--model", f"fake:file={_right_answers(built_instance, tmp_path)}",
            "--train-model", f"hf:{tiny_model}", *GPU_TINY]
    run = tmp_path / "run"
    command = [sys.executable, "-m", "sebench.cli", "run", "--out", str(run), *args]
    proc = subprocess.Popen(command, start_new_session=True, env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    marker, deadline = run / "train" / "closed-rl" / "work" / "launched_train_config.json", time.monotonic() + 600
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before Closed-RL's training started"
    time.sleep(3)  # inside the launched processes
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (run / "train" / "closed-rl" / "checkpoint" / "train_config.json").exists()
    done = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["finished"] and len(manifest["commands"]) == 2
    assert manifest["stages"]["rollout:untrained:open:train"]["status"] == "done"  # the SFT data, judged
    shown = _show_config(*args)
    for label, processes in (("closed-sft", 2), ("closed-rl", 2), ("self-play-sft", 1)):
        trained = _stage_settings(run, label)
        assert trained["device"]["processes"] == processes, label
        _assert_ran_with(trained["config"], shown, label, processes)
    assert shown["train"]["grad_accum"] == 1 and shown["train_regimes"]["self-play-sft"]["grad_accum"] == 2


def test_a_methods_job_carries_the_launch_in_its_options(tmp_path):
    """A method runs in its own process; under --gpus N its job's options say how to launch its training
    (`Launch(**ctx.sampler.options["launch"])`), and say nothing on one process."""
    from sebench.experiment.run import Study
    from sebench.methods import resolve as resolve_method

    def options(overrides: dict) -> dict:
        study = Study(resolve("quick", overrides), tmp_path / "run")
        study.data = tmp_path / "data"
        return study.method_job(resolve_method("base"), {}, tmp_path / "run/train/base", "smollm2-135m").backend_options

    assert Launch(**options({"launch.gpus": 2})["launch"]) == Launch(processes=2, deepspeed=True)
    assert "launch" not in options({})


def test_a_zero3_model_is_gathered_by_every_process_before_the_main_one_saves(monkeypatch):
    """Under ZeRO-3 (full fine-tuning on several GPUs) the checkpoint is saved from the gathered parameters,
    which every process gathers; an unsharded model is saved as it is. DeepSpeed is stood in for."""
    import contextlib
    import types

    import torch

    from sebench.train.run import full_weights

    model = torch.nn.Linear(2, 2)
    assert isinstance(full_weights(model), contextlib.nullcontext)
    model.weight.ds_id = 0  # DeepSpeed's mark of a ZeRO-3 parameter
    gathered = []

    def gather(params, modifier_rank):
        gathered.append([id(p) for p in params])
        return contextlib.nullcontext()

    monkeypatch.setitem(sys.modules, "deepspeed", types.SimpleNamespace(zero=types.SimpleNamespace(GatheredParameters=gather)))
    with full_weights(model):
        pass
    assert gathered == [[id(model.weight)]]


def test_grpo_under_several_processes_picks_trls_engine(monkeypatch):
    """The own GRPO loop runs in one process; --engine auto under `accelerate launch` with several is TRL's."""
    from sebench.train import TrainConfig
    from sebench.train.grpo import rl_engine

    cfg = TrainConfig(data=Path("d"), out=Path("o"), regime="closed-rl")
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert rl_engine(cfg) == "own"
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert rl_engine(cfg) == "trl"


# ---- killing the main process alone -------------------------------------------------------------------


def _processes_naming(text: str) -> list[int]:
    """The live processes whose command line holds `text` (zombies left out)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if text in (proc / "cmdline").read_bytes().decode(errors="replace") and \
                    (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # a minute or more a layer on two shared cores
@pytest.mark.timeout(600)
@pytest.mark.parametrize("layer", ["bwrap", "landlock", "audit-hook"])
def test_killing_the_main_process_during_launched_training_leaves_nothing_and_the_rerun_finishes(
        tmp_path, built_instance, tiny_model, layer):
    """SIGKILL of the main `sebench run --gpus 2` alone while the launcher and its 2 workers start: they die
    with it (before writing a checkpoint, which orphans would go on to write), and the same command again
    finishes and reports."""
    from sebench.methods.isolation import available_layers

    if layer not in available_layers():
        pytest.skip(f"this machine has no {layer}")
    env = {**ENV, "SEBENCH_ISOLATION": layer}  # the method's process under each layer (bwrap: its own pid namespace)
    run = tmp_path / "run"
    command = [sys.executable, "-m", "sebench.cli", "run", "--out", str(run), "--instance", str(built_instance),
               "--model", f"hf:{tiny_model}", *TINY, "--regimes", "closed-sft"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 400
        while len(_processes_naming("sebench.train.launched")) < 3 and proc.poll() is None \
                and time.monotonic() < deadline:  # the launcher and its 2 workers
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before its launched training started"
        os.kill(proc.pid, signal.SIGKILL)  # the main process alone
        proc.wait()
        while _processes_naming(str(run)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _processes_naming(str(run)) == [], "processes of the killed study are still running"
        assert not (run / "train" / "closed-sft" / "checkpoint" / "train_config.json").exists()
    finally:
        _kill_all(_processes_naming(str(run)))
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (run / "report" / "report.md").is_file()

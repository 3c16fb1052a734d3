"""Every command in docs/gpu.md works as written, in a cheap form where it needs GPUs or the network.

As tests/test_readme_commands.py does for the README: the commands are read from the page's bash blocks
(continuations joined, comments dropped), each must have an entry in HOW, and they run in page order in
one working folder against a fake model server at the page's address:
- RUN: as written;
- SHOW_CONFIG / PLAN: with `--show-config` (everything resolved, nothing run) or as written (`--plan`);
- LIMIT: as written on the first 8 tasks (`--limit 8`);
- LAUNCHED: an `accelerate launch --num_processes N ... -m sebench.cli train ...` line as one of its N
  processes resolves it: `sebench train ... --show-config` with WORLD_SIZE=N, checked for the per-process
  batch (the launch itself needs N GPUs and DeepSpeed; tests/experiment/test_launch.py runs the launcher
  on 2 CPU processes);
- skip, with the reason.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from test_readme_commands import doc_commands

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "gpu.md"
SERVER = "http://127.0.0.1:8000/v1"

RUN, SHOW_CONFIG, PLAN, LIMIT, LAUNCHED = "run", "show-config", "plan", "limit", "launched"
NEEDS_GPUS = "needs GPUs"

HOW: dict[str, tuple[str, str]] = {
    "pip install vllm deepspeed": ("skip", "needs the network; vLLM and DeepSpeed need a GPU"),
    "sebench run --out runs/gpu --preset gpu --gpus 8 --plan": (PLAN, "no GPU, no network"),
    "sebench run --out runs/gpu --preset gpu --gpus 8": (SHOW_CONFIG, NEEDS_GPUS),
    "sebench run --out runs/gpu --preset gpu --gpus 8 --show-config": (RUN, ""),
    "sebench run --out runs/gpu --preset gpu --gpus 8 --set train.lora=true": (SHOW_CONFIG, NEEDS_GPUS),
    "sebench run --out runs/launch-check --preset quick --gpus 2 --set launch.cpu=true":
        (SHOW_CONFIG, "minutes on a CPU; tests/experiment/test_launch.py runs this path at a tiny size"),
    "vllm serve Qwen/Qwen3-8B --port 8000 --max-model-len 16384":
        ("skip", NEEDS_GPUS + "; a fake server at its address stands in for it"),
    "sebench run --out runs/gpu --preset gpu --gpus 8 --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 "
    "--train-model hf:Qwen/Qwen3-8B": (SHOW_CONFIG, NEEDS_GPUS),
    "sebench build --out runs/gpu/instance --seed 0": (RUN, ""),
    "sebench rollout --data runs/gpu/instance --split train --mode open --n 5 --temperature 0.6 --max-tokens 8192 "
    "--model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --out runs/gpu/sft-data/rollouts.jsonl":
        (LIMIT, "against the fake server"),
    "sebench judge --data runs/gpu/instance --rollouts runs/gpu/sft-data/rollouts.jsonl "
    "--out runs/gpu/sft-data/verdicts.jsonl": (RUN, ""),
    "accelerate launch --num_processes 8 --use_deepspeed --zero_stage 3 -m sebench.cli train --preset gpu "
    "--regime closed-sft --data runs/gpu/instance --rollouts runs/gpu/sft-data/rollouts.jsonl "
    "--out runs/gpu/train/closed-sft": (LAUNCHED, NEEDS_GPUS),
    "accelerate launch --num_processes 8 --use_deepspeed --zero_stage 3 -m sebench.cli train --preset gpu "
    "--regime closed-rl --data runs/gpu/instance --out runs/gpu/train/closed-rl": (LAUNCHED, NEEDS_GPUS),
}


def page_commands() -> list[str]:
    """The commands of the page's ```bash blocks, as the README's test reads them."""
    return doc_commands(PAGE)


def test_every_command_on_the_page_has_a_check():
    commands = page_commands()
    assert not [c for c in commands if c not in HOW], "docs/gpu.md commands without a check in HOW"
    assert not [c for c in HOW if c not in commands], "HOW holds commands docs/gpu.md no longer has"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    work = tmp_path_factory.mktemp("gpu-page")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "OPENAI_API_KEY": "test"}
    with FakeOpenAIServer() as server:
        yield work, server.url, env


def _run(command: str, work: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, cwd=work, env=env, capture_output=True, text=True, timeout=600,
                          executable="/bin/bash")


@pytest.mark.parametrize("command", [c for c in page_commands() if c in HOW], ids=lambda c: c[:70])
def test_page_command(command, workspace):
    work, url, env = workspace
    how, why = HOW[command]
    if how == "skip":
        pytest.skip(why)
    cheap = command.replace(SERVER, url)
    if how == LAUNCHED:  # one of the launched processes, resolving its settings
        processes = int(re.search(r"--num_processes (\d+)", command)[1])
        env = {**env, "WORLD_SIZE": str(processes)}
        cheap = "sebench " + cheap.split(" -m sebench.cli ", 1)[1] + " --show-config"
    elif how == SHOW_CONFIG:
        cheap += " --show-config"
    elif how == LIMIT:
        cheap += " --limit 8"
    result = _run(cheap, work, env)
    output = result.stdout + result.stderr
    if how == PLAN:  # exit 1 when a check fails (e.g. the disk of the machine running the tests)
        assert result.returncode in (0, 1), output
        assert (work / "runs/gpu/plan.json").is_file(), output
        return
    assert result.returncode == 0, output
    if how == LAUNCHED:
        from sebench.experiment.config import resolve

        regime = re.search(r"--regime (\S+)", command)[1]
        one = resolve("gpu", {}).train_settings(regime)["grad_accum"]
        assert json.loads(result.stdout)["grad_accum"] * processes == one  # the global batch is the preset's

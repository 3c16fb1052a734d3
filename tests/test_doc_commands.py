"""Every command in docs/methods.md and docs/evaluation.md works as written, as test_readme_commands.py checks the
README's: each command of a ```bash block needs an entry in its page's table below, and CI runs it in its cheap
form, in page order, in one working folder per page:
- RUN: as written; PLAN, SHOW_CONFIG: with `--plan` or `--show-config` added;
- SMALL: a study on a few functions' tasks of the instance the page built, one sample each;
- LIMIT: a rollout of the first tasks only, or a smaller build (the text appended is the entry's `extra`;
  `model` puts a scripted model in the embedded one's place);
- SERVE: a server, started, asked GET /health, stopped;
- SLOW (tests marked slow): a study trained for real, on a tiny model, and the commands that read what it wrote.
A model server (`openai:MODEL@http://127.0.0.1:8000/v1`) is tests/fake_openai_server.py; the original repository
(`SE-Bench`) is the stand-in of tests/original_fixtures.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from test_readme_commands import (
    MY_METHOD,
    NETWORK,
    PLAN,
    ROOT,
    RUN,
    SERVER,
    SHARED_SAMPLE,
    SHOW_CONFIG,
    SMALL_FLAGS,
    _run,
    doc_commands,
)

SMALL, LIMIT, SERVE, SLOW, SKIP = "small", "limit", "serve", "slow", "skip"


@dataclass(frozen=True)
class Check:
    """How CI checks one command: its kind (module docstring), why, what the cheap form appends, and a model
    it stands in for another (`model`: (the page's, the test's))."""

    kind: str
    why: str = ""
    extra: str = ""
    model: tuple[str, str] | None = None


METHODS = ROOT / "docs/methods.md"
EVALUATION = ROOT / "docs/evaluation.md"
MY = "./my_method.py:MyMethod"
TRAINS = "trains for minutes to hours; the plan resolves the method, its arguments and every stage"
HOW: dict[Path, dict[str, Check]] = {
    METHODS: {
        "sebench methods": Check(RUN),
        "sebench methods ./examples/reference_sft.py:ReferenceSFT": Check(RUN),
        "sebench run --preset quick --out runs/mine --regimes closed-sft ./examples/reference_sft.py:ReferenceSFT "
        "-M ReferenceSFT.steps=8": Check(PLAN, TRAINS),
        "sebench run --preset paper-mini --out runs/pm --seeds 0,1,2 --regimes open-sft closed-sft open-rl closed-rl "
        f"closed-sft-rl self-play-sft self-play-rl {MY}": Check(PLAN, TRAINS),
        f"sebench run --preset cpu --out runs/cpu --seed 0 --regimes open-sft closed-sft closed-rl closed-sft-rl {MY}":
            Check(PLAN, TRAINS),
        f"sebench run --preset inject --out runs/inject --seeds 0,1,2 --regimes closed-sft docs-cpt pit context-distill "
        f"{MY}": Check(PLAN, TRAINS),
        f"sebench run --preset gpu --out runs/gpu --model hf:Qwen/Qwen3-8B --regimes closed-sft closed-sft-rl {MY} "
        "--plan": Check(RUN, "plans only: no GPU, no network"),
        "sebench run --preset quick --out runs/mine --regimes ./my_method.py:MyMethod --set "
        "'methods.MyMethod.read=[\"/data/teacher-model\", \"/data/corpus\"]' --set methods.MyMethod.network=true":
            Check(SHOW_CONFIG, "trains; the settings resolve the paths it may read and its network"),
        "sebench run --preset quick --out runs/served --regimes ./my_method.py:MyMethod --set "
        "methods.MyMethod.endpoint=http://gpu1:8000/v1 --set methods.MyMethod.endpoint_key=GPU1_KEY":
            Check(SHOW_CONFIG, "serves a model; the settings resolve the server declared for it"),
        "sebench run --preset inject --out runs/aug --regimes docs-cpt-augmented aug-k8 --set "
        "'methods.aug-k8={\"method\": \"docs-cpt-augmented\", \"k\": 8}'": Check(SHOW_CONFIG, TRAINS),
        "sebench run --preset quick --out runs/notes --regimes closed-sft ./examples/notes_agent.py:TakeNotes":
            Check(SLOW, "trains: on a tiny model, 3 functions", " --model hf:tiny --functions 3 --set max_train=8 "
                  "--set max_single=4 --set max_multiple=2 --max-tokens 12"),
        "cat runs/notes/train/TakeNotes/method.json": Check(SLOW, "reads the run above"),
        "cat runs/notes/report/report.md": Check(SLOW, "reads the run above"),
    },
    EVALUATION: {
        "sebench build --out inst --seed 0": Check(LIMIT, "a smaller instance", " --n-train 24 --n-single 12 "
                                                   "--n-multiple 6"),
        "sebench audit inst": Check(RUN),
        "sebench rollout --data inst --split single_test --mode closed --model smollm2-135m --out closed.jsonl":
            Check(LIMIT, "a scripted model for the embedded one (loading it takes a minute on a loaded CPU; the "
                  "README's slow test runs it)", " --limit 2", ("smollm2-135m", "fake:")),
        "sebench rollout --data inst --split single_test --mode open --model openai:my-model@http://127.0.0.1:8000/v1 "
        "--thinking off --n 10 --temperature 0.8 --out open.jsonl": Check(LIMIT, "the fake server", " --limit 2"),
        "sebench rollout --data inst --split train --mode open --model openai:my-model@http://127.0.0.1:8000/v1 "
        "--thinking off --out memory/rollouts.jsonl": Check(RUN, "the fake server"),
        "sebench judge --data inst --rollouts memory/rollouts.jsonl --out memory/verdicts.jsonl": Check(RUN),
        "sebench rollout --data inst --split single_test --mode memory --memory memory/rollouts.jsonl --memory-k 3 "
        "--model openai:my-model@http://127.0.0.1:8000/v1 --thinking off --out memory.jsonl": Check(RUN, "the fake server"),
        "sebench judge --data inst --rollouts closed.jsonl --out closed.verdicts.jsonl --summary closed.summary.json":
            Check(RUN),
        "sebench sandbox serve --data inst --port 8111": Check(SERVE, "on a free port, until it answers /health"),
        "git clone https://github.com/thunlp/SE-Bench && (cd SE-Bench && python load_datasets.py)":
            Check(SKIP, NETWORK + "; a stand-in SE-Bench folder takes its place"),
        "sebench build --out orig --mapping-from SE-Bench/datasets/train/api_doc.jsonl --docs original --no-tasks":
            Check(RUN),
        "sebench tasks import --official SE-Bench/datasets --data orig": Check(RUN),
        "sebench rollout --data orig --split single_test --mode closed --protocol original --original-repo SE-Bench "
        "--model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --out orig-closed.jsonl": Check(LIMIT, "the fake server",
                                                                                                " --limit 2"),
        "sebench judge --protocol original --data orig --rollouts orig-closed.jsonl --out orig-closed.verdicts.jsonl":
            Check(RUN),
        "sebench tasks export --help": Check(RUN),
        "sebench tasks generate --help": Check(RUN),
        "sebench contamination --model openai:my-model@http://127.0.0.1:8000/v1 --mapping-from "
        "SE-Bench/datasets/train/api_doc.jsonl --tasks SE-Bench/datasets/test/single_test.jsonl --out contam/":
            Check(LIMIT, "the fake server, 2 tasks", " --limit 2"),
        "sebench run --out runs/eval --preset eval --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1":
            Check(SMALL, "the fake server"),
        "sebench run --out runs/eval-quick --preset quick --model openai:my-model@http://127.0.0.1:8000/v1 "
        "--thinking off --regimes": Check(SMALL, "the fake server"),
        "sebench run --out runs/spec --preset quick --regimes closed-sft closed-sft-random --set "
        "'untrained_modes=[\"closed\",\"numpy\"]' --set 'trained_modes=[\"closed\",\"numpy\"]'": Check(PLAN, TRAINS),
        "sebench run --out runs/recall --preset quick --name-recall": Check(PLAN, TRAINS),
        "sebench run --library more-itertools --untrained-modes closed,open --out runs/quick-mi": Check(PLAN, TRAINS),
        "sebench judge --data inst --rollouts closed.jsonl --out myrun/evals/untrained/closed/single_test/verdicts.jsonl":
            Check(RUN),
        "sebench report myrun --data inst --out myreport/": Check(RUN),
    },
}
NEEDS_ORIGINAL = ("SE-Bench", "--data orig")


@pytest.mark.parametrize("page", [METHODS, EVALUATION], ids=lambda p: p.name)
def test_every_command_of_the_page_has_a_check(page):
    commands = doc_commands(page)
    assert commands, page
    assert not [c for c in commands if c not in HOW[page]], f"{page.name}: commands without a check in HOW"
    assert not [c for c in HOW[page] if c not in commands], f"HOW holds commands {page.name} no longer has"


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    """One working folder a page, with the examples, a user's method file, a stand-in SE-Bench repository, a
    tiny model (for the slow test) and a fake model server."""
    from original_fixtures import original_repo

    folders = {}
    for page in (METHODS, EVALUATION):
        work = tmp_path_factory.mktemp(page.stem)
        shutil.copytree(ROOT / "examples", work / "examples")
        (work / "my_method.py").write_text(MY_METHOD, encoding="utf-8")
        if SHARED_SAMPLE.is_file():
            repo = original_repo(work)
            (repo / "datasets/test").mkdir(parents=True)
            shutil.copy(SHARED_SAMPLE, repo / "datasets/test/single_test.jsonl")
        folders[page] = work
    env = {**os.environ, "OPENAI_API_KEY": "test", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with FakeOpenAIServer() as server:
        yield folders, server.url, env


def _check(page: Path, command: str, workspaces) -> None:
    folders, url, env = workspaces
    work, how = folders[page], HOW[page][command]
    if how.kind == SKIP:
        pytest.skip(how.why)
    if any(word in command for word in NEEDS_ORIGINAL) and not SHARED_SAMPLE.is_file():
        pytest.skip("shared/reference is not beside the repository")
    cheap = command.replace(SERVER, url) + how.extra
    if how.model:
        cheap = cheap.replace(*how.model)
    if how.kind == SHOW_CONFIG:
        cheap += " --show-config"
    elif how.kind == PLAN:
        cheap += " --plan"
    elif how.kind == SMALL:
        cheap += SMALL_FLAGS + " --instance inst"
    elif how.kind == SERVE:
        _serve(cheap, work, env)
        return
    result = _run(cheap, work, env)
    output = result.stdout + result.stderr
    if "--plan" in cheap:  # exit 1 when a check fails (e.g. the disk of the machine running the tests)
        out = cheap.split("--out ")[1].split()[0]
        assert result.returncode in (0, 1) and (work / out / "plan.json").is_file(), output
        assert "Traceback" not in output, output
        return
    assert result.returncode == 0, output


def _serve(command: str, work: Path, env: dict) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(command.replace("--port 8111", f"--port {port}"), shell=True, cwd=work, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                    assert json.loads(answer.read())["ok"] is True
                    return
            except OSError:
                time.sleep(0.5)
        pytest.fail("the sandbox server did not answer /health within 60 s")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _params(page: Path) -> list:
    return [pytest.param(c, marks=pytest.mark.slow) if HOW[page].get(c, Check(RUN)).kind == SLOW else c
            for c in doc_commands(page) if c in HOW[page]]


@pytest.mark.parametrize("command", _params(METHODS), ids=lambda c: c[:70])
def test_methods_page_command(command, workspaces):
    if HOW[METHODS][command].kind == SLOW and not (workspaces[0][METHODS] / "tiny").is_dir():
        from sebench.models import create_tiny_model

        create_tiny_model(workspaces[0][METHODS] / "tiny")
    _check(METHODS, command, workspaces)


@pytest.mark.parametrize("command", _params(EVALUATION), ids=lambda c: c[:70])
def test_evaluation_page_command(command, workspaces):
    _check(EVALUATION, command, workspaces)


# ---- every page: each `sebench` command's flags ----------------------------------------------------------

# the pages a user follows; the archive and the records keep commands of the version that made them
USER_PAGES = [ROOT / "README.md", *(p for p in sorted((ROOT / "docs").rglob("*.md"))
                                    if not {"archive", "records"} & set(p.relative_to(ROOT / "docs").parts))]


def sebench_invocations(page: Path) -> list[str]:
    """Each `sebench ...` call in the page's bash blocks: one command split at `&&`, `;` and `|`, with a leading
    `cd DIR`, `do` or `VAR=value` dropped, and a shell variable (a loop's `$s`) given the value 0."""
    calls = []
    for command in doc_commands(page):
        for part in re.split(r"\s*(?:&&|;|\|)\s*", re.sub(r"\$\{?\w+\}?", "0", command)):
            words = part.strip("() ").split()
            while words and (words[0] in ("do", "then") or re.fullmatch(r"[A-Za-z_]+=\S*", words[0])):
                words = words[1:]
            if words[:1] == ["sebench"]:
                calls.append(" ".join(words))
    return calls


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sebench_command_of_a_page_parses(page):
    """Every `sebench` command a page gives has the flags it needs and no flag sebench lacks (a page's command
    run as written does not stop at `the following arguments are required: --out`)."""
    from sebench.cli import build_parser

    refused = []
    for call in sebench_invocations(page):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                build_parser().parse_args(shlex.split(call)[1:])
            except SystemExit as exc:
                if exc.code:
                    refused.append(f"{call}\n  -> {err.getvalue().strip()}")
    assert not refused, "\n".join(refused)

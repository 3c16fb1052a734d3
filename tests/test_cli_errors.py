"""One line, never a traceback: bad flags, out-of-range values, unusable paths and instances, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from sebench.rollout.backends.openai import parse_argument

from .cli_fixtures import SRC, cli, error_line, write_tiny_instance


@pytest.fixture
def inst(tmp_path):
    return write_tiny_instance(tmp_path / "inst")


# ---- flags ---------------------------------------------------------------------------------------


def test_abbreviated_flags_are_refused_with_a_suggestion(tmp_path):
    rc, err = cli("build", "--out", tmp_path / "i", "--seed", "0", "--no-task")
    line = error_line(err)
    assert rc == 2 and "unrecognized arguments: --no-task" in line and "did you mean --no-tasks?" in line
    assert not (tmp_path / "i").exists()


def test_a_misspelt_flag_gets_did_you_mean(inst, tmp_path):
    rc, err = cli("rollout", "--data", inst, "--out", tmp_path / "r.jsonl", "--temprature", "0.5")
    assert rc == 2 and "did you mean --temperature?" in error_line(err)


def test_a_misspelt_command_or_choice_gets_did_you_mean(inst, tmp_path):
    rc, err = cli("rolout", "--data", inst)
    assert rc == 2 and "did you mean 'rollout'?" in error_line(err)
    rc, err = cli("rollout", "--data", inst, "--out", tmp_path / "r.jsonl", "--mode", "clsed")
    assert rc == 2 and "did you mean 'closed'?" in error_line(err)


@pytest.mark.parametrize("flag, value, says", [
    ("--temperature", "-1", "at least 0"),
    ("--top-p", "2", "at most 1"),
    ("--top-p", "0", "more than 0"),
    ("--concurrency", "0", "at least 1"),
    ("--limit", "-1", "at least 1"),
    ("--n", "0", "at least 1"),
    ("--max-tokens", "0", "at least 1"),
    ("--temperature", "nan", "a number"),
])
def test_rollout_values_out_of_range_are_refused(inst, tmp_path, flag, value, says):
    out = tmp_path / "r.jsonl"
    rc, err = cli("rollout", "--data", inst, "--out", out, "--model", "fake:", flag, value)
    line = error_line(err)
    assert rc == 2 and flag in line and says in line
    assert not out.exists()


@pytest.mark.parametrize("flag, value", [("--timeout", "0"), ("--timeout", "-3"), ("--workers", "0")])
def test_judge_values_out_of_range_are_refused(inst, tmp_path, flag, value):
    rc, err = cli("judge", "--data", inst, "--rollouts", tmp_path / "r.jsonl", "--out", tmp_path / "v.jsonl",
                  flag, value)
    assert rc == 2 and flag in error_line(err)


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_sandbox_serve_refuses_a_port_that_cannot_be_one(inst, port):
    rc, err = cli("sandbox", "serve", "--data", inst, "--port", port)
    assert rc == 2 and "--port" in error_line(err)


def test_range_checks_apply_to_configs_made_in_code(inst, tmp_path):
    from sebench.errors import SebenchError
    from sebench.rollout.run import RolloutConfig, write_rollouts

    with pytest.raises(SebenchError, match="--top-p must be at most 1"):
        write_rollouts(RolloutConfig(data=inst, out=tmp_path / "r.jsonl", model="fake:", top_p=1.5, progress=False))


# ---- openai: without a server --------------------------------------------------------------------


def test_openai_without_a_url_is_refused_before_anything_is_written(inst, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "r.jsonl"
    rc, err = cli("rollout", "--data", inst, "--out", out, "--model", "openai:m")
    line = error_line(err)
    assert rc == 2 and "names no server" in line and "--base-url" in line and "OPENAI_BASE_URL" in line
    assert not out.exists() and not (tmp_path / "r.jsonl.lock").exists()


def test_openai_url_from_base_url_or_the_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert parse_argument("m", "http://a:8000") == ("m", ["http://a:8000/v1"])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://b:9000/v1")
    assert parse_argument("m") == ("m", ["http://b:9000/v1"])
    assert parse_argument("m@http://c:1") == ("m", ["http://c:1/v1"])


# ---- paths ---------------------------------------------------------------------------------------


def test_out_that_is_a_directory_is_one_line(inst, tmp_path):
    rc, err = cli("rollout", "--data", inst, "--out", tmp_path, "--model", "fake:")
    assert rc == 2 and "is a directory" in error_line(err)


def test_out_under_a_file_is_one_line(inst, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep\n")
    rc, err = cli("rollout", "--data", inst, "--out", notes / "r.jsonl", "--model", "fake:")
    assert rc == 2 and "is a file, not a folder" in error_line(err)
    assert notes.read_text() == "keep\n"


def test_an_unwritable_out_is_one_line_naming_the_path(inst):
    rc, err = cli("rollout", "--data", inst, "--out", "/proc/sebench-test/r.jsonl", "--model", "fake:")
    line = error_line(err)
    assert rc == 2 and "/proc/sebench-test" in line


def test_an_oserror_is_one_line_with_the_fix(tmp_path):
    from sebench.cli import describe_os_error

    line = describe_os_error(OSError(30, "Read-only file system", str(tmp_path / "v.jsonl")))
    assert line == f"{tmp_path / 'v.jsonl'}: Read-only file system (the filesystem is read-only; choose a path on " \
                   "a writable disk)"


# ---- instances -----------------------------------------------------------------------------------


def test_judge_of_an_instance_without_its_package_is_one_line_and_writes_nothing(tmp_path):
    inst = write_tiny_instance(tmp_path / "inst", package=False)
    assert cli("rollout", "--data", inst, "--out", tmp_path / "r.jsonl", "--model", "fake:")[0] == 0
    out = tmp_path / "v.jsonl"
    rc, err = cli("judge", "--data", inst, "--rollouts", tmp_path / "r.jsonl", "--out", out)
    assert rc == 2 and "no package folder" in error_line(err)
    assert not out.exists()


def test_an_instance_without_its_mapping_is_one_line(tmp_path):
    inst = write_tiny_instance(tmp_path / "inst", mapping=False)
    official = tmp_path / "single_test.jsonl"
    official.write_text("{}\n")
    rc, err = cli("tasks", "import", "--official", official, "--data", inst)
    line = error_line(err)
    assert rc == 2 and "private/mapping.json: missing" in line


def test_a_broken_manifest_is_one_line(tmp_path):
    inst = write_tiny_instance(tmp_path / "inst")
    (inst / "manifest.json").write_text("{not json")
    rc, err = cli("judge", "--data", inst, "--rollouts", tmp_path / "r.jsonl", "--out", tmp_path / "v.jsonl")
    assert rc == 2 and "manifest.json: unreadable" in error_line(err)


# ---- Ctrl-C --------------------------------------------------------------------------------------


def _interrupt(args: list, out) -> str:
    """Starts `sebench ARGS` (which blocks opening a fifo that nobody writes while it holds the lock of
    `out`), sends it Ctrl-C and returns its stderr."""
    env = {**os.environ, "PYTHONPATH": SRC}
    # SIGINT's default in the child even when pytest runs in a background job (started with SIGINT ignored)
    proc = subprocess.Popen([sys.executable, "-m", "sebench.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock = f"{out}.lock"
    for _ in range(600):  # the lock file appears once the command waits on the fifo
        if os.path.exists(lock) or proc.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not os.path.exists(lock)  # released on the way out
    return err


def test_ctrl_c_says_what_happens_next(inst, tmp_path):
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    verdicts, rollouts = tmp_path / "v.jsonl", tmp_path / "r.jsonl"
    judge_err = _interrupt(["judge", "--data", inst, "--rollouts", fifo, "--out", verdicts], verdicts)
    assert "Traceback" not in judge_err and "no verdicts were written" in judge_err and "resume" not in judge_err
    rollout_err = _interrupt(["rollout", "--data", inst, "--out", rollouts, "--model", f"fake:file={fifo}"],
                             rollouts)
    assert "Traceback" not in rollout_err and "run the same command again to resume" in rollout_err


# ---- sebench run: --set values --------------------------------------------------------------------


@pytest.mark.parametrize("setting, says", [
    ("train.epochs=abc", "train.epochs must be float (got 'abc')"),
    ("train.lora=yes", "train.lora must be bool (got 'yes')"),
    ("rollout.max_tokens=1.5", "rollout.max_tokens must be int | None (got 1.5)"),
    ("train_regimes.closed-sft.lr=fast", "train_regimes.closed-sft.lr must be float (got 'fast')"),
    ("seed=x", "seed must be int (got 'x')"),
])
def test_a_set_value_of_the_wrong_type_is_refused(tmp_path, setting, says):
    """`--set KEY=VALUE` of a value the setting cannot hold is one line naming the setting, before anything runs
    (not a resolved config that fails when its stage starts)."""
    out = tmp_path / "run"
    rc, err = cli("run", "--preset", "quick", "--out", out, "--set", setting, "--show-config")
    assert rc == 2 and says in error_line(err), err
    assert not out.exists()


def test_a_method_argument_without_a_value_names_the_flag_given(tmp_path):
    rc, err = cli("run", "--preset", "quick", "--out", tmp_path / "run", "--regimes", "closed-sft", "-M", "steps3",
                  "--show-config")
    assert rc == 2 and "-M expects KEY=VALUE, got 'steps3'" in error_line(err), err


def test_run_out_that_is_an_instance_or_a_project_folder_is_refused_and_kept(inst, tmp_path):
    """`sebench run --out` a folder that is not a run (an instance, a folder of one's own files) is one line, and
    nothing in it is written over (a run's manifest.json is an instance's too)."""
    before = {p: p.read_bytes() for p in inst.rglob("*") if p.is_file()}
    rc, err = cli("run", "--preset", "quick", "--out", inst)
    assert rc == 2 and f"{inst}: not a run directory (it holds " in error_line(err), err
    assert {p: p.read_bytes() for p in inst.rglob("*") if p.is_file()} == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    rc, err = cli("run", "--preset", "quick", "--out", mine)
    assert rc == 2 and "not a run directory (it holds notes.txt)" in error_line(err), err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_a_method_file_without_its_class_asks_for_it(tmp_path):
    """`--regimes ./my_method.py` (the file alone) is not an unknown regime: the line asks for FILE.py:NAME."""
    rc, err = cli("run", "--preset", "quick", "--out", tmp_path / "run", "--regimes", "./my_method.py",
                  "--show-config")
    assert rc == 2 and "name the class or function in the file, as ./my_method.py:NAME" in error_line(err), err

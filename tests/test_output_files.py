"""No input destroys data: each case runs the real command and finds its input intact and a clear refusal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sebench.output_files import OutputLock, atomic_text, prepare_resume
from sebench.records import Rollout, read_records

from .cli_fixtures import N_TASKS, cli, error_line, write_tiny_instance


@pytest.fixture
def inst(tmp_path):
    return write_tiny_instance(tmp_path / "inst")


def rollout(inst, out, *extra):
    return cli("rollout", "--data", inst, "--out", out, "--model", "fake:", *extra)


def snapshot(*paths):
    return {p: p.read_bytes() for p in paths}


# ---- rollout: appending only to its own output ---------------------------------------------------


@pytest.mark.parametrize("content", [b"my notes", b"line one\nline two\n", b"a,b\n1,2", b'{"x": 1}\n{"task_id',
                                     b"[" * 100_000 + b"]" * 100_000 + b"\n", b"\xff\xfe notes\n"])
def test_rollout_refuses_to_append_to_a_file_that_is_not_rollouts(inst, tmp_path, content):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(content)
    rc, err = rollout(inst, notes)
    assert rc == 2
    assert "not a rollouts file" in error_line(err)
    assert notes.read_bytes() == content


def test_rollout_overwrite_still_refuses_a_file_that_is_not_rollouts(inst, tmp_path):
    notes = tmp_path / "notes.jsonl"
    notes.write_bytes(b'{"name": "mine"}\n')
    rc, err = rollout(inst, notes, "--overwrite")
    assert rc == 2 and "not a rollouts file" in error_line(err)
    assert notes.read_bytes() == b'{"name": "mine"}\n'


def test_rollout_drops_only_its_own_half_written_last_line(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    assert rollout(inst, out, "--limit", "3")[0] == 0
    whole = out.read_bytes()
    out.write_bytes(whole + whole.splitlines(keepends=True)[0][:40])  # a crash in the middle of a record
    assert rollout(inst, out)[0] == 0
    records = read_records(out, Rollout)
    assert sorted(r.task_id for r in records) == sorted(f"single_test-{i}" for i in range(N_TASKS))
    assert out.read_bytes().startswith(whole)


def test_rollout_half_written_first_record_is_dropped(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_bytes(b'{"task_id": "single_test-0", "sampl')
    assert rollout(inst, out)[0] == 0
    assert len(read_records(out, Rollout)) == N_TASKS


def test_rollout_refuses_a_broken_line_in_the_middle(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    assert rollout(inst, out, "--limit", "2")[0] == 0
    lines = out.read_bytes().splitlines(keepends=True)
    broken = lines[0] + b"not json\n" + lines[1]
    out.write_bytes(broken)
    rc, err = rollout(inst, out)
    assert rc == 2 and ":2: not valid JSON" in error_line(err)
    assert out.read_bytes() == broken


def test_rollout_resume_with_other_settings_is_refused_with_the_differences(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    assert rollout(inst, out, "--limit", "2")[0] == 0
    before = out.read_bytes()
    rc, err = rollout(inst, out, "--temperature", "0.7", "--max-tokens", "100")
    line = error_line(err)
    assert rc == 2 and "temperature: 0.0 -> 0.7" in line and "max_tokens: 512 -> 100" in line
    assert out.read_bytes() == before
    assert rollout(inst, out, "--temperature", "0.7", "--overwrite")[0] == 0
    assert {r.usage["settings"]["temperature"] for r in read_records(out, Rollout)} == {0.7}


def test_rollout_resume_with_the_same_settings_adds_only_missing_samples(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    assert rollout(inst, out, "--limit", "2")[0] == 0
    before = out.read_bytes()
    assert rollout(inst, out, "--limit", "4")[0] == 0
    assert out.read_bytes().startswith(before) and len(read_records(out, Rollout)) == 4


def test_rollout_out_equal_to_the_instance_tasks_is_refused(inst):
    split = inst / "datasets/test/single_test.jsonl"
    before = split.read_bytes()
    rc, err = rollout(inst, split)
    assert rc == 2 and "same file as the input --data" in error_line(err)
    assert split.read_bytes() == before


# ---- judge ---------------------------------------------------------------------------------------


@pytest.fixture
def rollouts(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    assert rollout(inst, out, "--limit", "2")[0] == 0
    return out


def test_judge_out_equal_to_rollouts_is_refused(inst, rollouts):
    before = rollouts.read_bytes()
    rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", rollouts)
    assert rc == 2 and "same file as the input --rollouts" in error_line(err)
    assert rollouts.read_bytes() == before


def test_judge_out_through_a_link_to_rollouts_is_refused(inst, rollouts, tmp_path):
    link = tmp_path / "link.jsonl"
    link.symlink_to(rollouts)
    before = rollouts.read_bytes()
    rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", link)
    assert rc == 2 and "same file" in error_line(err)
    assert rollouts.read_bytes() == before


def test_judge_summary_equal_to_rollouts_is_refused(inst, rollouts, tmp_path):
    before = rollouts.read_bytes()
    rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", tmp_path / "v.jsonl",
                  "--summary", rollouts)
    assert rc == 2 and "--summary is the same file" in error_line(err)
    assert rollouts.read_bytes() == before


def test_judge_refuses_to_replace_a_file_that_is_not_verdicts(inst, rollouts, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", notes)
    assert rc == 2 and "not a verdicts file" in error_line(err)
    assert notes.read_text() == "keep me\n"


def test_judge_writes_verdicts_with_no_temporary_left(inst, rollouts, tmp_path):
    out = tmp_path / "v" / "verdicts.jsonl"
    rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", out, "--no-bwrap")
    assert rc == 0, err
    assert len(out.read_text().splitlines()) == 2
    assert sorted(p.name for p in out.parent.iterdir()) == ["verdicts.jsonl"]  # no .tmp, no .lock


def test_judge_a_second_writer_of_the_same_out_is_refused(inst, rollouts, tmp_path):
    out = tmp_path / "v.jsonl"
    out.write_text('{"task_id": "x", "sample_idx": 0, "verdict": "correct"}\n')
    before = out.read_bytes()
    with OutputLock(out):
        rc, err = cli("judge", "--data", inst, "--rollouts", rollouts, "--out", out)
    line = error_line(err)
    assert rc == 2 and f"process {os.getpid()} is writing this output" in line
    assert out.read_bytes() == before


# ---- one writer per output ----------------------------------------------------------------------


def test_a_lock_of_a_live_process_refuses_and_a_dead_ones_is_taken_over(inst, tmp_path):
    out = tmp_path / "r.jsonl"
    lock = tmp_path / "r.jsonl.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{holder.pid}\n")
        rc, err = rollout(inst, out)
        assert rc == 2 and f"process {holder.pid} is writing" in error_line(err)
        assert not out.exists()
    finally:
        holder.kill()
        holder.wait()
    rc, err = rollout(inst, out)  # the holder is gone: its lock is stale
    assert rc == 0, err
    assert len(read_records(out, Rollout)) == N_TASKS and not lock.exists()


def test_two_atomic_writers_of_one_path_never_share_a_temporary_file(tmp_path):
    path = tmp_path / "out.jsonl"
    with atomic_text(path) as first, atomic_text(path) as second:
        first.write("first\n" * 1000)
        second.write("second\n" * 10)
    assert path.read_text() in ("first\n" * 1000, "second\n" * 10)
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_an_interrupted_atomic_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), atomic_text(path) as handle:
        handle.write("new")
        raise KeyboardInterrupt
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_prepare_resume_keeps_a_whole_last_record_without_newline(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"task_id": "a"}\n{"task_id": "b"}')
    assert not prepare_resume(path, lambda o: "task_id" in o, "rollouts", "task_id")
    assert path.read_text() == '{"task_id": "a"}\n{"task_id": "b"}\n'


# ---- tasks import / export / generate -----------------------------------------------------------


def test_import_of_an_empty_file_does_not_replace_a_split(inst, tmp_path):
    empty = tmp_path / "single_test.jsonl"
    empty.write_text("")
    split = inst / "datasets/test/single_test.jsonl"
    before = snapshot(split, inst / "manifest.json")
    rc, err = cli("tasks", "import", "--official", empty, "--data", inst)
    line = error_line(err)
    assert rc == 2 and f"would replace {N_TASKS} tasks with 0" in line and "--overwrite" in line
    assert snapshot(split, inst / "manifest.json") == before
    # even with --overwrite a split is never replaced by no task at all
    assert cli("tasks", "import", "--official", empty, "--data", inst, "--overwrite")[0] == 2
    assert snapshot(split, inst / "manifest.json") == before


def test_export_into_the_instance_tasks_folder_is_refused(inst):
    folder = inst / "datasets/test"
    before = snapshot(*folder.iterdir())
    rc, err = cli("tasks", "export", "--data", inst, "--out", folder)
    assert rc == 2 and "same file as the input --data" in error_line(err)
    assert snapshot(*folder.iterdir()) == before


def test_export_to_an_existing_file_is_one_line(inst, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep\n")
    rc, err = cli("tasks", "export", "--data", inst, "--out", notes)
    assert rc == 2 and "is an existing file" in error_line(err)
    assert notes.read_text() == "keep\n"


@pytest.mark.parametrize("where", ["dir", "split", "notes"])
def test_generate_checks_out_before_asking_the_model(inst, tmp_path, where):
    target = {"dir": tmp_path, "split": inst / "datasets/train/train.jsonl", "notes": tmp_path / "n.txt"}[where]
    if where == "notes":
        target.write_text("keep\n")
    before = target.read_bytes() if target.is_file() else None
    # the fake model reads a missing file when it is built: the refusal must come before that
    rc, err = cli("tasks", "generate", "--data", inst, "--model", "fake:file=/nonexistent/answers.json",
                  "--functions", "zwc.kocito", "--out", target)
    line = error_line(err)
    assert rc == 2 and "answers.json" not in line
    assert ("directory" in line) if where == "dir" else ("same file" in line or "not a tasks file" in line)
    if before is not None:
        assert target.read_bytes() == before


# ---- report --------------------------------------------------------------------------------------


def test_report_out_an_existing_file_is_one_line(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep\n")
    rc, err = cli("report", tmp_path, "--out", notes)
    assert rc == 2 and "is an existing file" in error_line(err)
    assert notes.read_text() == "keep\n"

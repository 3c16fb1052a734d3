"""The rollout run: one record per (task, sample), resumable after a crash, nothing dropped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

from sebench.errors import SebenchError
from sebench.records import Rollout, read_records
from sebench.rollout.backends import get_backend
from sebench.rollout.run import RolloutConfig, write_rollouts

ANSWER = "```python\nimport zwc\ndef solve(readings):\n    return zwc.kocito(zwc.yitaf(readings))\n```"


def config(instance_dir: Path, out: Path, **kw) -> RolloutConfig:
    kw.setdefault("model", "fake:")
    return RolloutConfig(data=instance_dir, out=out, progress=False, **kw)


def pairs(path: Path) -> Counter:
    return Counter((r.task_id, r.sample_idx) for r in read_records(path, Rollout))


def test_writes_one_record_per_task_and_sample(instance_dir, tmp_path):
    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl", n=3, mode="open", model="fake:" + ANSWER))
    records = read_records(out, Rollout)
    assert len(records) == 18 and set(pairs(out).values()) == {1}
    record = records[0]
    assert record.mode == "open" and record.model == "fake:" + ANSWER
    assert record.prompt[1]["content"].startswith("Documentation of the `zwc` functions")
    assert record.response == ANSWER
    assert record.code == "import zwc\ndef solve(readings):\n    return zwc.kocito(zwc.yitaf(readings))\n"
    assert record.finish_reason == "stop" and set(record.usage) >= {"prompt_tokens", "completion_tokens"}


def test_resumes_without_duplicates(instance_dir, tmp_path):
    out = tmp_path / "r.jsonl"
    write_rollouts(config(instance_dir, out, n=2, limit=2))
    assert sum(pairs(out).values()) == 4
    backend = get_backend("fake:")
    write_rollouts(config(instance_dir, out, n=2), backend=backend)
    assert len(backend.calls) == 4  # only the missing tasks were asked
    assert sum(pairs(out).values()) == 12 and set(pairs(out).values()) == {1}
    write_rollouts(config(instance_dir, out, n=3), backend=backend)  # more samples: only the third is asked
    assert sum(pairs(out).values()) == 18 and set(pairs(out).values()) == {1}
    assert all(call.n == 1 for call in backend.calls[4:])


def test_resumes_through_a_link_the_user_names_as_out(instance_dir, tmp_path):
    out, link = tmp_path / "r.jsonl", tmp_path / "link.jsonl"
    write_rollouts(config(instance_dir, out, n=2, limit=2))
    link.symlink_to(out)
    write_rollouts(config(instance_dir, link, n=2))  # the user's own --out, read as named
    assert sum(pairs(out).values()) == 12 and set(pairs(out).values()) == {1}


def test_half_written_last_line_is_repaired(instance_dir, tmp_path, caplog):
    out = tmp_path / "r.jsonl"
    write_rollouts(config(instance_dir, out, limit=3))
    with out.open("a") as handle:
        handle.write('{"task_id": "single_test/3", "sample_idx": 0, "mo')
    write_rollouts(config(instance_dir, out))
    assert sum(pairs(out).values()) == 6 and set(pairs(out).values()) == {1}
    assert "half-written" in caplog.text


def test_overwrite_starts_afresh(instance_dir, tmp_path):
    out = tmp_path / "r.jsonl"
    write_rollouts(config(instance_dir, out, model="fake:old"))
    with pytest.raises(SebenchError, match="--overwrite"):
        write_rollouts(config(instance_dir, out, model="fake:new"))
    write_rollouts(config(instance_dir, out, model="fake:new", overwrite=True))
    assert {r.model for r in read_records(out, Rollout)} == {"fake:new"}


def test_unknown_model_fails_before_touching_the_file(instance_dir, tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(SebenchError, match="did you mean 'openai'"):
        write_rollouts(config(instance_dir, out, model="opnai:m@http://127.0.0.1:1"))
    assert not out.exists()


def test_empty_truncated_and_failed_answers_are_recorded(instance_dir, tmp_path):
    answers = ["", {"text": "```python\ndef solve(r", "finish_reason": "length"}, {"text": "", "finish_reason": "error"}]
    backend = get_backend("fake:", responses=answers)
    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl", limit=3), backend=backend)
    records = read_records(out, Rollout)
    assert [(r.response, r.finish_reason) for r in records] == [
        ("", "stop"), ("```python\ndef solve(r", "length"), ("", "error")
    ]
    assert records[0].code is None and records[1].code == "def solve(r\n"


def test_invalid_tasks_are_skipped(instance_dir, tmp_path):
    path = instance_dir / "datasets/test/single_test.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["is_valid"] = False
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl"))
    assert first["task_id"] not in {t for t, _ in pairs(out)} and len(pairs(out)) == 5


def test_retrieval_records_keep_every_turn(instance_dir, tmp_path):
    def respond(request):
        searched = any("Search results" in m["content"] for m in request.messages if m["role"] == "user")
        return ANSWER if searched else "```search\naverage mean\n```"

    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl", mode="retrieval", n=2), backend=get_backend("fake:", responses=respond))
    records = read_records(out, Rollout)
    assert len(records) == 12
    record = records[0]
    assert record.searches == ["average mean"]
    assert [m["role"] for m in record.prompt] == ["system", "user", "assistant", "user"]
    assert "### zwc.kocito" in record.prompt[-1]["content"]
    assert record.response == ANSWER and record.code


def test_full_doc_prompt_fits_the_backend_context(instance_dir, tmp_path, caplog):
    backend = get_backend("fake:", context_tokens=700)
    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl", mode="full-doc", max_tokens=200), backend=backend)
    assert "tokens cut" in caplog.text
    assert all(sum(len(m["content"]) for m in r.prompt) < 700 * 3.5 for r in read_records(out, Rollout))


def test_openai_run_in_process(instance_dir, tmp_path):
    with FakeOpenAIServer(answer=ANSWER) as server:
        server.script(["429", "500"])
        cfg = config(instance_dir, tmp_path / "r.jsonl", model=f"openai:fake-model@{server.url}", n=4, temperature=0.8)
        out = write_rollouts(cfg)
    records = read_records(out, Rollout)
    assert len(records) == 24 and set(pairs(out).values()) == {1}
    assert {r.code for r in records} == {"import zwc\ndef solve(readings):\n    return zwc.kocito(zwc.yitaf(readings))\n"}


# ---- a real crash: `sebench rollout` killed with SIGKILL mid-way, then run again ----
CLI = [sys.executable, "-m", "sebench.cli"]


def _rollout_command(instance_dir: Path, out: Path, url: str) -> list[str]:
    return [
        *CLI, "rollout", "--data", str(instance_dir), "--split", "single_test", "--mode", "open",
        "--model", f"openai:fake-model@{url}", "--out", str(out), "--n", "2", "--temperature", "0.7",
        "--concurrency", "2", "--thinking", "off",
    ]


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _kill_and_resume(instance_dir: Path, out: Path, n_tasks: int) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with FakeOpenAIServer(delay_s=0.05, answer=ANSWER) as server:
        server.script(["429", "500"])
        command = _rollout_command(instance_dir, out, server.url)
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while _lines(out) < 10 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = _lines(out)
        assert 10 <= killed_at < 2 * n_tasks, first.stderr.read().decode()[-2000:]
        with out.open("ab") as handle:  # and a torn write, as a crash inside write() would leave
            handle.write(b'{"task_id": "single_test/1", "sample_idx": 1, "mode": "op')
        second = subprocess.run(command, env=env, capture_output=True, timeout=120)
        assert second.returncode == 0, second.stderr.decode()[-2000:]
        assert "resuming" in second.stderr.decode()
    counts = pairs(out)
    assert sum(counts.values()) == 2 * n_tasks and set(counts.values()) == {1}
    assert server.answered < 2 * (2 * n_tasks)  # the finished samples were not asked again


def test_sigkill_mid_run_then_resume_gives_exactly_one_record_each(many_tasks_instance, tmp_path):
    _kill_and_resume(many_tasks_instance, tmp_path / "rollouts.jsonl", n_tasks=40)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # ~1 minute on a free CPU; far more on a shared one
def test_embedded_default_answers_a_real_prompt(instance_dir, tmp_path):
    pytest.importorskip("transformers")
    out = write_rollouts(config(instance_dir, tmp_path / "r.jsonl", model="smollm2-135m", mode="open", limit=1, max_tokens=128))
    [record] = read_records(out, Rollout)
    assert record.model == "smollm2-135m" and record.response.strip()
    assert record.finish_reason in ("stop", "length") and 0 < record.usage["completion_tokens"] <= 128
    assert record.prompt[1]["content"].startswith("Documentation of the `zwc` functions")
    assert record.code, record.response  # SmolLM2-135M-Instruct does write a python block


def test_answer_tasks_gives_the_same_records_as_run_for_tasks_outside_the_instance(instance_dir, tmp_path):
    """Self-play's tasks are in no split: answer_tasks answers them with the same prompts and records."""
    from dataclasses import replace

    from sebench.instance import Instance
    from sebench.rollout.run import answer_tasks

    instance = Instance.open(instance_dir)
    cfg = config(instance_dir, tmp_path / "r.jsonl", n=2, mode="open", model="fake:" + ANSWER)
    written = [replace(t, task_id=f"written/{i}") for i, t in enumerate(instance.tasks("single_test")[:3])]
    records = answer_tasks(cfg, instance, written, get_backend(cfg.model))
    assert [(r.task_id, r.sample_idx) for r in records] == [(t.task_id, s) for t in written for s in range(2)]
    assert not cfg.out.exists()
    from_run = read_records(write_rollouts(cfg), Rollout)[0]
    assert records[0].prompt[1]["content"] == from_run.prompt[1]["content"]
    assert (records[0].response, records[0].code, records[0].usage["settings"]) == (
        from_run.response, from_run.code, from_run.usage["settings"])

"""Training lets torch's threads follow the load between micro-batches, and train_config.json says how
many it used (a scripted load reading: no real competing process)."""

from __future__ import annotations

import json

import pytest

from sebench import threads
from sebench.train.config import TrainConfig
from sebench.train.run import run

torch = pytest.importorskip("torch")
pytest.importorskip("trl")


def test_sft_re_decides_its_threads_between_micro_batches(built_instance, tiny_model, tmp_path, monkeypatch):
    loads = iter([0.0, 1.0, 0.0, 1.0] * 20)  # a competitor that comes and goes
    seen = []

    def reading():
        seen.append(torch.get_num_threads())
        return next(loads)

    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    monkeypatch.setattr(threads, "GOVERNOR", threads.ThreadGovernor(reading=reading, cores=2, interval=0.0))
    before = torch.get_num_threads()
    try:
        out = run(TrainConfig(data=built_instance, regime="closed-sft", out=tmp_path / "ckpt", model=str(tiny_model),
                              max_steps=3, batch_size=1, grad_accum=2, max_examples=6))
    finally:
        torch.set_num_threads(before)
    assert len(seen) >= 6  # at loading, then before each of the 6 micro-batches
    assert {1, 2} <= set(seen[1:])  # the count did change while training
    used = json.loads((out / "train_config.json").read_text())["threads"]
    assert used["cores"] == 2 and used["policy"] == "adaptive" and set(used["seconds"]) == {"2", "1"}


def test_a_fixed_thread_count_is_kept_and_recorded(built_instance, tiny_model, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(threads, "GOVERNOR", threads.ThreadGovernor(reading=lambda: calls.append(1), cores=2))
    before = torch.get_num_threads()
    try:
        out = run(TrainConfig(data=built_instance, regime="closed-sft", out=tmp_path / "ckpt", model=str(tiny_model),
                              max_steps=2, batch_size=1, max_examples=2, threads=1))
    finally:
        torch.set_num_threads(before)
    used = json.loads((out / "train_config.json").read_text())["threads"]
    assert not calls and used["policy"] == "fixed" and set(used["seconds"]) == {"1"}

"""Training lets torch's threads follow the load as the model's layers run, and train_config.json says how
many it used (a scripted wait reading: no real competing process)."""

from __future__ import annotations

import itertools
import json

import pytest

from sebench import threads
from sebench.train.config import TrainConfig
from sebench.train.run import train_model

torch = pytest.importorskip("torch")
pytest.importorskip("trl")


def test_sft_re_decides_its_threads_as_it_trains(built_instance, tiny_model, tmp_path, monkeypatch):
    waits = itertools.cycle([0.0, 0.9])  # a competitor that comes and goes
    seen = []

    def reading():
        seen.append(torch.get_num_threads())
        return next(waits)

    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    monkeypatch.setattr(threads, "GOVERNOR", threads.ThreadGovernor(reading=reading, cores=2, interval=0.0, check=0.0,
                                                                    probe=0.0))
    before = torch.get_num_threads()
    try:
        out = train_model(TrainConfig(data=built_instance, regime="closed-sft", out=tmp_path / "ckpt", model=str(tiny_model),
                              max_steps=3, batch_size=1, grad_accum=2, max_examples=6))
    finally:
        torch.set_num_threads(before)
    assert len(seen) >= 13  # at loading, then as the layers of the 6 micro-batches run (forward, backward)
    assert {1, 2} <= set(seen[1:])  # the count did change while training
    used = json.loads((out / "train_config.json").read_text())["threads"]
    assert used["cores"] == 2 and used["policy"] == "adaptive" and set(used["seconds"]) == {"2", "1"}


def test_a_fixed_thread_count_is_kept_and_recorded(built_instance, tiny_model, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(threads, "GOVERNOR", threads.ThreadGovernor(reading=lambda: calls.append(1), cores=2))
    before = torch.get_num_threads()
    try:
        out = train_model(TrainConfig(data=built_instance, regime="closed-sft", out=tmp_path / "ckpt", model=str(tiny_model),
                              max_steps=2, batch_size=1, max_examples=2, threads=1))
    finally:
        torch.set_num_threads(before)
    used = json.loads((out / "train_config.json").read_text())["threads"]
    assert not calls and used["policy"] == "fixed" and set(used["seconds"]) == {"1"}

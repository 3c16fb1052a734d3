"""loss.csv / loss.png across stages, and the run's reproducibility record helpers."""

from __future__ import annotations

import csv
from types import SimpleNamespace

import pytest

from sebench.train import artifacts

pytest.importorskip("transformers")


def _stage(log, name, losses, rewards=None):
    callback = log.callback(name)
    state = SimpleNamespace(global_step=0)
    for i, loss in enumerate(losses):
        state.global_step = i + 1
        row = {"loss": loss, "learning_rate": 1e-4, "epoch": 0.5 * (i + 1)}
        if rewards:
            row["reward"] = rewards[i]
        callback.on_log(None, state, None, logs=row)
    callback.on_log(None, state, None, logs={"train_runtime": 1.0, "train_loss": 0.1})  # the summary row
    callback.on_train_end(None, state, None)


def test_loss_rows_continue_across_stages(tmp_path):
    log = artifacts.LossLog()
    _stage(log, "closed-sft", [2.0, 1.5])
    _stage(log, "grpo", [0.0, -0.1], rewards=[0.25, 0.5])
    log.write(tmp_path)
    with (tmp_path / "loss.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["step"], r["stage"], r["loss"], r["reward"]) for r in rows] == [
        ("1", "closed-sft", "2.0", ""), ("2", "closed-sft", "1.5", ""), ("3", "grpo", "0.0", "0.25"),
        ("4", "grpo", "-0.1", "0.5")]
    assert (tmp_path / "loss.png").read_bytes()[:4] == b"\x89PNG"


def test_hashes_and_versions(tmp_path):
    digest = artifacts.write_examples(tmp_path / "d.jsonl", [{"a": 1}])
    assert digest == artifacts.sha256_file(tmp_path / "d.jsonl")
    assert artifacts.input_hashes({"x": tmp_path / "d.jsonl", "missing": tmp_path / "no", "none": None}) == {"x": digest}

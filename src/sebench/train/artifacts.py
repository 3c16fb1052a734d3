"""What a training run leaves beside its checkpoint, so that it can be compared and reproduced.

    OUT/config.json, model.safetensors, tokenizer files   the HF checkpoint (LoRA merged)
    OUT/train_config.json    the TrainConfig (per process), its batch over every process (`batch`), seed,
                             library versions, device, CPU threads used, data hashes,
                             timings
    OUT/train_data.jsonl     the exact training examples (SFT pairs or GRPO prompts), for inspection
    OUT/rl_samples.jsonl     GRPO: every sampled completion, its reward, advantage and log-probabilities (rl.py)
    OUT/loss.csv             one row per logged step: step, stage, epoch, loss, learning_rate, reward
    OUT/loss.png             the loss curve (and the mean reward for GRPO stages)

`step` counts optimizer steps across the stages of a run (closed-sft-rl: SFT then GRPO; self-play: rounds),
so the curve is one line; `stage` says which stage a row belongs to.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LOSS_COLUMNS = ("step", "stage", "epoch", "loss", "learning_rate", "reward")


def device_info() -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {"cuda": torch.cuda.is_available(), "platform": sys.platform,
                            "processes": int(os.environ.get("WORLD_SIZE", "1"))}  # several: `accelerate launch`
    if info["cuda"]:
        info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return info


def global_batch(batch_size: int, grad_accum: int) -> dict[str, int]:
    """A step's batch over every process (`accelerate launch` sets WORLD_SIZE): the per-process values the
    trainer ran with, and `grad_accum` as one process would take it, which is the preset's value however the
    training was launched (`sebench run --gpus N` or `accelerate launch ... sebench train --preset`)."""
    processes = int(os.environ.get("WORLD_SIZE", "1"))
    return {"processes": processes, "per_process_batch_size": batch_size, "per_process_grad_accum": grad_accum,
            "grad_accum": grad_accum * processes, "examples": batch_size * grad_accum * processes}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_examples(path: Path, examples: list[dict]) -> str:
    """Writes the training examples as JSONL and returns their sha256 (the run's data hash)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in examples)
    path.write_text(text, encoding="utf-8")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def input_hashes(paths: dict[str, Path | None]) -> dict[str, str]:
    """sha256 of each input file that exists (instance manifest, rollouts, verdicts, ...)."""
    return {name: sha256_file(p) for name, p in paths.items() if p is not None and Path(p).is_file()}


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


class LossLog:
    """Collects the trainers' log rows across stages (step numbers continue from stage to stage)."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self._offset = 0

    def add(self, stage: str, step: int, loss: float, learning_rate: float, reward: float | None = None,
            epoch: float | None = None) -> None:
        """One row of a stage trained by our own loop (rl.py); `step` counts from 1 within the stage."""
        self.rows.append({"step": self._offset + step, "stage": stage, "epoch": epoch, "loss": loss,
                          "learning_rate": learning_rate, "reward": reward})

    def end_stage(self, steps: int) -> None:
        """The next stage's steps continue after this one's `steps`."""
        self._offset += steps

    def snapshot(self) -> tuple[list[dict], int]:
        """The rows so far and the current stage's step offset (a GRPO resume point keeps them)."""
        return [dict(r) for r in self.rows], self._offset

    def restore(self, rows: list[dict], offset: int) -> None:
        """Back to a snapshot: the rows and offset of a resume point."""
        self.rows, self._offset = [dict(r) for r in rows], offset

    def callback(self, stage: str):
        """A transformers TrainerCallback that appends this stage's training log rows."""
        from transformers import TrainerCallback

        owner = self
        offset = self._offset

        class _Recorder(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                if not logs or ("loss" not in logs and "reward" not in logs):
                    return  # the end-of-training summary row, evaluation rows
                owner.rows.append({
                    "step": offset + state.global_step, "stage": stage, "epoch": logs.get("epoch"),
                    "loss": logs.get("loss"), "learning_rate": logs.get("learning_rate"),
                    "reward": logs.get("reward"),
                })

            def on_train_end(self, args, state, control, **kwargs):
                owner._offset = offset + state.global_step

        return _Recorder()

    def write(self, out: Path) -> None:
        """OUT/loss.csv and OUT/loss.png (the plot is skipped with a warning if matplotlib is missing)."""
        with (out / "loss.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=LOSS_COLUMNS)
            writer.writeheader()
            for row in self.rows:
                writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in LOSS_COLUMNS})
        try:
            plot_loss(self.rows, out / "loss.png")
        except ImportError:
            log.warning("matplotlib is not installed: loss.png not written (pip install 'sebench[report]')")


def plot_loss(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for stage in dict.fromkeys(r["stage"] for r in rows):
        points = [(r["step"], r["loss"]) for r in rows if r["stage"] == stage and r.get("loss") is not None]
        if points:
            ax.plot(*zip(*points), marker=".", label=f"{stage} loss")
    rewards = [(r["step"], r["reward"]) for r in rows if r.get("reward") is not None]
    if rewards:
        twin = ax.twinx()
        twin.plot(*zip(*rewards), color="tab:green", linestyle="--", marker=".", label="mean reward")
        twin.set_ylabel("mean reward")
        twin.set_ylim(-0.05, 1.05)
        twin.legend(loc="upper right", fontsize=8)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training loss")
    ax.set_title(f"Training loss ({path.parent.name})")
    if rows:
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

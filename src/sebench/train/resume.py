"""Resume points of the own GRPO loop (rl.py), so that a stopped run goes on where it was.

Every --resume-every optimizer steps, at the end of a sampled batch, the loop saves to OUT/trainer/rl-resume/:
the model's and the optimizer's and scheduler's states, the steps and batches done, the loss rows so far,
and the byte lengths of OUT/rl_samples.jsonl and rl_steps.jsonl. A run of the same config that finds the
point restores all of it, cuts the two files back to those lengths (rows written after the point are
written again, never twice) and continues with the next batch. Each batch's sampling seed depends only on
the batch's index, so the continued run draws the same samples as an unbroken one (bit for bit at a fixed
--threads).

A point belongs to one GRPO stage of one set of rows (`key`); any other stage or data ignores it. The save is
atomic: a new point is written beside the old one and swapped in (save_state, which self-play's round points
use too: train/selfplay.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FOLDER = "rl-resume"  # under OUT/trainer, the work folder that a finished run removes
STATE_FILE = "point.json"
TENSORS_FILE = "state.pt"


@dataclass
class ResumePoint:
    """Where a GRPO stage stood when it was saved."""

    key: str  # the stage's name and a hash of its rows and config
    step: int  # optimizer steps done
    batches: int  # sampled batches done
    file_sizes: dict[str, int] = field(default_factory=dict)  # record file name -> byte length at the point
    loss_rows: list[dict] = field(default_factory=list)
    loss_offset: int = 0


def folder(out: Path) -> Path:
    return Path(out) / "trainer" / FOLDER


def stage_key(stage: str, rows: list[dict], config: dict) -> str:
    """A point's identity: the stage, its prompts and the training config (without paths)."""
    text = json.dumps({"stage": stage, "rows": rows, "config": config}, sort_keys=True, default=str)
    return f"{stage}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}"


def read_point(out: Path) -> ResumePoint | None:
    path = folder(out) / STATE_FILE
    if not path.is_file() or not (folder(out) / TENSORS_FILE).is_file():
        return None
    return ResumePoint(**json.loads(path.read_text(encoding="utf-8")))


def discard(out: Path, record_files: tuple[str, ...]) -> None:
    """Removes a point and the record files it would have cut back (a run that starts from scratch)."""
    shutil.rmtree(folder(out), ignore_errors=True)
    for name in record_files:
        (Path(out) / name).unlink(missing_ok=True)


def kept_point(out: Path, key: str, record_files: tuple[str, ...]) -> ResumePoint | None:
    """The point of stage `key` if there is one; any other point is discarded with the record files it
    would have cut back, and so is everything when there is no point (the stage starts from scratch)."""
    point = read_point(out)
    if point is not None and point.key == key:
        return point
    if point is not None:
        log.info("%s: a resume point of other settings or data (%s) is discarded", key.split(":")[0], point.key)
    discard(out, record_files)
    return None


def save(out: Path, point: ResumePoint, model: Any, optimizer: Any, scheduler: Any) -> None:
    """Writes `point` and the training state beside the current point, then swaps it in."""
    point.file_sizes = file_sizes(out, point.file_sizes)
    save_state(folder(out), asdict(point), {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                                            "scheduler": scheduler.state_dict()})


def file_sizes(out: Path, names) -> dict[str, int]:
    """The byte length of each record file `names` under `out` (0 where there is none)."""
    return {name: (Path(out) / name).stat().st_size if (Path(out) / name).exists() else 0 for name in names}


def cut_back(out: Path, sizes: dict[str, int]) -> None:
    """Cuts each record file under `out` back to its length in `sizes` (rows written after a point)."""
    for name, size in sizes.items():
        path = Path(out) / name
        if path.exists():
            with path.open("r+b") as handle:
                handle.truncate(size)


def save_state(target: Path, meta: dict, tensors: dict) -> None:
    """Writes a point (meta as JSON, tensors with torch.save) beside `target`, then swaps it in: a reader
    finds the old point or the new one, never half of one."""
    import torch

    fresh, old = target.with_name(target.name + ".new"), target.with_name(target.name + ".old")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    torch.save(tensors, fresh / TENSORS_FILE)
    (fresh / STATE_FILE).write_text(json.dumps(meta), encoding="utf-8")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def load_state(target: Path) -> tuple[dict, dict] | None:
    """The (meta, tensors) of the point in `target`; None when there is none."""
    import torch

    if not (target / STATE_FILE).is_file() or not (target / TENSORS_FILE).is_file():
        return None
    meta = json.loads((target / STATE_FILE).read_text(encoding="utf-8"))
    return meta, torch.load(target / TENSORS_FILE, map_location="cpu", weights_only=False)


def restore(out: Path, key: str, model: Any, optimizer: Any, scheduler: Any) -> ResumePoint | None:
    """Loads the point of stage `key` into the model, optimizer and scheduler and cuts the record files back
    to their lengths at the point; None (nothing changed) when there is no point for `key`."""
    point = read_point(out)
    if point is None or point.key != key:
        return None
    _meta, state = load_state(folder(out)) or ({}, {})
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    cut_back(out, point.file_sizes)
    log.info("%s: resuming after step %d (batch %d) from %s", key.split(":")[0], point.step, point.batches,
             folder(out))
    return point

"""Running one method for a study: its training view, its fenced process, and its record (method.json).

    FOLDER/view/          the training view (sebench.methods.view)
    FOLDER/work/          the method's work folder: job.json, attempts.jsonl, result.json, cost.json
    FOLDER/agent/         an agent's state, when the method returns an agent
    FOLDER/checkpoint/    where the built-in regimes write their checkpoint
    FOLDER/method.json    spec, origin, arguments, source hash, versions, view hash, layer, docs-only functions,
                          result, cost, refused reads
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import write_json
from sebench.methods import isolation
from sebench.methods.child import COST_FILE, ERROR_FILE, RESULT_FILE, USAGE_FILE
from sebench.methods.loader import MethodRef
from sebench.methods.view import write_view
from sebench.process_memory import note_child_peak
from sebench.provenance import versions
from sebench.threads import add_thread_usage

log = logging.getLogger(__name__)

METHOD_FILE = "method.json"


@dataclass(frozen=True)
class MethodJob:
    """One method to run: what it is, the study's data, and what the study hides from it."""

    ref: MethodRef
    args: dict
    data: Path  # the study's instance (or studied subset)
    folder: Path  # FOLDER above
    start_model: str
    seed: int
    hidden: tuple[Path, ...]  # folders and files the method may not read
    readable: tuple[Path, ...] = ()  # exceptions inside them (a checkpoint it starts from)
    answers: Path | None = None  # the start model's judged open-book training rollouts
    with_mapping: bool = False  # a built-in regime the paper defines with the mapping (self-play's leak filter)
    reward_rule: str = "binary"
    judge_workers: int | None = None
    sandbox_urls: list[str] = field(default_factory=list)
    backend_options: dict = field(default_factory=dict)
    docs_only: list[str] = field(default_factory=list)  # functions whose tasks the view leaves out (the docs-only setting)

    @property
    def workdir(self) -> Path:
        return self.folder / "work"

    def fence(self) -> isolation.Fence:
        """The hidden paths, with what the child needs to start even when a hidden folder holds it (a run
        folder that contains the Python environment, sebench's source or the method's file)."""
        import sebench

        needed = [Path(sys.prefix), Path(sebench.__file__).resolve().parents[1]]
        if self.ref.source is not None:
            needed.append(self.ref.source.parent)
        return isolation.Fence(self.hidden, (*self.readable, *needed), (self.folder,))

    def child_job(self, action: str, **extra: object) -> dict:
        return {"action": action, "label": self.ref.label, "spec": self.ref.spec, "origin": self.ref.origin,
                "target": self.ref.target, "args": self.args, "view": str(self.folder / "view"),
                "workdir": str(self.workdir), "state": str(self.folder / "agent"), "start_model": self.start_model,
                "seed": self.seed, "reward_rule": self.reward_rule, "judge_workers": self.judge_workers,
                "sandbox_urls": self.sandbox_urls, "backend_options": self.backend_options,
                "fence": self.fence().to_json(), "layer": isolation.isolation_layer(), **extra}


def run_method(job: MethodJob) -> dict:
    """Runs the method in its fenced process and returns its record (also written to FOLDER/method.json);
    a method that fails, or returns nothing usable, raises SebenchError with one line, after the record."""
    job.workdir.mkdir(parents=True, exist_ok=True)
    for name in (RESULT_FILE, ERROR_FILE, COST_FILE, USAGE_FILE, isolation.ATTEMPTS_FILE):
        (job.workdir / name).unlink(missing_ok=True)
    view_hash = write_view(job.data, job.folder / "view", job.seed, answers=job.answers, with_mapping=job.with_mapping,
                           docs_only=job.docs_only)
    job_file = job.workdir / "job.json"
    write_json(job_file, job.child_job("train"))
    started = time.time()
    code = subprocess.run(isolation.command(job.fence(), [sys.executable, "-m", "sebench.methods.child", str(job_file)]),
                          env=child_env()).returncode
    record = _record(job, view_hash, round(time.time() - started, 1))
    usage = _read(job.workdir / USAGE_FILE) or {}
    add_thread_usage(usage.get("threads"))  # the stage's record counts the child's threads and memory
    note_child_peak(usage.get("peak_rss_mb") or 0.0)
    write_json(job.folder / METHOD_FILE, record)
    if code != 0 or "error" in record:
        why = record.get("error") or f"its process exited with code {code}"
        raise SebenchError(why if job.ref.origin == "built-in" else f"method {job.ref.label} ({job.ref.spec}) failed: {why}")
    return record


def _record(job: MethodJob, view_hash: str, seconds: float) -> dict:
    work = job.workdir
    result = _read(work / RESULT_FILE)
    cost = _read(work / COST_FILE) or {}
    record = {
        "label": job.ref.label, "spec": job.ref.spec, "origin": job.ref.origin, "args": job.args,
        "source_sha256": job.ref.source_sha256(), "versions": versions(), "view_sha256": view_hash,
        "isolation": isolation.isolation_layer(), "reads_mapping": job.with_mapping, "docs_only": job.docs_only,
        "returns": result.get("kind") if result else None, "result": result,
        "eligible": bool(result) and not result.get("docs_at_test_time") and result.get("eligible", True),
        "verified": not result or result.get("kind") != "endpoint",
        "cost": {"wall_seconds": seconds, "judge_calls": cost.get("judge_calls", 0),
                 "tokens_sampled": cost.get("tokens_sampled", 0), "tokens_trained": cost.get("tokens_trained", 0)},
        "refused_reads": isolation.read_attempts(work),
    }
    if (work / ERROR_FILE).is_file():
        record["error"] = (work / ERROR_FILE).read_text(encoding="utf-8").strip()
    return record


def _read(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def child_env() -> dict:
    """The study's environment, with sebench importable in the child however the study was started."""
    import sebench

    env = dict(os.environ)
    src = str(Path(sebench.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env

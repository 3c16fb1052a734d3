"""Runs reference solutions (trusted code written by this module's templates) in plain subprocesses.

Many jobs go to each subprocess (start-up dominates otherwise); `workers` subprocesses run side by side.
The generated package is importable in them (PYTHONPATH = the instance's package folder).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError

RUNNER = Path(__file__).with_name("runner.py")


@dataclass(frozen=True)
class Job:
    id: str
    code: str
    entry: str
    inputs: list
    side: str  # "package" | "numpy"
    package: str = ""


def run_jobs(package_dir: Path | None, jobs: list[Job], workers: int = 2, timeout_s: float = 600) -> dict:
    """{job id: [{"ok": True, "value": data} | {"ok": False, "error": text}, ...]}."""
    if not jobs:
        return {}
    workers = max(1, min(workers, len(jobs)))
    chunks = [jobs[i::workers] for i in range(workers)]
    env = dict(os.environ)
    if package_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package_dir), env.get("PYTHONPATH", "")]))
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lambda chunk: _run_chunk(chunk, env, timeout_s), chunks))
    results: dict = {}
    for part in parts:
        results.update(part)
    return results


def _run_chunk(chunk: list[Job], env: dict, timeout_s: float) -> dict:
    request = json.dumps({"jobs": [job.__dict__ for job in chunk]})
    try:
        proc = subprocess.run(
            [sys.executable, str(RUNNER)], input=request, capture_output=True, text=True,
            env=env, timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        raise SebenchError(f"reference runner took over {timeout_s:.0f} s for {len(chunk)} jobs") from None
    results = {}
    for line in proc.stdout.splitlines():
        item = json.loads(line)
        results[item["id"]] = item["cases"]
    if len(results) != len(chunk):
        tail = proc.stderr.strip().splitlines()[-3:]
        raise SebenchError(f"reference runner stopped early (exit {proc.returncode}): {' | '.join(tail)}")
    return results

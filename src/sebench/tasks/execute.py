"""Runs reference solutions (trusted code written by the task templates) in child processes.

Each child is the `reference` command of sebench.harness. Many jobs go to each child (start-up dominates
otherwise); `workers` children run side by side. The generated package is importable in them (the
instance's package folder comes first on their sys.path).
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sebench import harness
from sebench.errors import SebenchError


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
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    folder = str(package_dir) if package_dir is not None else ""
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lambda chunk: _run_chunk(folder, chunk, env, timeout_s), chunks))
    results: dict = {}
    for part in parts:
        results.update(part)
    return results


def _run_chunk(package_dir: str, chunk: list[Job], env: dict, timeout_s: float) -> dict:
    request = "".join(json.dumps(job.__dict__) + "\n" for job in chunk)
    try:
        proc = harness.run("reference", package_dir, request, timeout=timeout_s, env=env)
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

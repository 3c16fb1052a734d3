"""Runs doc examples against the generated package (sebench.harness's `examples`, in child processes)
and keeps what is real and stable.

Each example (one function's statements, sharing one namespace as in doctest) is run twice, in two
processes that fill freed memory with different values before every statement, so that outputs that
depend on uninitialised memory (empty, empty_like), addresses or timing differ and are dropped. A
statement that fails, differs between the runs, or prints too much is dropped, with every later
statement that uses a name it bound; the rest is run again until nothing more is dropped, so the
outputs shown are those of exactly the statements shown.
"""

from __future__ import annotations

import json
import logging
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sebench import harness

log = logging.getLogger(__name__)

MAX_OUTPUT_LINES = 30
MAX_ROUNDS = 4

@dataclass
class StmtResult:
    status: str  # "ok", "timeout" or "error Type: message"
    output: str  # printed text followed by the displayed value(s)
    bound: list  # reprs of the names the statement binds


def _run_once(package_dir: Path, jobs: list[dict], poison: float, prelude: str) -> dict[str, list[StmtResult]]:
    """Runs the jobs in one process; a crash loses only the job that crashed (the rest are rerun)."""
    results: dict[str, list[StmtResult]] = {}
    pending = list(jobs)
    with tempfile.TemporaryDirectory() as cwd:
        while pending:
            proc = harness.run("examples", package_dir, "".join(json.dumps(j) + "\n" for j in pending),
                               repr(poison), prelude, timeout=600, cwd=cwd)
            if proc.returncode == 3:
                raise RuntimeError(f"example runner: {proc.stderr.strip()[-400:]} (package folder {package_dir})")
            done = set()
            for line in proc.stdout.splitlines():
                row = json.loads(line)
                results[row["id"]] = [StmtResult(*r) for r in row["results"]]
                done.add(row["id"])
            rest = [j for j in pending if j["id"] not in done]
            if rest and proc.returncode == 0:
                raise RuntimeError(f"example runner skipped jobs: {proc.stderr[-500:]}")
            if rest:
                crashed = rest[0]
                log.warning("example runner crashed in %s (%s)", crashed["id"], proc.stderr.strip()[-200:])
                results[crashed["id"]] = [StmtResult("crash", "", []) for _ in crashed["stmts"]]
                rest = rest[1:]
            pending = rest
    return results


def run_examples(
    package_dir: Path, package: str, jobs: dict[str, list[tuple[str, list[str]]]]
) -> dict[str, list[StmtResult]]:
    """Runs every job (after `import <package>` and `import math`) twice (different memory poison); returns the first run's results, with a statement's
    status set to "unstable" where the two runs disagree."""
    package_dir = Path(package_dir).resolve()
    payload = [{"id": k, "stmts": [[s, b] for s, b in v]} for k, v in sorted(jobs.items()) if v]
    if not payload:
        return {k: [] for k in jobs}
    prelude = f"import {package}\nimport math"
    with ThreadPoolExecutor(2) as pool:
        fa = pool.submit(_run_once, package_dir, payload, 1.25e300, prelude)
        fb = pool.submit(_run_once, package_dir, payload, -7.5, prelude)
        ra, rb = fa.result(), fb.result()
    out: dict[str, list[StmtResult]] = {k: [] for k in jobs}
    for job_id, first in ra.items():
        second = rb.get(job_id, [])
        merged = []
        for i, a in enumerate(first):
            b = second[i] if i < len(second) else None
            if a.status == "ok" and (b is None or (b.status, b.output, b.bound) != (a.status, a.output, a.bound)):
                a = StmtResult("unstable", a.output, a.bound)
            merged.append(a)
        out[job_id] = merged
    return out

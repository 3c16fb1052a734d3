"""Runs doc examples against the generated package, in subprocesses, and keeps what is real and stable.

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
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MAX_OUTPUT_LINES = 30
MAX_ROUNDS = 4

_RUNNER = r'''
import io, json, re, signal, sys, warnings
package_dir, poison, prelude = sys.argv[1], float(sys.argv[2]), sys.argv[3]
sys.path.insert(0, package_dir)
warnings.simplefilter("ignore")
import numpy as _n
real_stdout = sys.stdout
class _Timeout(BaseException):
    pass
def _alarm(*_):
    raise _Timeout()
signal.signal(signal.SIGALRM, _alarm)
try:
    exec(prelude, {})
except BaseException as e:
    sys.stderr.write("cannot import the package: %s: %s\n" % (type(e).__name__, e))
    sys.exit(3)
def _poison():
    for size in (1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 24, 32, 64, 100, 128, 256, 512, 1024):
        for dt in ("float64", "int64", "complex128"):
            a = _n.full(size, poison, dtype=dt) if dt != "int64" else _n.full(size, int(poison % 1000003), dtype=dt)
            del a
def _repr(v):
    try:
        return repr(v)
    except BaseException as e:
        return "<unrepresentable %s>" % type(e).__name__
for line in sys.stdin:
    job = json.loads(line)
    ns = {"__name__": "__example__"}
    exec(prelude, ns)
    results = []
    for src, binds in job["stmts"]:
        _poison()
        shown, buf = [], io.StringIO()
        sys.displayhook = lambda v: shown.append(_repr(v)) if v is not None else None
        sys.stdout = buf
        status = "ok"
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        try:
            exec(compile(src, "<example>", "single"), ns)
        except _Timeout:
            status = "timeout"
        except BaseException as e:
            status = "error %s: %s" % (type(e).__name__, str(e)[:200])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout = real_stdout
        bound = [re.sub(r" at 0x[0-9a-fA-F]+", "", _repr(ns.get(b))) for b in binds]
        results.append([status, (buf.getvalue() + "\n".join(shown)).rstrip("\n"), bound])
    real_stdout.write(json.dumps({"id": job["id"], "results": results}) + "\n")
    real_stdout.flush()
'''


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
            proc = subprocess.run(
                [sys.executable, "-I", "-B", "-c", _RUNNER, str(package_dir), repr(poison), prelude],
                input="".join(json.dumps(j) + "\n" for j in pending),
                capture_output=True, text=True, cwd=cwd, timeout=600,
            )
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

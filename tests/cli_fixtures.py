"""A tiny instance on disk and a way to run the real `sebench` command on it, for the CLI-safety tests."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from sebench.records import ApiDoc, Task, write_records

SRC = str(Path(__file__).resolve().parents[1] / "src")
N_TASKS = 6
MAPPING = {"package": "zwc", "functions": {"numpy.array": "zwc.yitaf", "numpy.mean": "zwc.kocito"}}
PACKAGE = "def yitaf(x):\n    return list(x)\n\n\ndef kocito(a):\n    return sum(a) / len(a)\n"


def task(i: int, split: str) -> Task:
    return Task(task_id=f"{split}-{i}", split=split, kind="single", query=f"Problem {i}: the mean of `a`.",
                function_name="def solve(a):", entry_point="solve", example="solve(a=[1, 3]) -> 2.0",
                test_cases=[{"input": "a=[1, 3]", "output": "2.0"}], right_exe_result="2.0",
                selected_functions=["zwc.kocito"], expected=[2.0],
                reference_solution="import zwc\ndef solve(a):\n    return zwc.kocito(a)\n")


def write_tiny_instance(root: Path, package: bool = True, mapping: bool = True) -> Path:
    write_records(root / "datasets/train/api_doc.jsonl",
                  [ApiDoc("zwc.kocito", "kocito(a)", "The mean."), ApiDoc("zwc.yitaf", "yitaf(x)", "An array.")])
    for split, rel in (("train", "datasets/train/train.jsonl"), ("single_test", "datasets/test/single_test.jsonl"),
                       ("multiple_test", "datasets/test/multiple_test.jsonl")):
        write_records(root / rel, [task(i, split) for i in range(N_TASKS)])
    (root / "manifest.json").write_text(json.dumps({"package": "zwc", "seed": 0, "counts": {}, "hashes": {}}))
    if mapping:
        (root / "private").mkdir()
        (root / "private/mapping.json").write_text(json.dumps(MAPPING))
    if package:
        (root / "package/zwc").mkdir(parents=True)
        (root / "package/zwc/__init__.py").write_text(PACKAGE)
    return root


def sebench(*args: str, cwd: Path | None = None, env: dict | None = None, **popen) -> subprocess.CompletedProcess:
    """Runs `python -m sebench.cli ARGS` as a user would (a fresh process)."""
    full_env = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
    return subprocess.run([sys.executable, "-m", "sebench.cli", *map(str, args)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120, **popen)


def cli(*args: str) -> tuple[int, str]:
    """(exit code, stderr) of `sebench ARGS` run in this process through the real entry point."""
    from sebench.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in args])
        except SystemExit as exc:  # argparse refusals
            rc = exc.code
    return rc, err.getvalue()


def error_line(stderr: str) -> str:
    """The one error line of a refused command (and checks that there is no traceback)."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, stderr
    return lines[0]

"""`sebench judge --protocol original` against the original benchmark's own judge, when a copy of the
original repository is on this machine ($SEBENCH_ORIGINAL_REPO, or SE-Bench-original beside the checkout);
skipped otherwise. The original's judge code is imported from that copy and run as it is (its /run server
replaced by a local subprocess with its own package), on answers made from the shared release rows."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sebench.builder.run import build_instance
from sebench.cli import main
from sebench.records import Verdict, read_records

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = Path(os.environ.get("SEBENCH_ORIGINAL_REPO") or ROOT.parent / "SE-Bench-original")
SHARED = ROOT.parent / "shared/reference"
pytestmark = pytest.mark.skipif(not (ORIGINAL / "src/filter_correct_trajectory.py").is_file()
                                or not (SHARED / "original_single_test_sample.jsonl").is_file(),
                                reason="no copy of the original SE-Bench repository (or shared/) here")
OUTCOMES = ("result_error", "right", "numpy", "exe_error", "without_zwc")


def _original_outcomes(records: list[dict]) -> list[str]:
    """The original judge's outcome for each record (response, test_cases, right_exe_result)."""
    script = f"""
import json, os, subprocess, sys, tempfile, types
sys.modules["openai"] = types.SimpleNamespace(OpenAI=None)
import requests
class Reply:
    def __init__(self, d): self.d = d
    def json(self): return self.d
def post(url, json=None):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "main.py")
        open(path, "w").write(json["code"])
        env = dict(os.environ, PYTHONPATH={str(ORIGINAL / "zwc")!r}, PYTHONBREAKPOINT="0")
        try:
            r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=3, cwd=d, env=env)
            return Reply({{"stdout": r.stdout, "stderr": r.stderr}})
        except subprocess.TimeoutExpired:
            return Reply({{"stdout": "", "stderr": "TLE"}})
requests.post = post
sys.path.insert(0, {str(ORIGINAL / "src")!r})
sys.argv = ["judge", "--input_path", "unused"]
import filter_correct_trajectory as f
for line in sys.stdin:
    try:
        print(f.JudgeWorker().judge(json.loads(line))[1])
    except Exception:
        print(3)
"""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(script)
    try:
        done = subprocess.run([sys.executable, handle.name], input="".join(json.dumps(r) + "\n" for r in records),
                              capture_output=True, text=True, timeout=600, env=dict(os.environ, PYTHONBREAKPOINT="0"))
    finally:
        os.unlink(handle.name)
    codes = [line for line in done.stdout.splitlines() if line.strip().isdigit()]
    assert len(codes) == len(records), done.stderr[-3000:]
    return [OUTCOMES[int(c)] for c in codes]


def _answers(rows: list[dict], mapping: dict) -> list[tuple[int, str]]:
    """Answers to each row: its NumPy example solution moved to the package's names, and variants."""
    def to_package(code: str) -> str:
        code = re.sub(r"^\s*import numpy as np\s*$", "import zwc", code, flags=re.M)
        return re.sub(r"\bnp\.linalg\.\w+|\bnp\.\w+", lambda m: mapping.get(m.group(0), m.group(0)), code)

    out = []
    for i, row in enumerate(rows):
        example = row["example_output"]
        example = ast.literal_eval(example) if isinstance(example, str) else example
        code = to_package(example[0])
        entry = re.search(r"def\s+(\w+)\s*\(", row["function_name"]).group(1)
        inner = re.sub(rf"def\s+{entry}\s*\(", "def _inner(", code, count=1)
        add = mapping["np.add"]
        out += [(i, f"```python\n{code}\n```"),
                (i, f"```python\nimport numpy as np\n{code}\n```"),
                (i, f"```python\nimport zwc\ndef {entry}(*a, **k):\n    return {add}(_inner(*a, **k), 0.001)\n{inner}\n```"),
                (i, f"```python\nimport zwc\ndef {entry}(*a, **k):\n    return {add}(_inner(*a, **k), 0.05)\n{inner}\n```")]
    return out


def test_original_protocol_agrees_with_the_original_judge(tmp_path):
    rows = [json.loads(line) for line in (SHARED / "original_single_test_sample.jsonl").read_text().splitlines()]
    mapping = {}
    for line in (SHARED / "official_api_doc.jsonl").read_text().splitlines():
        mapping.update(json.loads(json.loads(line)["func_mapping"]))
    root = build_instance(tmp_path / "inst", 0, mapping_from=SHARED / "official_api_doc.jsonl", docs=False,
                          audit=False)
    assert main(["tasks", "import", "--official", str(SHARED / "original_single_test_sample.jsonl"), "--data",
                 str(root), "--split", "single_test"]) == 0
    answers = _answers(rows, mapping)
    cases = [ast.literal_eval(r["test_cases"]) if isinstance(r["test_cases"], str) else r["test_cases"] for r in rows]
    expected = _original_outcomes([{"response": text, "test_cases": json.loads(json.dumps(cases[i])),
                                    "right_exe_result": rows[i]["right_exe_result"]} for i, text in answers])
    rollouts = tmp_path / "answers.jsonl"
    rollouts.write_text("".join(json.dumps({"query": rows[i]["query"], "response": text}) + "\n"
                                for i, text in answers))
    out = tmp_path / "verdicts.jsonl"
    assert main(["judge", "--protocol", "original", "--data", str(root), "--rollouts", str(rollouts), "--out",
                 str(out)]) == 0
    ours = [v.outcome for v in read_records(out, Verdict)]
    assert "right" in expected and len(set(expected)) >= 3  # the answers exercise several outcomes
    assert ours == expected

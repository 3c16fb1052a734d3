"""sebench.harness: its commands in a child process, and its pieces imported here."""

import json
import math

import pytest

from sebench import harness


def _lines(proc) -> list[dict]:
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_reference_outputs_are_strict_task_data(tmp_path):
    """The child encodes with sebench.values.to_task_data, loaded by its path (it cannot import sebench)."""
    job = {"id": "t", "code": "def f(k):\n    return (1, 2j) if k else {1}\n", "entry": "f", "inputs": ["k=1", "k=0"],
           "side": "numpy", "package": "numpy"}
    [answer] = _lines(harness.run("reference", tmp_path, json.dumps(job) + "\n"))
    assert answer["cases"] == [{"ok": True, "value": [1, {"__complex__": [0.0, 2.0]}]},
                               {"ok": False, "error": "TypeError: not plain data: set"}]


def test_reference_runs_each_case_and_reports_failures(tmp_path):
    jobs = [
        {"id": "ok", "code": "import numpy as np\ndef f(a):\n    return np.sqrt(np.asarray(a))\n", "entry": "f",
         "inputs": ["a=[4.0, 9.0]", "a='x'"], "side": "numpy", "package": "numpy"},
        {"id": "slow", "code": "def f():\n    while True:\n        pass\n", "entry": "f", "inputs": ["", ""],
         "side": "numpy", "package": "numpy"},
        {"id": "broken", "code": "def f(:\n", "entry": "f", "inputs": ["", ""], "side": "numpy", "package": "numpy"},
    ]
    answers = {a["id"]: a["cases"] for a in _lines(harness.run("reference", tmp_path, "".join(
        json.dumps(j) + "\n" for j in jobs)))}
    assert answers["ok"][0] == {"ok": True, "value": [2.0, 3.0]}
    assert not answers["ok"][1]["ok"] and "TypeError" in answers["ok"][1]["error"]
    assert [c["error"] for c in answers["slow"]] == [f"Timeout: over {harness.CASE_SECONDS} s"] * 2
    assert all(c["error"].startswith("SyntaxError") for c in answers["broken"])


def test_reference_uses_the_package_plain(tmp_path):
    (tmp_path / "toypkg").mkdir()
    (tmp_path / "toypkg/__init__.py").write_text(
        "class Box:\n    def __init__(self, v):\n        self.v = v\n\n"
        "def _plain(x):\n    return [x.v, x.v] if isinstance(x, Box) else x\n")
    job = {"id": "p", "code": "import toypkg\ndef f(v):\n    return toypkg.Box(v)\n", "entry": "f",
           "inputs": ["v=2j"], "side": "package", "package": "toypkg"}
    [answer] = _lines(harness.run("reference", tmp_path, json.dumps(job) + "\n"))
    assert answer["cases"] == [{"ok": True, "value": [{"__complex__": [0.0, 2.0]}] * 2}]


def test_examples_share_a_namespace_and_catch_failures(tmp_path):
    job = {"id": "e", "stmts": [["x = 3", ["x"]], ["x * 2", []], ["print('hi'); 1 / 0", []], ["math.pi", []]]}
    [answer] = _lines(harness.run("examples", tmp_path, json.dumps(job) + "\n", "1.5", "import math"))
    statuses = [r[0] for r in answer["results"]]
    assert statuses[:2] == ["ok", "ok"] and statuses[2].startswith("error ZeroDivisionError")
    assert answer["results"][0][2] == ["3"] and answer["results"][1][1] == "6"
    assert answer["results"][3][1] == repr(math.pi)


def test_examples_exit_3_when_the_prelude_fails(tmp_path):
    proc = harness.run("examples", tmp_path, "", "1.5", "import no_such_package_here")
    assert proc.returncode == 3 and "cannot import the package" in proc.stderr


def test_surface_and_probe_on_a_generated_package(gen0):
    mapping = gen0.names.mapping()
    top, linalg, attrs, errors = json.loads(harness.run("surface", gen0.root, json.dumps(mapping)).stdout)
    assert gen0.names.linalg in top and linalg and "tolist" not in attrs
    assert set(errors) <= {"LinAlgError", "AxisError"}
    probe = json.loads(harness.run("probe", gen0.root, json.dumps(mapping)).stdout)
    assert probe["top"] == top and probe["linalg"] == linalg and probe["array_attrs"] == attrs
    assert probe["problems"] == [] and any(label == "truth value" for label, *_ in probe["errors"])
    assert any(label == "str float matrix" for label, _ in probe["reprs"])


def test_unknown_command_is_an_error(tmp_path):
    proc = harness.run("nope", tmp_path, "")
    assert proc.returncode == 2 and "unknown command" in proc.stderr


def test_the_case_limit_counts_cpu_time_so_a_busy_machine_keeps_what_an_idle_one_keeps():
    """A statement is stopped after CASE_SECONDS of its own CPU time, not of wall-clock time: waiting (as it
    does when other processes hold the cores) is not counted until WALL_FACTOR times the limit."""
    import time

    with harness.time_limit(0.2):
        time.sleep(0.5)  # 0.5 s of wall-clock time, almost no CPU: kept
    with pytest.raises(harness.Timeout), harness.time_limit(0.2):
        while True:  # CPU time: stopped
            pass
    with pytest.raises(harness.Timeout), harness.time_limit(0.02):
        time.sleep(0.5)  # past 15 times the limit in wall-clock time: stopped

"""audit_instance: 0 findings on a clean build; each kind of planted leak is found at its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sebench.obfuscate.audit import Finding, LeakChecker, Surface, audit_instance

MAPPING = {"package": "zwc", "linalg": "rfx", "array_type": "Qoravet", "constructor": "zwc.yitaf",
           "functions": {"numpy.mean": "zwc.kocito", "numpy.array": "zwc.yitaf", "numpy.linalg.inv": "zwc.rfx.quvohe"}}
CHECKER = LeakChecker(Surface.from_mapping(MAPPING, array_attrs={"shape"}))


def kinds(hits) -> list[str]:
    return [k for _, k, _ in hits]


# ---- the rules on their own ------------------------------------------------------------------------

def test_prose_words_are_fine_but_backticked_names_are_not():
    assert kinds(CHECKER.prose("The mean and the sum of the values.")) == []
    assert kinds(CHECKER.prose("Like `mean` but weighted.")) == ["numpy-backtick"]
    assert kinds(CHECKER.prose("Only where `where` is set.", frozenset({"where"}))) == []


def test_numpy_words_and_prefixes():
    assert kinds(CHECKER.prose("Built on NumPy.")) == ["numpy-word"]
    assert kinds(CHECKER.prose("Returns an ndarray.")) == ["ndarray"]
    assert kinds(CHECKER.prose("Call np.mean(x).")) == ["np-prefix"]


def test_public_names_must_exist():
    assert kinds(CHECKER.prose("Use zwc.kocito or zwc.rfx.quvohe.")) == []
    assert kinds(CHECKER.prose("Use zwc.nope.")) == ["missing-name"]
    assert kinds(CHECKER.prose("Use zwc.rfx.nope.")) == ["missing-name"]
    assert kinds(CHECKER.prose("Use zwc._plain.")) == ["private-name"]


def test_code_identifiers():
    assert kinds(CHECKER.code("y = x.mean()")) == ["numpy-identifier"]
    assert kinds(CHECKER.code("y = mean(x)")) == ["numpy-identifier"]
    assert kinds(CHECKER.code("import math\ny = math.sqrt(sum(x)) + abs(x[0])")) == []
    assert kinds(CHECKER.code("mean = 3\ny = mean + 1\nz = x.shape\nitems = [1]\nitems.sort()")) == []


# ---- planted leaks in a real build -----------------------------------------------------------------

def test_clean_build_has_no_findings(built_instance, monkeypatch):
    # given relative to the working directory, as `sebench build --out DIR` passes it
    monkeypatch.chdir(built_instance.parent)
    assert [str(f) for f in audit_instance(Path(built_instance.name))] == []


TASK = {"task_id": "t-planted", "split": "single_test", "kind": "single", "query": "Sum the readings.",
        "function_name": "def solve(x):", "entry_point": "solve", "example": "solve(x=[1, 2])  # -> 3",
        "test_cases": [{"input": "x=[1, 2]", "output": "3"}], "right_exe_result": "3",
        "selected_functions": [], "is_valid": True, "reference_solution": "def solve(x):\n    return x\n",
        "expected": [3]}


@pytest.fixture(scope="module")
def planted(built_instance, tmp_path_factory):
    """A copy of the build with one leak of each kind; returns (findings, where each was planted)."""
    root = tmp_path_factory.mktemp("planted") / "inst"
    shutil.copytree(built_instance, root)
    mapping = json.loads((root / "private/mapping.json").read_text())
    pkg = mapping["package"]
    where = {}

    api = root / "datasets/train/api_doc.jsonl"
    rows = [json.loads(line) for line in api.read_text().splitlines()]
    rows[4]["doc"] += "\nThis is like np.mean.\n"
    rows[6]["doc"] += "\nCompare with `mean`.\n"
    api.write_text("".join(json.dumps(r) + "\n" for r in rows))
    where["np-prefix"] = ("datasets/train/api_doc.jsonl", 5)
    where["numpy-backtick"] = ("datasets/train/api_doc.jsonl", 7)

    tasks = root / "datasets/test/single_test.jsonl"
    tasks.parent.mkdir(parents=True, exist_ok=True)
    lines = tasks.read_text().splitlines() if tasks.exists() else []
    planted_tasks = [
        ("ndarray", {"query": "Return the ndarray of readings."}),
        ("missing-name", {"reference_solution": f"import {pkg}\ndef solve(x):\n    return {pkg}.nope(x)\n"}),
        ("numpy-identifier", {"reference_solution": "def solve(x):\n    return x.sum()\n"}),
        ("private-name", {"query": f"You may use {pkg}._plain here."}),
        ("numpy-word", {"example": "solve(x=[1, 2])  # numpy gives 3"}),
    ]
    for kind, change in planted_tasks:
        lines.append(json.dumps({**TASK, **change}))
        where[kind] = ("datasets/test/single_test.jsonl", len(lines))
    for kind, line in (("unreadable", "[" * 100_000), ("unreadable-number", '{"n": ' + "9" * 5000 + "}")):
        lines.append(line)  # a line too deep or with a number too long to read: reported, the audit goes on
        where[kind] = ("datasets/test/single_test.jsonl", len(lines))
    tasks.write_text("\n".join(lines) + "\n")

    public_mean = mapping["functions"]["numpy.mean"].rsplit(".", 1)[1]
    extra = root / "package" / pkg / "_extra.py"
    extra.write_text(f'"""Helpers."""\n\n_table = {{"mean": "{public_mean}"}}\n')
    where["readable-pair"] = (f"package/{pkg}/_extra.py", 3)

    init = root / "package" / pkg / "__init__.py"
    init.write_text(init.read_text() + f'\nglobals()["{public_mean}"].__doc__ = "Wraps the NumPy function."\n')
    where["docstring"] = (f"<docstring>/{mapping['functions']['numpy.mean']}", 1)
    return audit_instance(root), where


@pytest.mark.parametrize("kind", ["np-prefix", "numpy-backtick", "ndarray", "missing-name", "numpy-identifier",
                                  "private-name", "numpy-word", "readable-pair", "docstring", "unreadable",
                                  "unreadable-number"])
def test_planted_leak_is_found_at_its_file_and_line(planted, kind):
    findings, where = planted
    path, line = where[kind]
    kind = {"docstring": "numpy-word", "unreadable-number": "unreadable"}.get(kind, kind)  # a docstring naming
    # NumPy is found at run time; a line the reader refuses is unreadable, whatever the reason
    assert any(f.path == path and f.line == line and f.kind == kind for f in findings), (
        f"no {kind} at {path}:{line}; found:\n" + "\n".join(map(str, findings)))


def test_nothing_but_the_planted_leaks_is_found(planted):
    findings, where = planted
    assert {(f.path, f.line) for f in findings} <= set(where.values())


def test_finding_prints_as_path_line_kind_text():
    assert str(Finding("a/b.jsonl", 3, "ndarray", "query: ndarray")) == "a/b.jsonl:3: ndarray: query: ndarray"

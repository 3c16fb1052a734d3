"""Fixtures for the rollout tests: a small hand-written instance directory, and a tiny random model.

The instance is written by hand (manifest, api docs, task splits) so that these tests do not depend on
the build; the package itself is not needed to make prompts or collect answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sebench.records import ApiDoc, Task, write_records

PKG = "zwc"

DOCS = [
    ApiDoc("zwc.kocito", "kocito(a, axis=None)", "Compute the arithmetic mean along the given axis.\n\nParameters\n----------\na : array\naxis : int, optional\n\nReturns\n-------\nThe mean of the elements."),
    ApiDoc("zwc.yitaf", "yitaf(object)", "Create an array from a nested list.\n\nReturns\n-------\nA new array."),
    ApiDoc("zwc.bemaru", "bemaru(a, axis=None)", "Sum of array elements over a given axis.\n\nExamples\n--------\n>>> zwc.bemaru(zwc.yitaf([1, 2]))\n3"),
    ApiDoc("zwc.rfx.quvohe", "quvohe(a)", "Compute the inverse of a square matrix.\n\nRaises an error for a singular matrix."),
    ApiDoc("zwc.talup", "talup(a)", "Sort the elements of an array in ascending order and return a sorted copy."),
    ApiDoc("zwc.morif", "morif(a, b)", "Matrix product of two arrays (dot product for vectors)."),
]


def make_task(i: int, split: str = "single_test", functions: tuple[str, ...] = ("zwc.kocito",)) -> Task:
    return Task(
        task_id=f"{split}/{i}",
        split=split,
        kind="single" if len(functions) == 1 else "multiple",
        query=f"Problem {i}: given readings, return their average value.",
        function_name="def solve(readings):",
        entry_point="solve",
        example="solve(readings=[1.0, 3.0]) -> 2.0",
        test_cases=[{"input": "readings=[1.0, 3.0]", "output": "2.0"}],
        right_exe_result="2.0",
        selected_functions=list(functions),
        reference_solution="import zwc\ndef solve(readings):\n    return zwc.kocito(zwc.yitaf(readings))\n",
        expected=[2.0],
    )


def write_instance(root: Path, n_tasks: int = 6, docs: list[ApiDoc] = DOCS) -> Path:
    (root / "datasets/train").mkdir(parents=True, exist_ok=True)
    (root / "datasets/test").mkdir(parents=True, exist_ok=True)
    write_records(root / "datasets/train/api_doc.jsonl", docs)
    single = [make_task(i, functions=(("zwc.kocito",), ("zwc.bemaru",), ("zwc.rfx.quvohe",))[i % 3]) for i in range(n_tasks)]
    multiple = [make_task(i, "multiple_test", ("zwc.yitaf", "zwc.talup")) for i in range(n_tasks)]
    write_records(root / "datasets/test/single_test.jsonl", single)
    write_records(root / "datasets/test/multiple_test.jsonl", multiple)
    write_records(root / "datasets/train/train.jsonl", [make_task(i, "train") for i in range(n_tasks)])
    manifest = {"package": PKG, "linalg": "rfx", "seed": 0, "counts": {"functions": len(docs)}, "hashes": {}}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


@pytest.fixture
def docs() -> list[ApiDoc]:
    return list(DOCS)


@pytest.fixture
def instance_dir(tmp_path) -> Path:
    return write_instance(tmp_path / "instance")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("models") / "tiny", seed=0)


@pytest.fixture
def many_tasks_instance(tmp_path) -> Path:
    return write_instance(tmp_path / "instance40", n_tasks=40)

"""Fixtures of the export tests: an instance in the release's format with a train split, and the stand-in original
repository of original_fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from original_fixtures import ROW, SHARED_API_DOC, original_repo, released_instance

from sebench.cli import main

# running totals (the release's dorujot is numpy.cumsum), printed as the original's package prints them
CASES = [("[3, 1]", "[3 4]"), ("[1, 2, 3]", "[1 3 6]"), ("[5]", "[5]"), ("[2, 2]", "[2 4]"), ("[0, 7]", "[0 7]"),
         ("[4, 4, 4]", "[ 4  8 12]")]
# the last task's first input as the release often writes it: the original's reward pastes it as it is
NP_INPUT = "np.array([4, 4, 4])"


def train_rows() -> list[dict]:
    """Tasks of growing prompt length (the filler), each with its own tests."""
    rows = []
    for i, (arg, printed) in enumerate(CASES):
        other = CASES[(i + 1) % len(CASES)]
        arg = NP_INPUT if i == len(CASES) - 1 else arg
        cases = [{"input": f"sales={arg}", "output": printed}, {"input": f"sales={other[0]}", "output": other[1]}]
        rows.append(dict(ROW, query=f"Return the running total of `sales` (shop {i}).{' Be exact.' * (40 * i)}",
                         test_cases=cases, example=cases[0], right_exe_result=f"{printed}#{other[1]}"))
    return rows


def verl_setup(base: Path) -> tuple[Path, Path]:
    """(stand-in original repository, instance with the train rows above and ROW as single_test)."""
    repo = original_repo(base)
    inst = released_instance(base)
    path = base / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in train_rows()))
    assert main(["tasks", "import", "--official", str(path), "--data", str(inst), "--split", "train"]) == 0
    return repo, inst


@pytest.fixture(scope="session")
def verl_original(tmp_path_factory) -> tuple[Path, Path]:
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    return verl_setup(tmp_path_factory.mktemp("verl"))

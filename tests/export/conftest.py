"""Fixtures of the export tests: an instance in the release's format with a train split, and a stand-in original
repository whose evaluation templates have the "### Test Cases" / "### Function to Complete" sections that the
original's SFT conversion cuts out (our own text, the original's constant names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from original_fixtures import ROW, SHARED_API_DOC, original_repo, released_instance

from sebench.cli import main

# templates with the original's section headings (its convert_jsonl_to_parquet.py cuts the closed prompt out of them)
SECTIONED_TEMPLATES = '''query_only_prompt = """Closed.
### Problem
${question}
### Test Cases
${example_test_cases}
### Function to Complete
${function}
### Rules
answer in one block"""
doc_query_cot_prompt = """Open.
### Docs
${ref_code}
### Problem
${question}
### Test Cases
${example_test_cases}
### Function to Complete
${function}
### Rules
answer in one block"""
'''

# running totals (the release's dorujot is numpy.cumsum), printed as the original's package prints them
CASES = [("np.array([3, 1])", "[3 4]"), ("[1, 2, 3]", "[1 3 6]"), ("[5]", "[5]"), ("[2, 2]", "[2 4]"),
         ("np.array([0, 7])", "[0 7]"), ("[4, 4, 4]", "[ 4  8 12]")]


def train_rows() -> list[dict]:
    """Tasks of growing prompt length (the filler), each with its own tests."""
    rows = []
    for i, (arg, printed) in enumerate(CASES):
        other = CASES[(i + 1) % len(CASES)]
        cases = [{"input": f"sales={arg}", "output": printed}, {"input": f"sales={other[0]}", "output": other[1]}]
        rows.append(dict(ROW, query=f"Return the running total of `sales` (shop {i}).{' Be exact.' * (40 * i)}",
                         test_cases=cases, example=cases[0], right_exe_result=f"{printed}#{other[1]}"))
    return rows


def verl_setup(base: Path) -> tuple[Path, Path]:
    """(stand-in original repository, instance with the train rows above and ROW as single_test)."""
    repo = original_repo(base)
    (repo / "src/utils/prompt_template.py").write_text(SECTIONED_TEMPLATES)
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

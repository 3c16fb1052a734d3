"""`sebench tasks import --official` on files in the released format: rows as they are, bad rows skipped."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from released import (
    SHARED_API_DOC,
    SHARED_SAMPLE,
    norm_row,
    released_row,
    write_api_doc,
    write_jsonl,
)

from sebench.cli import main
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import read_records
from sebench.tasks.official import import_official
from sebench.tasks.release import BadRow, kept_path, released_rows


@pytest.fixture
def instance(built_instance, tmp_path):
    root = tmp_path / "inst"
    shutil.copytree(built_instance, root)
    return Instance(root)


def test_released_rows_import_as_they_are(instance, tmp_path):
    functions = instance.mapping()["functions"]
    pkg = instance.mapping()["package"]
    public_mean = functions["numpy.mean"]
    rows = [released_row(), norm_row(), released_row(selected_functions=[public_mean], extra_field={"x": 1}),
            released_row(example="running_total(sales=[1])  # [1]")]
    path = write_jsonl(tmp_path / "single_test.jsonl", rows)
    assert import_official([path], instance.root, overwrite=True) == {"single_test": 4}
    tasks = instance.tasks("single_test")
    first = tasks[0]
    assert first.selected_functions == [functions["numpy.cumsum"]]
    assert first.example == ">>> running_total(sales=[3, 1, 4])\n[3, 4, 8]"
    assert first.expected == [[3, 4, 8], [1, 3, 6, 10], [2.5]] and first.is_valid
    assert first.reference_solution == ""  # the NumPy reference stays aside
    assert tasks[1].selected_functions == [functions["numpy.linalg.norm"]]
    assert tasks[1].expected == [5.0, 3.0]  # right_exe_result is the ground truth, not test_cases' "3"
    assert tasks[2].selected_functions == [public_mean] and public_mean.startswith(pkg + ".")
    assert tasks[3].example == "running_total(sales=[1])  # [1]"
    kept = released_rows(instance.root, "single_test")
    assert list(kept) == [t.task_id for t in tasks]
    assert kept[tasks[2].task_id] == rows[2]  # every released field, unknown ones included, unchanged
    assert kept[tasks[0].task_id]["major_vote_response_dict"] == rows[0]["major_vote_response_dict"]
    assert not kept_path(instance, "single_test", rejected=True).exists()
    hashes = instance.manifest()["hashes"]
    for path in (instance.split_path("single_test"), kept_path(instance, "single_test")):
        assert hashes[path.relative_to(instance.root).as_posix()] == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("bad, field", [
    ({"example": 5}, "example"),
    ({"example": {"output": "1"}}, "example.input"),
    ({"selected_functions": ["no_such_function"]}, "selected_functions"),
    ({"selected_functions": []}, "selected_functions"),
    ({"test_cases": "not json"}, "test_cases"),
    ({"test_cases": "[" * 100_000}, "test_cases"),
    ({"selected_functions": "[" * 100_000}, "selected_functions"),
    ({"selected_functions": "[" + "9" * 5000 + "]"}, "selected_functions"),
    ({"test_cases": [{"output": "1"}]}, "test_cases[0]"),
    ({"right_exe_result": "1#2"}, "right_exe_result"),
    ({"function_name": "running_total"}, "function_name"),
    ({"is_valid": "maybe"}, "is_valid"),
    ({"query": None}, "query"),
])
def test_a_bad_row_is_one_line_and_the_good_rows_are_imported(instance, tmp_path, caplog, bad, field):
    path = write_jsonl(tmp_path / "train.jsonl", [released_row(), released_row(**bad), norm_row()])
    with caplog.at_level(logging.WARNING, logger="sebench"):
        assert import_official([path], instance.root, overwrite=True) == {"train": 2}
    lines = [r.getMessage() for r in caplog.records if "row not imported" in r.getMessage()]
    assert len(lines) == 1 and lines[0].startswith(f"{path}:2: field '{field}'")
    assert "\n" not in lines[0]
    assert [t.entry_point for t in instance.tasks("train")] == ["running_total", "length"]
    rejected = read_records(kept_path(instance, "train", rejected=True), BadRow)
    assert [r.source for r in rejected] == [f"{path}:2"] and json.loads(rejected[0].text)["1func_query_id"] == 7


def test_lines_that_are_not_rows_are_skipped_too(instance, tmp_path, caplog):
    path = write_jsonl(tmp_path / "multiple_test.jsonl", [released_row(), "{not json", "[1, 2]", norm_row()])
    with caplog.at_level(logging.WARNING, logger="sebench"):
        assert import_official([path], instance.root, overwrite=True) == {"multiple_test": 2}
    messages = " | ".join(r.getMessage() for r in caplog.records)
    assert f"{path}:2: not valid JSON" in messages and f"{path}:3: expected a JSON object" in messages
    rejected = read_records(kept_path(instance, "multiple_test", rejected=True), BadRow)
    assert [r.text for r in rejected] == ["{not json", "[1, 2]"]


def test_rows_nested_too_deep_or_with_endless_numbers_are_skipped_as_bad_rows(instance, tmp_path, caplog):
    deep, endless = "[" * 100_000 + "]" * 100_000, '{"n": ' + "9" * 5000 + "}"
    path = write_jsonl(tmp_path / "multiple_test.jsonl", [released_row(), deep, endless, norm_row()])
    with caplog.at_level(logging.WARNING, logger="sebench"):
        assert import_official([path], instance.root, overwrite=True) == {"multiple_test": 2}
    messages = " | ".join(r.getMessage() for r in caplog.records)
    assert f"{path}:2: JSON nested too deep" in messages and f"{path}:3: not valid JSON" in messages
    rejected = read_records(kept_path(instance, "multiple_test", rejected=True), BadRow)
    assert [r.text for r in rejected] == [deep, endless]


def test_no_good_row_fails_in_one_line_and_writes_nothing(instance, tmp_path, capsys):
    before = instance.split_path("single_test").read_bytes()
    row = released_row()
    del row["example"]
    path = write_jsonl(tmp_path / "single_test.jsonl", [row])
    assert main(["tasks", "import", "--official", str(path), "--data", str(instance.root)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1: field 'example': missing" in err and "Traceback" not in err
    assert instance.split_path("single_test").read_bytes() == before


def test_a_release_folder_with_its_api_doc(instance, tmp_path, capsys):
    release = tmp_path / "datasets"
    write_api_doc(release / "train/api_doc.jsonl", instance.mapping())
    write_jsonl(release / "train/train.jsonl", [released_row(), norm_row()])
    write_jsonl(release / "test/single_test.jsonl", [norm_row()])
    write_jsonl(release / "test/multiple_test.jsonl",
                [released_row(selected_functions=["cumsum", "linalg.norm"])])
    assert main(["tasks", "import", "--official", str(tmp_path), "--data", str(instance.root), "--overwrite"]) == 0
    assert capsys.readouterr().out.strip() == "multiple_test: 1 tasks, single_test: 1 tasks, train: 2 tasks"
    assert instance.tasks("multiple_test")[0].kind == "multiple"
    assert instance.manifest()["counts"]["train"] == 2


def test_an_api_doc_of_other_names_stops_the_import(instance, tmp_path):
    mapping = json.loads(json.dumps(instance.mapping()))
    mapping["functions"]["numpy.cumsum"] = mapping["package"] + ".zzqother"
    doc = write_api_doc(tmp_path / "api_doc.jsonl", mapping)
    before = instance.split_path("train").read_bytes()
    with pytest.raises(SebenchError, match=r"api_doc\.jsonl:1: field 'func_mapping': np\.cumsum -> .*zzqother, but "
                                           r"the instance .* has .*; build it with `sebench build --mapping-from"):
        import_official([doc, write_jsonl(tmp_path / "train.jsonl", [released_row()])], instance.root)
    assert instance.split_path("train").read_bytes() == before


def test_an_empty_folder_is_one_line(instance, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SebenchError, match="no released file here"):
        import_official([tmp_path / "empty"], instance.root, overwrite=True)


# ---- the release itself: the shared sample rows and the fetched original repository --------------


@pytest.fixture(scope="module")
def original_instance(tmp_path_factory):
    from sebench.builder.run import build_instance

    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference is not beside the repository")
    return Instance(build_instance(tmp_path_factory.mktemp("orig") / "inst", 0, mapping_from=SHARED_API_DOC,
                                   docs=False, audit=False))


def _released_names() -> dict[str, set[str]]:
    """{NumPy name: its new names} read from the release's api_doc.jsonl (not through mapping.json)."""
    names: dict[str, set[str]] = {}
    for line in SHARED_API_DOC.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        names.setdefault(row["original_name"], set()).add(row["curr_name"])
    return names


@pytest.mark.skipif(not SHARED_SAMPLE.is_file(), reason="shared/reference is not beside the repository")
def test_the_twelve_released_rows(original_instance, caplog):
    rows = [json.loads(line) for line in SHARED_SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    with caplog.at_level(logging.WARNING, logger="sebench"):
        counts = import_official([SHARED_SAMPLE, SHARED_API_DOC], original_instance.root, split="single_test", overwrite=True)
    assert counts == {"single_test": len(rows)} and not caplog.records
    released = _released_names()
    for row, task in zip(rows, original_instance.tasks("single_test")):
        assert task.is_valid and task.kind == "single"
        [public] = task.selected_functions
        assert public.startswith("zwc.") and public.rsplit(".", 1)[1] in released[row["selected_functions"][0]]
        assert task.example.startswith(f">>> {task.entry_point}({row['example']['input']})")
        assert task.right_exe_result == row["right_exe_result"]
        assert not any("__printed__" in json.dumps(e) for e in task.expected)
        assert len(task.expected) == len(row["test_cases"])
    assert released_rows(original_instance.root, "single_test")["single_test-0000"] == rows[0]


def _original_single_test(tmp_path: Path) -> Path | None:
    """single_test.jsonl of the fetched original repository (SEBENCH_ORIGINAL_REPO, a checkout or a bare
    git directory; else the mirror at /work/.mirror/thunlp+SE-Bench/repo), or None when absent."""
    candidates = [os.environ.get("SEBENCH_ORIGINAL_REPO", ""), "/work/.mirror/thunlp+SE-Bench/repo"]
    for repo in filter(None, candidates):
        repo = Path(repo)
        checked_out = repo / "datasets/test/single_test.jsonl"
        if checked_out.is_file():
            return checked_out
        if not repo.is_dir() or not shutil.which("git"):
            continue
        rel = "datasets/test/single_test.jsonl"
        log = subprocess.run(["git", "--git-dir", str(repo), "log", "--all", "--format=%H", "--", rel],
                             capture_output=True, text=True, check=False)
        for commit in log.stdout.split():
            shown = subprocess.run(["git", "--git-dir", str(repo), "show", f"{commit}:{rel}"], capture_output=True, check=False)
            if shown.returncode == 0 and shown.stdout.strip():
                out = tmp_path / "single_test.jsonl"
                out.write_bytes(shown.stdout)
                return out
    return None


def test_the_released_single_test_of_the_original_repository(original_instance, tmp_path, caplog):
    path = _original_single_test(tmp_path)
    if path is None:
        pytest.skip("the original repository is not fetched (set SEBENCH_ORIGINAL_REPO)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    with caplog.at_level(logging.WARNING, logger="sebench"):
        counts = import_official([path], original_instance.root, overwrite=True)
    assert counts == {"single_test": len(rows)} and not caplog.records
    tasks = original_instance.tasks("single_test")
    released = _released_names()
    for row, task in zip(rows, tasks):
        names = row["selected_functions"]
        assert [p.rsplit(".", 1)[1] in released[n] for p, n in zip(task.selected_functions, names)] == [True] * len(names)
        assert task.is_valid == row["is_valid"]
    printed = sum("__printed__" in json.dumps(e) for t in tasks for e in t.expected)
    assert printed <= 0.01 * sum(len(t.expected) for t in tasks)  # dicts only; the rest is parsed to data


def test_a_release_folder_of_links_imports_as_its_files(instance, tmp_path, capsys):
    """A hub cache's snapshot folder holds links to its blobs: the user's own copy of a release, read as named."""
    blobs, snapshot = tmp_path / "blobs", tmp_path / "snapshot"
    write_api_doc(blobs / "api_doc", instance.mapping())
    write_jsonl(blobs / "single", [norm_row()])
    (snapshot / "train").mkdir(parents=True)
    (snapshot / "test").mkdir()
    (snapshot / "train/api_doc.jsonl").symlink_to(blobs / "api_doc")
    (snapshot / "test/single_test.jsonl").symlink_to(blobs / "single")
    assert main(["tasks", "import", "--official", str(snapshot), "--data", str(instance.root), "--overwrite"]) == 0
    assert capsys.readouterr().out.strip() == "single_test: 1 tasks"

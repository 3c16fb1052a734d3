"""Import of the original benchmark's rows and export in its format / as parquet."""

from __future__ import annotations

import json
import shutil

import pytest
from other_library import REFERENCES, write_other_instance

from sebench.cli import main
from sebench.instance import Instance
from sebench.tasks.official import export_tasks, import_official, parse_printed


def _row(**over):
    row = {
        "query": "Given daily temperatures, return the mean temperature of each week (rows).",
        "function_name": "def weekly_mean(temps):",
        "example": "weekly_mean(temps=np.array([[1, 2], [3, 5]]))  # [1.5 4. ]",
        "test_cases": [
            {"input": "temps=np.array([[1, 2], [3, 5]])", "output": "[1.5 4. ]"},
            {"input": "temps=np.array([[0.5, 1.5, np.nan]])", "output": "[nan]"},
            {"input": "temps=[[2, 4, 6]]", "output": "array([4.])"},
        ],
        "right_exe_result": "[1.5 4. ]#[nan]#[4.]",
        "selected_functions": ["mean"],
        "is_valid": True,
    }
    row.update(over)
    return row


@pytest.fixture
def instance(built_instance, tmp_path):
    root = tmp_path / "inst"
    shutil.copytree(built_instance, root)
    return Instance(root)


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_import_converts_names_inputs_and_outputs(instance, tmp_path):
    mapping = instance.mapping()
    rows = [_row(), _row(selected_functions="['mean', 'linalg.norm']", is_valid="False"),
            _row(selected_functions="mean, std")]
    counts = import_official([_write(tmp_path / "single_test.jsonl", rows)], instance.root, overwrite=True)
    assert counts == {"single_test": 3}
    tasks = instance.tasks("single_test")
    first = tasks[0]
    assert first.selected_functions == [mapping["functions"]["numpy.mean"]]
    assert first.test_cases[0]["input"] == f"temps={mapping['constructor']}([[1, 2], [3, 5]])"
    assert "float('nan')" in first.test_cases[1]["input"]
    assert first.expected[0] == [1.5, 4.0] and first.expected[2] == [4.0]
    assert first.entry_point == "weekly_mean" and first.is_valid
    assert tasks[1].selected_functions == [mapping["functions"]["numpy.mean"], mapping["functions"]["numpy.linalg.norm"]]
    assert tasks[1].is_valid is False and tasks[1].kind == "multiple"
    assert len(tasks[2].selected_functions) == 2
    assert instance.manifest()["counts"]["single_test"] == 3


def test_imported_task_is_judged(instance, tmp_path):
    from sebench.judge import Judge

    import_official([_write(tmp_path / "single_test.jsonl", [_row()])], instance.root, overwrite=True)
    task = instance.tasks("single_test")[0]
    pkg, mean = instance.mapping()["package"], instance.mapping()["functions"]["numpy.mean"]
    answer = f"```python\nimport {pkg}\n\ndef weekly_mean(temps):\n    return {mean}(temps, axis=1)\n```"
    with Judge(instance, workers=1) as judge:
        assert judge.judge(task, answer).verdict == "correct"
        assert judge.judge(task, answer.replace("axis=1", "axis=None")).verdict == "wrong_answer"


def test_export_official_roundtrip(instance, tmp_path):
    before = instance.tasks("train")
    assert main(["tasks", "export", "--data", str(instance.root), "--format", "official",
                 "--out", str(tmp_path / "out")]) == 0
    lines = (tmp_path / "out/train.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    assert set(row) == {"query", "function_name", "example", "test_cases", "right_exe_result",
                        "selected_functions", "is_valid"}
    assert all("." not in f for f in row["selected_functions"])  # NumPy names, as in the original
    import_official([tmp_path / "out/train.jsonl"], instance.root, overwrite=True)
    after = instance.tasks("train")
    assert [t.query for t in after] == [t.query for t in before]
    assert [t.test_cases for t in after] == [t.test_cases for t in before]
    assert [t.selected_functions for t in after] == [t.selected_functions for t in before]


def test_export_parquet(instance, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    paths = export_tasks(instance.root, "parquet", tmp_path / "pq")
    table = pq.read_table(paths[0])
    assert table.num_rows == len(instance.tasks("train"))
    first = table.to_pylist()[0]
    task = instance.tasks("train")[0]
    assert first["query"] == task.query and json.loads(first["expected"]) == json.loads(json.dumps(task.expected))
    assert first["test_cases"] == task.test_cases


@pytest.mark.parametrize("text, value", [
    ("[1. 2. 3.]", [1.0, 2.0, 3.0]),
    ("[[1 2]\n [3 4]]", [[1, 2], [3, 4]]),
    ("[ True False]", [True, False]),
    ("(array([1, 2]), array([3.]))", [[1, 2], [3.0]]),
    ("np.float64(2.5)", 2.5),
    ("[1.+2.j 3.-1.j]", [{"__complex__": [1.0, 2.0]}, {"__complex__": [3.0, -1.0]}]),
    ("{'a': 1}", {"__printed__": "{'a': 1}"}),
    ("some words", {"__printed__": "some words"}),
])
def test_parse_printed(text, value):
    assert parse_printed(text) == value


def test_trailing_separator_of_the_original_harness(instance, tmp_path):
    # the original harness prints "#" after every case, so the joined text may end with one
    row = _row(right_exe_result="[1.5 4. ]\n#\n[nan]\n#\n[4.]\n#\n")
    import_official([_write(tmp_path / "single_test.jsonl", [row])], instance.root, overwrite=True)
    task = instance.tasks("single_test")[0]
    assert task.expected[0] == [1.5, 4.0] and task.expected[2] == [4.0]


def test_an_output_holding_the_separator_is_read_from_its_test_case(instance, tmp_path):
    cases = [{"input": "temps=[[1, 2]]", "output": "'#1'"}, {"input": "temps=[[3, 5]]", "output": "'#2#'"}]
    row = _row(test_cases=cases, right_exe_result="'#1'#'#2#'")
    import_official([_write(tmp_path / "single_test.jsonl", [row])], instance.root, overwrite=True)
    task = instance.tasks("single_test")[0]
    assert [c["output"] for c in task.test_cases] == ["'#1'", "'#2#'"] and task.expected == ["#1", "#2#"]


def test_export_official_of_another_library_keeps_its_plain_inputs(tmp_path):
    root = write_other_instance(tmp_path / "qel")
    (path,) = export_tasks(root, "official", tmp_path / "out")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["selected_functions"] for r in rows] == [["chunked"], ["first"], ["windowed", "first"], ["peekable"]]
    assert [[c["input"] for c in r["test_cases"]] for r in rows] == [inputs for _, inputs, _, _ in REFERENCES.values()]

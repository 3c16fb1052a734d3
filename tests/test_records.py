import json

import pytest

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.records import (
    RecordAppender,
    Rollout,
    Task,
    Verdict,
    read_records,
    read_verdicts,
    repair_tail,
    write_records,
)


def _task(i=0):
    return Task(
        task_id=f"t{i}", split="train", kind="single", query="q", function_name="def solve(x):",
        entry_point="solve", example="solve(x=[1])  # -> 1", test_cases=[{"input": "x=[1]", "output": "1"}],
        right_exe_result="1", selected_functions=["pkg.abc"], reference_solution="...", expected=[1],
    )


def test_roundtrip(tmp_path):
    path = tmp_path / "t.jsonl"
    write_records(path, [_task(0), _task(1)])
    assert read_records(path, Task) == [_task(0), _task(1)]


def test_bad_field_names_file_line_and_field(tmp_path):
    path = tmp_path / "t.jsonl"
    rows = [json.loads(json.dumps(_task(0).__dict__)), dict(_task(1).__dict__, test_cases="oops")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(SebenchError, match=r"t\.jsonl:2: field 'test_cases': expected list, got str"):
        read_records(path, Task)


def test_missing_field_and_bad_json(tmp_path):
    path = tmp_path / "v.jsonl"
    path.write_text('{"task_id": "a", "sample_idx": 0}\n')
    with pytest.raises(SebenchError, match=r"v\.jsonl:1: field 'verdict': missing"):
        read_records(path, Verdict)
    path.write_text('\n{"task_id": \n')
    with pytest.raises(SebenchError, match=r"v\.jsonl:2: not valid JSON"):
        read_records(path, Verdict)


@pytest.mark.parametrize("text, why", [
    ('{"a": \n  [1,,2]}', r"not valid JSON \(Expecting value at line 2, column 6\)"),
    ('{"a": 1', r"not valid JSON \(Expecting ',' delimiter at column 8\)"),
    (b'{"a": "\xff"}', r"not UTF-8 text \(byte 7\)"),
    ("[" * 100_000, r"JSON nested too deep to read \(refused\)"),
    ("9" * 5000, r"not valid JSON \(Exceeds the limit"),
])
def test_json_that_cannot_be_read_is_one_line_naming_where_and_why(text, why):
    with pytest.raises(SebenchError, match=rf"^f\.json: {why}") as caught:
        parse_json(text, "f.json")
    assert "\n" not in str(caught.value)


def test_bool_is_not_an_int(tmp_path):
    path = tmp_path / "v.jsonl"
    row = {"task_id": "a", "sample_idx": True, "verdict": "correct", "tests_passed": 1, "tests_total": 1}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(SebenchError, match="sample_idx"):
        read_records(path, Verdict)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "1e999"])
def test_a_float_field_that_is_not_finite_is_refused(tmp_path, number):
    path = tmp_path / "r.jsonl"
    row = {"task_id": "a", "sample_idx": 0, "mode": "closed", "model": "m", "prompt": "p", "response": "r",
           "code": None, "finish_reason": "stop"}
    path.write_text(json.dumps(row)[:-1] + f', "seconds": {number}}}\n')
    with pytest.raises(SebenchError, match=r"r\.jsonl:1: field 'seconds': not a finite number"):
        read_records(path, Rollout)


def test_appender_repairs_half_written_tail(tmp_path):
    path = tmp_path / "r.jsonl"
    rec = Rollout("t0", 0, "closed", "fake:", "p", "resp", None, "stop")
    with RecordAppender(path) as out:
        out.append(rec)
    with path.open("a") as handle:
        handle.write('{"task_id": "t0", "sample_idx": 1, "mo')  # a crash mid-line
    with RecordAppender(path) as out:
        out.append(Rollout("t0", 1, "closed", "fake:", "p", "resp", "x=1", "stop"))
    got = read_records(path, Rollout)
    assert [r.sample_idx for r in got] == [0, 1]


def test_repair_tail_cuts_complete_but_corrupt_last_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n{"a": \n')
    assert repair_tail(path) is True
    assert path.read_text() == '{"a": 1}\n'
    assert repair_tail(path) is False


@pytest.mark.parametrize(("change", "field"), [({"verdict": "bogus"}, "verdict"), ({"sample_idx": -1}, "sample_idx"),
                                               ({"tests_total": -3, "tests_passed": 0}, "tests_total"),
                                               ({"tests_passed": 5}, "tests_passed"), ({"tests_passed": -1}, "tests_passed")])
def test_a_verdict_no_judge_gives_is_refused_naming_line_and_field(tmp_path, change, field):
    path = tmp_path / "v.jsonl"
    good = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "task_id": "b", **change}) + "\n")
    with pytest.raises(SebenchError, match=rf"v\.jsonl:2: field '{field}': "):
        read_records(path, Verdict)


def test_a_sample_judged_twice_in_a_verdicts_file_is_refused_naming_both_lines(tmp_path):
    path = tmp_path / "v.jsonl"
    rows = [Verdict("a", 0, "correct", 1, 1), Verdict("a", 1, "correct", 1, 1), Verdict("b", 0, "correct", 1, 1),
            Verdict("a", 1, "wrong_answer", 0, 1)]
    write_records(path, rows)
    with pytest.raises(SebenchError, match=r"v\.jsonl:4: field 'sample_idx': task_id 'a', sample_idx 1 repeats line 2"):
        read_verdicts(path)
    write_records(path, rows[:3])
    assert read_verdicts(path) == rows[:3]
    for other in ({"mode": "open"}, {"model": "m2"}):  # the folder's one evaluation: its row would count it twice
        write_records(path, [*rows[:3], Verdict("a", 1, "wrong_answer", 0, 1, **other)])
        with pytest.raises(SebenchError, match=r"v\.jsonl:4: field 'sample_idx': .* repeats line 2"):
            read_verdicts(path)

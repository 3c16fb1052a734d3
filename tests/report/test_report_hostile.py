"""`sebench report` (and the other readers of a run or an instance) on folders someone else made: links to
files outside the run (a secret, /dev/zero, a FIFO that would block), a folder link inside evals/, bytes that
are not UTF-8, JSON nested too deep, a line without end, numbers no count holds, names that would break a
markdown table or a plot, and --out inside the run. Each is one line naming the file (exit 2), reads
nothing through the link and changes no input; names reach the tables escaped."""

import json
import os
from pathlib import Path

import pytest
from cli_fixtures import cli, error_line, sebench, write_tiny_instance

from sebench import records
from sebench.records import Verdict, write_records

SECRET = "do-not-read-me"
VERDICT = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1,
           "mode": "closed", "model": "m", "split": "single_test"}


def _run(root: Path, regime: str = "untrained") -> tuple[Path, Path]:
    """A run directory with one evaluation of two tasks (one right, one wrong); (run, its verdicts file)."""
    path = root / "evals" / regime / "closed" / "single_test" / "verdicts.jsonl"
    write_records(path, [Verdict("a", 0, "correct", 1, 1, mode="closed", model="m", split="single_test"),
                         Verdict("b", 0, "wrong_answer", 0, 1, mode="closed", model="m", split="single_test")])
    (root / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0}))
    return root, path


def _secret(tmp_path: Path) -> Path:
    """A file outside every run, holding verdict lines (so a reader that follows a link would count them)."""
    path = tmp_path / "home" / "secret.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({**VERDICT, "task_id": SECRET}) + "\n")
    return path


def _snapshot(root: Path) -> dict[str, bytes | str]:
    return {str(p): (os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file() else "dir")
            for p in sorted(root.rglob("*"))}


def _refused(tmp_path: Path, run: Path, *needles: str) -> str:
    """Reports `run`; checks one error line holding `needles`, exit 2, no report and the run unchanged."""
    before = _snapshot(run)
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    line = error_line(err)
    assert rc == 2 and all(n in line for n in needles), line
    assert not (tmp_path / "report").exists() and _snapshot(run) == before
    return line


def test_a_verdicts_file_linked_to_a_file_outside_the_run_is_refused(tmp_path):
    run, path = _run(tmp_path / "run")
    path.unlink()
    path.symlink_to(_secret(tmp_path))
    line = _refused(tmp_path, run, str(path), "symbolic link")
    assert SECRET not in line


def test_a_manifest_linked_outside_the_run_is_refused(tmp_path):
    run, _ = _run(tmp_path / "run")
    outside = tmp_path / "home" / "manifest.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps({"model": SECRET, "seed": 0}))
    (run / "manifest.json").unlink()
    (run / "manifest.json").symlink_to(outside)
    _refused(tmp_path, run, f"{run / 'manifest.json'}: not a plain file")


def test_a_regime_folder_linked_elsewhere_is_refused(tmp_path):
    run, _ = _run(tmp_path / "run")
    elsewhere, _ = _run(tmp_path / "elsewhere", "closed-sft")
    (run / "evals" / "closed-sft").symlink_to(elsewhere / "evals" / "closed-sft")
    _refused(tmp_path, run, f"{run / 'evals' / 'closed-sft'}: a symbolic link inside {run}")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "fifo-manifest"])
def test_a_fifo_or_a_device_in_the_run_is_refused_without_waiting_on_it(tmp_path, kind):
    # before: open() of a FIFO waited forever for a writer; /dev/zero was read until memory ran out
    run, path = _run(tmp_path / "run")
    target = run / "manifest.json" if kind == "fifo-manifest" else path
    target.unlink()
    if kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        os.mkfifo(target)
    done = sebench("report", run, "--out", tmp_path / "report", "--no-plots")  # a fresh process, as a user runs it
    assert done.returncode == 2 and f"{target}:" in error_line(done.stderr)
    assert not (tmp_path / "report").exists()


def test_bytes_that_are_not_utf8_are_one_line_naming_file_and_line(tmp_path):
    run, path = _run(tmp_path / "run")
    path.write_bytes(path.read_bytes() + b'{"task_id": "\xff\xfe"}\n')
    _refused(tmp_path, run, f"{path}:3: not UTF-8 text")


def test_json_nested_deeper_than_python_recurses_is_one_line(tmp_path):
    run, path = _run(tmp_path / "run")
    path.write_text(path.read_text() + "[" * 100_000 + "]" * 100_000 + "\n")
    _refused(tmp_path, run, f"{path}:3: JSON nested too deep")


def test_a_line_without_end_is_read_no_further_than_the_line_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "LINE_LIMIT", 4096)
    run, path = _run(tmp_path / "run")
    with path.open("a") as handle:
        handle.write('{"task_id": "' + "a" * 10_000)
    _refused(tmp_path, run, f"{path}:3: a line over")


@pytest.mark.parametrize(("field", "value"), [
    ("seed", "NaN"), ("seed", "1e999"), ("seed", "-Infinity"), ("seed", '"0"'),  # report.json held NaN, Infinity
    ("docs_only", "5"), ("not_trained", "[1]"), ("config", '"x"'), ("model", "[]"),  # a traceback
])
def test_a_manifest_field_of_the_wrong_type_is_refused(tmp_path, field, value):
    run, _ = _run(tmp_path / "run")
    (run / "manifest.json").write_text('{"model": "m", "seed": 0, "' + field + '": ' + value + "}")  # the last of a key wins
    _refused(tmp_path, run, f"{run / 'manifest.json'}: field '{field}'")


@pytest.mark.parametrize("text", ["[1, 2]", "[" * 100_000 + "]" * 100_000])
def test_a_manifest_that_is_no_object_is_one_line(tmp_path, text):
    run, _ = _run(tmp_path / "run")
    (run / "manifest.json").write_text(text)
    _refused(tmp_path, run, f"{run / 'manifest.json'}: ")


def test_a_loss_file_that_is_not_utf8_is_one_line_and_a_diverged_loss_no_point(tmp_path):
    run, _ = _run(tmp_path / "run")
    loss = run / "train" / "closed-sft" / "loss.csv"
    loss.parent.mkdir(parents=True)
    loss.write_text("step,loss\n1,2.5\n2,nan\n3,inf\n4,1.5\n")
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 0, err
    text = (tmp_path / "report" / "report.json").read_text()
    data = json.loads(text, parse_constant=lambda name: pytest.fail(f"report.json holds {name}"))
    assert data["loss_curves"] == {"closed-sft": [[1.0, 2.5], [4.0, 1.5]]}
    loss.write_bytes(b"step,loss\n1,\xff\n")
    _refused(tmp_path / "again", run, f"{loss}: not a UTF-8 CSV file")


NAMES = ["a|b", "x<script>alert(1)<", "two\nlines", "$\\foo{$"]


@pytest.mark.parametrize("name", NAMES)
def test_a_folder_name_with_markdown_or_html_stays_in_its_cell(tmp_path, name):
    run, _ = _run(tmp_path / "run", name)
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 0, err
    md = (tmp_path / "report" / "report.md").read_text()
    assert "<script" not in md
    for table in md.split("\n\n"):
        rows = [line for line in table.splitlines() if line.startswith("|")]
        cells = {len(line.replace("\\|", "").split("|")) for line in rows}
        assert len(cells) <= 1, table  # every row of a table has as many cells as its head
        assert all(line.endswith("|") for line in rows), table


def test_a_dollar_in_a_folder_name_is_drawn_as_written(tmp_path):
    pytest.importorskip("matplotlib")
    run, _ = _run(tmp_path / "run", "$\\foo{$")  # before: mathtext's ParseFatalException, a traceback
    rc, err = cli("report", run, "--out", tmp_path / "report")
    assert rc == 0, err
    assert (tmp_path / "report" / "accuracy.png").stat().st_size > 0


def test_out_inside_the_run_is_refused_but_its_report_folder(tmp_path):
    run, path = _run(tmp_path / "run")
    for out in (run / "evals", path.parent):
        before = _snapshot(run)
        rc, err = cli("report", run, "--out", out, "--no-plots")
        assert rc == 2 and f"{out}: --out lies inside the input RUN_DIR {run}" in error_line(err)
        assert _snapshot(run) == before
    rc, err = cli("report", run, "--out", run / "report", "--no-plots")
    assert rc == 0 and (run / "report" / "report.md").is_file(), err
    rc, err = cli("report", run, "--out", path, "--no-plots")
    assert rc == 2 and "--out is an existing file" in error_line(err)


def test_a_lifelong_schedule_linked_outside_the_run_is_refused(tmp_path):
    run, _ = _run(tmp_path / "run")
    outside = tmp_path / "home" / "lifelong.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps({"libraries": {SECRET: {}}}))
    (run / "lifelong.json").symlink_to(outside)
    _refused(tmp_path, run, f"{run / 'lifelong.json'}: not a plain file")


def test_an_instance_whose_task_file_is_a_link_is_refused_by_the_export(tmp_path):
    data = write_tiny_instance(tmp_path / "inst")
    tasks = data / "datasets" / "train" / "train.jsonl"
    outside = tmp_path / "home" / "tasks.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(tasks.read_bytes())
    tasks.unlink()
    tasks.symlink_to(outside)
    rc, err = cli("export", "--format", "hf", "--data", data, "--out", tmp_path / "hf")
    assert rc == 2 and f"{tasks}: a symbolic link inside {data}" in error_line(err)


def test_a_stage_record_linked_outside_the_run_is_refused(tmp_path):
    # before: the record was read through the link; one saying it was not done was passed over
    run, _ = _run(tmp_path / "run")
    outside = tmp_path / "home" / "record.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps({"stage": SECRET, "status": "running"}))
    (run / "stages").mkdir()
    (run / "stages" / "judge.json").symlink_to(outside)
    _refused(tmp_path, run, f"{run / 'stages' / 'judge.json'}: a symbolic link inside {run}")


def test_a_link_left_in_an_existing_report_folder_is_replaced_not_written_through(tmp_path):
    pytest.importorskip("matplotlib")
    run, _ = _run(tmp_path / "run")
    victim = tmp_path / "home" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("mine")
    out = tmp_path / "report"
    out.mkdir()
    for name in ("accuracy.png", "report.md"):
        (out / name).symlink_to(victim)
    rc, err = cli("report", run, "--out", out)
    assert rc == 0, err
    assert victim.read_bytes() == b"mine"  # before: the figure was saved through the link
    assert not (out / "accuracy.png").is_symlink() and (out / "accuracy.png").read_bytes()[:4] == b"\x89PNG"


def _lifelong(root: Path) -> tuple[Path, dict]:
    """A lifelong run of one library (A, at data/A) and its base: (run, its schedule)."""
    write_tiny_instance(root / "data" / "A")
    for model in ("base", "m1"):
        _run(root, f"{model}/A")  # evals/<model>/A/closed/single_test/verdicts.jsonl
    schedule = {"seed": 0, "mode": "closed", "splits": ["single_test"], "base_library": None,
                "libraries": {"A": {"position": 1, "design": "same", "data": "data/A", "package": "zwc"}},
                "tracks": [{"name": "seq", "design": "same", "replay": None, "libraries": ["A"],
                            "rows": [["base", "base"], ["after L1", "m1"]]}]}
    (root / "lifelong.json").write_text(json.dumps(schedule))
    return root, schedule


def test_a_lifelong_schedule_naming_paths_outside_the_run_or_of_another_shape_is_refused(tmp_path):
    run, schedule = _lifelong(tmp_path / "run")
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 0 and (tmp_path / "report" / "report.md").is_file(), err
    _run(tmp_path / "outside", "x/A")  # verdicts a row naming "../../outside/evals/x" would read
    hostile = [
        ({**schedule, "tracks": [{**schedule["tracks"][0], "rows": [["base", "base"], ["after L1", "../../outside/evals/x"]]}]},
         "is not a path inside it"),
        ({**schedule, "libraries": {"A": {**schedule["libraries"]["A"], "data": str(tmp_path / "elsewhere")}}},
         "is not a path inside it"),
        ({}, "field 'libraries'"),  # before: KeyError, a traceback
        ({**schedule, "tracks": [{"name": "seq"}]}, "field 'tracks'"),
        ({**schedule, "mode": 5}, "field 'mode'"),
    ]
    for i, (bad, needle) in enumerate(hostile):
        (run / "lifelong.json").write_text(json.dumps(bad))
        _refused(tmp_path / f"case-{i}", run, needle)
    (run / "lifelong.json").write_text(json.dumps(schedule))
    (run / "evals" / "m1").rename(tmp_path / "m1")
    (run / "evals" / "m1").symlink_to(tmp_path / "m1")
    _refused(tmp_path / "linked", run, f"{run / 'evals' / 'm1'}: a symbolic link inside {run}")


@pytest.mark.parametrize("name", ["run`x", "two\nlines", "``", "m<script>"])
def test_a_run_folder_or_model_name_stays_one_inline_code_span_or_escaped(tmp_path, name):
    run, _ = _run(tmp_path / name)
    manifest = json.loads((run / "manifest.json").read_text())
    (run / "manifest.json").write_text(json.dumps({**manifest, "model": name}))
    rc, err = cli("report", run, "--out", tmp_path / "report", "--no-plots")
    assert rc == 0, err
    line = next(t for t in (tmp_path / "report" / "report.md").read_text().split("\n\n") if t.startswith("Runs ("))
    code, model = line.split(": ", 1)[1].split(" (model ")
    assert "\n" not in line.strip() and "<script" not in model  # in a code span markdown shows HTML as written
    ticks = len(code) - len(code.lstrip("`"))
    assert code.endswith("`" * ticks) and "`" * ticks not in code[ticks:-ticks], code  # one span, not closed early


def test_a_method_spec_with_backticks_stays_one_code_span_in_the_cost_table():
    from sebench.report.methods import cost_markdown

    spec = "m.py:A`[click](http://example.org)`"
    table = cost_markdown([{"run": "r", "label": "m", "origin": "file", "spec": spec, "returns": "checkpoint"}])
    assert "| `` m.py:A`[click](http://example.org)` `` |" in table


@pytest.mark.parametrize("folder", ["datasets", "datasets/train", "private"])
def test_an_instance_whose_folder_is_a_link_is_refused_too(tmp_path, folder):
    from sebench.instance import Instance

    data = write_tiny_instance(tmp_path / "inst")
    outside = tmp_path / "home" / folder
    outside.parent.mkdir(parents=True)
    (data / folder).rename(outside)
    (data / folder).symlink_to(outside)
    instance = Instance(data)
    read = {"datasets": lambda: instance.tasks("train"), "datasets/train": instance.api_docs,
            "private": instance.mapping}[folder]
    with pytest.raises(records.SebenchError, match=f"{data / folder}: a symbolic link inside {data}"):
        read()


def test_an_instance_the_manifest_names_outside_the_run_is_read_only_where_the_user_names_it(tmp_path, caplog):
    run, path = _run(tmp_path / "run")
    write_records(path, [Verdict("single_test-0", 0, "correct", 1, 1, mode="closed", model="m", split="single_test")])
    outside = write_tiny_instance(tmp_path / "elsewhere")  # its mapping names the task's function numpy.mean
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0, "data": str(outside)}))
    for extra, named in (((), False), (("--data", outside), True)):
        out = tmp_path / f"report-{named}"
        rc, err = cli("report", run, "--out", out, "--no-plots", *extra)
        assert rc == 0, err
        data = json.loads((out / "report.json").read_text())
        assert ("numpy.mean" in json.dumps(data["functions"])) is named
    assert "its instance lies outside it" in caplog.text

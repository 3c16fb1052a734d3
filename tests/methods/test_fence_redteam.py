"""What the study reads back from a method is data: a hostile method (hostile_redteam.py, a user's file) gets one
line, never a traceback, a hang or a write outside its folder.

It leaves its record files as a FIFO (which would block the study's read for ever), a folder, invalid UTF-8
or JSON of the wrong shape; it writes junk on the pipe the fence reports refusals on; it leaves its work
folder as a link to a folder outside its fence, which a rerun must not write or empty; an agent answers
the study's prompts with a line that is not the protocol's; and a returned checkpoint names code of its own or
holds weights pickled to call a function as they load.
"""

import json
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.files import remove_tree
from sebench.methods import AgentBackend, MethodJob, available_layers, resolve, run_method
from sebench.methods import process as method_process
from sebench.methods.isolation import Reports
from sebench.rollout import GenerationRequest
from sebench.seal import files_of

HOSTILE = Path(__file__).with_name("hostile_redteam.py")
LAYERS = [*(layer for layer in ("bwrap", "landlock") if layer in available_layers()), "audit-hook"]


@pytest.fixture()
def study(tmp_path, built_instance):
    mine = tmp_path / "runs" / "mine"
    shutil.copytree(built_instance, mine / "data")
    return mine


def job(mine: Path, name: str, **args) -> MethodJob:
    data = mine / "data"
    return MethodJob(ref=resolve(f"{HOSTILE}:{name}"), args=args, data=data, folder=mine / "train" / name,
                     start_model="fake:", seed=0, hidden=(mine, data / "datasets" / "test", data / "private"))


def one_line(method: MethodJob) -> str:
    with pytest.raises(SebenchError) as stopped:
        run_method(method)
    why = str(stopped.value)
    assert why and "\n" not in why and "Traceback" not in why
    return why


GOOD_RESULT = json.dumps({"kind": "checkpoint", "path": "fake:", "docs_at_test_time": False}).encode().hex()


@pytest.mark.timeout(120)  # a FIFO the study opened for reading would hold it for ever
@pytest.mark.parametrize("name", ["result.json", "cost.json", "usage.json"])
def test_a_record_file_left_as_a_fifo_is_refused_without_blocking_the_study(study, name):
    files = {"result.json": GOOD_RESULT, name: "fifo"}
    why = one_line(job(study, "raw_records", files=files))
    assert name in why


@pytest.mark.parametrize(("name", "content"), [
    ("result.json", "folder"),
    ("result.json", "ff fe 7b 7d".replace(" ", "")),  # invalid UTF-8
    ("result.json", b"[1, 2]".hex()),
    ("result.json", b'"checkpoint"'.hex()),
    ("result.json", b'{"kind": "checkpoint"}'.hex()),
    ("result.json", b'{"kind": "checkpoint", "path": ["a", "b"]}'.hex()),
    ("result.json", b'{"kind": "agent", "target": 7}'.hex()),
    ("result.json", b'{"kind": "endpoint"}'.hex()),
    ("result.json", b'{"kind": "weights", "path": "x"}'.hex()),
    ("result.json", b'{"kind": "checkpoint", "path": "fake:"}'.hex()),
    ("result.json", b'{"kind": "agent", "target": "a:B", "eligible": "yes"}'.hex()),
    ("cost.json", b"[]".hex()),
    ("cost.json", b'{"judge_calls": {"a": 1}}'.hex()),
    ("cost.json", b'{"judge_calls": -1000}'.hex()),  # a negative count takes from the method's reported cost
    ("cost.json", b'{"tokens_trained": 1e999}'.hex()),
    ("cost.json", b'{"tokens_sampled": NaN}'.hex()),
    ("usage.json", b"[]".hex()),
    ("usage.json", b'{"threads": {"seconds": {"x": "y"}}}'.hex()),
    ("usage.json", b'{"peak_rss_mb": "lots"}'.hex()),
])
def test_a_record_file_of_the_wrong_shape_is_refused_with_one_line_naming_it(study, name, content):
    files = {"result.json": GOOD_RESULT, name: content}
    why = one_line(job(study, "raw_records", files=files))
    assert name in why


@pytest.mark.parametrize("layer", LAYERS)
def test_junk_on_the_report_pipe_is_no_traceback_and_forges_nothing(study, layer, monkeypatch):
    monkeypatch.setenv("SEBENCH_ISOLATION", layer)
    lines = [b"1\n", b'"error"\n', b"[]\n", b"null\n", b"\xff\xfe\n", b'{"tree": "forged"}\n']
    record = run_method(job(study, "junk_reports", lines=[x.hex() for x in lines]))
    assert record["process_tree"] != "forged" and "error" not in record


def test_a_work_folder_left_as_a_link_is_not_followed_on_a_rerun(study, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("result.json", "cost.json", "usage.json"):
        (victim / name).write_text('{"kept": true}')
    method = job(study, "work_link", victim=str(victim))
    one_line(method)  # it failed on purpose, leaving work -> victim
    assert method.workdir.is_symlink()
    one_line(method)  # the rerun: it fails again, and the study wrote nothing through the link
    assert sorted(p.name for p in victim.iterdir()) == ["cost.json", "result.json", "usage.json"]
    assert all(json.loads((victim / n).read_text()) == {"kept": True} for n in ("result.json", "cost.json", "usage.json"))


@pytest.mark.parametrize("reply", [b"not json\n", b"\xff\xfe\n", b"[1]\n", b'{"answers": []}\n',
                                   b'{"answers": [1]}\n', b'{"answers": "abc"}\n', b'{"answers": ["a", "b"]}\n',
                                   b"[" * 100_000 + b"\n", b'{"answers": [' + b"9" * 5000 + b"]}\n"])
def test_an_agent_answering_off_the_protocol_stops_with_one_line(study, reply):
    method = job(study, "raw_agent", reply=reply.hex())
    result = run_method(method)["result"]
    backend = AgentBackend(method, result)
    try:
        with pytest.raises(SebenchError) as stopped:
            backend.generate([GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8)])
    finally:
        backend.close()
    assert "\n" not in str(stopped.value) and "agent raw_agent" in str(stopped.value)


def test_a_line_without_an_end_is_relayed_in_bounded_pieces(monkeypatch):
    """A method that prints without a newline for ever must not grow the study's memory: its output is
    relayed in pieces of at most LINE_LIMIT bytes, and a report line that long is dropped."""
    pieces: list[int] = []

    class Sink:
        def write(self, text):
            pieces.append(len(text))

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stderr", Sink())
    read, write = os.pipe()
    relay = method_process.Relay(os.fdopen(read, "rb"))
    total = 3 * method_process.LINE_LIMIT + 5
    writer = threading.Thread(target=lambda: (os.write(write, b"x" * total), os.close(write)))
    writer.start()
    relay.join()
    writer.join()
    assert sum(pieces) == total and max(pieces) <= method_process.LINE_LIMIT

    reports = Reports()
    os.write(reports.write_fd, b'{"path": "a"}\n')
    long_line = b'{"path": "' + b"y" * (3 * method_process.LINE_LIMIT) + b'"}\n'
    writer = threading.Thread(target=lambda: (os.write(reports.write_fd, long_line), reports.started()))
    writer.start()
    got = reports.collected()
    writer.join()
    assert got == [{"path": "a"}]


def test_a_report_line_too_deep_to_read_is_dropped_and_the_pipe_still_drained():
    """A report line nested deeper than the JSON reader's stack stopped the thread that drains the pipe, so
    the child's next write could block; it is dropped as any line that is not a report."""
    reports = Reports()
    lines = b"[" * 100_000 + b"]" * 100_000 + b"\n" + b'{"n": ' + b"9" * 5000 + b'}\n{"path": "a"}\n'
    writer = threading.Thread(target=lambda: (os.write(reports.write_fd, lines), reports.started()))
    writer.start()
    got = reports.collected()
    writer.join()
    assert got == [{"path": "a"}]


@pytest.mark.timeout(120)  # a keeper left stopped would hold the study for ever
def test_a_method_that_stops_its_keeper_does_not_hold_the_study(study, monkeypatch):
    """Only the audit hook with a subreaper lets a method reach its keeper (docs/methods.md): a SIGSTOP to it
    must not leave the study waiting on a keeper that never runs again."""
    monkeypatch.setenv("SEBENCH_ISOLATION", "audit-hook")
    monkeypatch.setenv("SEBENCH_PROCESS_TREE", "subreaper")
    record = run_method(job(study, "stop_keeper"))
    assert record["process_tree"] == "subreaper" and "error" not in record


def test_a_checkpoint_with_its_own_code_is_never_run_nor_offered_to_the_user(tmp_path, capsys, monkeypatch):
    """A returned checkpoint is regular files, so it is copied; one whose config names code of its own
    (`auto_map`, a model type transformers does not know) fails to load with one line: its code is not run,
    and the user is not asked whether to run it."""
    pytest.importorskip("transformers")
    from sebench.models import load_causal_lm

    model, ran = tmp_path / "checkpoint", tmp_path / "ran"
    model.mkdir()
    auto = {"AutoConfig": "evil.EvilConfig", "AutoModelForCausalLM": "evil.Evil", "AutoTokenizer": ["evil.Tok", None]}
    (model / "config.json").write_text(json.dumps({"model_type": "evilmodel", "auto_map": auto}))
    (model / "tokenizer_config.json").write_text(json.dumps({"auto_map": auto, "tokenizer_class": "Tok"}))
    (model / "evil.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    with open(os.devnull) as nothing, pytest.raises(SebenchError) as stopped:
        monkeypatch.setattr("sys.stdin", nothing)
        load_causal_lm(f"hf:{model}", device="cpu")
    assert "\n" not in str(stopped.value) and str(model) in str(stopped.value)
    assert not ran.exists() and "Do you wish to run" not in capsys.readouterr().out


def test_a_checkpoint_whose_weights_are_a_pickle_that_runs_code_is_refused_with_one_line(tmp_path):
    """The study loads a returned checkpoint in its own, unfenced process: weights saved as a pickle that calls
    a function as it loads are refused with one line naming the folder, and the function never runs."""
    pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    from sebench.models import create_tiny_model, load_causal_lm

    model, ran = tmp_path / "checkpoint", tmp_path / "ran"
    create_tiny_model(model)
    weights = load_file(model / "model.safetensors")
    (model / "model.safetensors").unlink()
    weights["extra"] = _Runs(str(ran))
    torch.save(weights, model / "pytorch_model.bin")
    with pytest.raises(SebenchError) as stopped:
        load_causal_lm(f"hf:{model}", device="cpu")
    assert "\n" not in str(stopped.value) and str(model) in str(stopped.value)
    assert not ran.exists()


class _Runs:
    """Pickled as a call to `open(path, "w")`: it would leave `path` behind when loaded."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("where", ["checkpoint", "path", "report"])
def test_a_name_or_message_with_a_newline_or_an_escape_stays_one_line(study, where):
    why = one_line(job(study, "odd_names", where=where))
    assert "\x1b" not in why and "\\n" in why


def test_a_method_folder_nested_thousands_deep_is_sealed_and_removed_without_a_traceback(study):
    """The study seals the method's whole folder (the train stage's outputs) once it ends, and removes its
    temporary folder, and the view on a rerun."""
    method = job(study, "deep_folder", depth=1500)
    run_method(method)
    files = files_of(study, [method.folder])
    assert files["train/deep_folder/work/" + "/".join(["d"] * 1500)] == "folder"
    remove_tree(method.folder / "work" / "d")
    run_method(job(study, "deep_folder", depth=1500, where="tmp"))  # its temporary folder is removed
    assert not list(Path(tempfile.gettempdir()).glob("sebench-method-*/" + "d/" * 3))
    run_method(job(study, "deep_folder", depth=1500, where="view"))  # empty folders: the view's files are unchanged
    run_method(job(study, "deep_folder", depth=3))  # the rerun writes the view afresh
    assert not (method.folder / "view" / "d" / "d" / "d" / "d").exists()


@pytest.mark.parametrize("layer", LAYERS)
def test_a_sibling_run_in_a_folder_on_the_import_path_stays_hidden(study, tmp_path, layer, monkeypatch):
    """A folder on the study's import path (PYTHONPATH=PROJECT, runs kept in PROJECT/runs) is readable, as
    Python is; an earlier run kept beneath it is not."""
    monkeypatch.setenv("SEBENCH_ISOLATION", layer)
    project = tmp_path / "project"
    split = project / "runs" / "old" / "data" / "datasets" / "test" / "single_test.jsonl"
    split.parent.mkdir(parents=True)
    split.write_text("the earlier run's test split")
    (project / "runs" / "old" / "stages").mkdir()
    (project / "helpers.py").write_text("X = 1")
    monkeypatch.syspath_prepend(str(project))
    method = job(study, "read_paths", paths=[str(project / "helpers.py"), str(split)])
    run_method(method)
    got = json.loads((method.workdir / "read.json").read_text())
    assert got[str(project / "helpers.py")] == "X = 1" and got[str(split)] is None


@pytest.mark.timeout(120)  # a write to a pipe nobody reads would hold the study for ever
def test_an_agent_that_never_reads_its_prompts_is_ended_within_its_limit(study):
    method = replace(job(study, "deaf_agent"), prompt_timeout=2.0)
    result = run_method(method)["result"]
    backend = AgentBackend(method, result)
    long = GenerationRequest(messages=[{"role": "user", "content": "q"}], query="q" * (1 << 20), max_tokens=8)  # more than a pipe holds
    try:
        with pytest.raises(SebenchError, match="took longer than 2 s a prompt"):
            backend.generate([long])
    finally:
        backend.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("with_what", ["nothing", "file", "fifo"])
def test_a_view_removed_or_replaced_fails_the_method_with_one_line(study, with_what):
    method = job(study, "replace_view", with_what=with_what)
    assert "changed its training view" in one_line(method)
    run_method(replace(job(study, "deep_folder", depth=1), folder=method.folder))  # a rerun writes the view afresh
    assert (method.folder / "view" / "manifest.json").is_file()

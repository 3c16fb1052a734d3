"""Nothing comes out of a method but copied files, and a server the user declared.

A hostile method (hostile_outputs.py, a user's file) returns a checkpoint, or an agent's state, in which it
planted a link to its run's test split, a link on a folder on the way, a FIFO, a socket, a hard link or an
oversized file, by Python, ctypes or a subprocess, under each isolation layer this machine has. The study
refuses each with one line naming the file, and copies nothing. An honest method's checkpoint and state
are copied byte for byte and evaluated from the copy. An Endpoint the user did not declare gets no request;
a declared one gets the test prompts, and never the study's own key.
"""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

from sebench.cli import main
from sebench.errors import SebenchError
from sebench.files import tree_sha256
from sebench.methods import AgentBackend, MethodJob, OutputRules, resolve, run_method
from sebench.rollout import GenerationRequest

HOSTILE = Path(__file__).with_name("hostile_outputs.py")
WAYS = ("python", "ctypes", "subprocess")
PLANTS = [*(("file-link", w) for w in WAYS), ("folder-link", "python"), *(("fifo", w) for w in WAYS),
          ("socket", "python"), ("socket", "subprocess"), *(("hardlink", w) for w in WAYS), ("big-file", "python")]


@pytest.fixture()
def study(tmp_path, built_instance):
    """runs/mine with its data, and a start model folder beside it (config and weights, regular files)."""
    mine = tmp_path / "runs" / "mine"
    shutil.copytree(built_instance, mine / "data")
    start = tmp_path / "start"
    start.mkdir()
    (start / "config.json").write_text('{"model_type": "llama"}')
    (start / "model.safetensors").write_bytes(bytes(range(256)) * 64)
    (start / "tokenizer").mkdir()
    (start / "tokenizer" / "vocab.json").write_text('{"a": 0}')
    return mine


def secret_of(mine: Path) -> Path:
    return mine / "data" / "datasets" / "test" / "single_test.jsonl"


def job(mine: Path, name: str, start: str = "fake:", **args) -> MethodJob:
    """A method of hostile_outputs.py run for the study in `mine`, hidden as `sebench run` hides it."""
    data = mine / "data"
    readable = (Path(start),) if Path(start).is_dir() else ()
    return MethodJob(ref=resolve(f"{HOSTILE}:{name}"), args=args, data=data, folder=mine / "train" / name,
                     start_model=start, seed=0, hidden=(mine, data / "datasets" / "test", data / "private"),
                     readable=readable)


def holds(folder: Path, text: bytes) -> bool:
    """Whether any regular file beneath `folder` holds `text`."""
    return folder.exists() and any(text in p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def refused(method: MethodJob) -> str:
    with pytest.raises(SebenchError) as stopped:
        run_method(method)
    return str(stopped.value)


def planted(method: MethodJob) -> dict:
    return json.loads((method.workdir / "planted.json").read_text())


@pytest.mark.parametrize(("what", "way"), PLANTS)
def test_a_checkpoint_with_a_link_a_special_file_or_an_oversized_file_is_refused_naming_it(study, layer, what, way):
    method = job(study, "planted_checkpoint", what=what, secret=str(secret_of(study)), way=way)
    why = refused(method)
    at = planted(method)["planted"]
    assert "\n" not in why and (f"{at} is " in why or f"{at}: " in why), why
    assert not (method.outputs / "checkpoint").exists()  # nothing was copied
    assert not holds(method.outputs, secret_of(study).read_bytes()[:200])
    record = json.loads((method.folder / "method.json").read_text())
    assert record["error"] == why.split("failed: ", 1)[1] and record["result"]["path"].endswith("model")
    if what == "hardlink":  # a kernel layer refuses a link to the test split; around the audit hook it is made
        assert planted(method)["linked"] == ("secret" if layer == "audit-hook" and way != "python" else "own")


def test_a_link_on_a_folder_on_the_way_to_the_checkpoint_is_refused(study, layer):
    method = job(study, "linked_on_the_way", secret=str(secret_of(study)))
    why = refused(method)
    assert f"{method.workdir / 'hop'} is a symbolic link" in why and "\n" not in why
    assert not (method.outputs / "checkpoint").exists()


def test_a_copy_over_the_users_limit_is_refused_and_the_limit_is_named(study):
    method = replace(job(study, "planted_checkpoint", what="many-bytes", secret=""),
                     output_rules=OutputRules(max_output_gib=0.001))
    why = refused(method)
    assert "passes 0.001 GiB" in why and "max_output_gib" in why
    assert not (method.outputs / "checkpoint").exists()


@pytest.mark.parametrize(("what", "way"), [("file-link", "python"), ("fifo", "subprocess"), ("hardlink", "ctypes")])
def test_an_agents_state_with_a_link_or_a_special_file_is_refused_and_never_served(study, layer, what, way):
    method = job(study, "planted_agent", what=what, secret=str(secret_of(study)), way=way)
    why = refused(method)
    assert f"{planted(method)['planted']} is " in why and "\n" not in why
    assert not (method.outputs / "agent").exists() and not holds(method.outputs, secret_of(study).read_bytes()[:200])


def test_an_honest_checkpoint_is_copied_byte_for_byte_and_its_copy_is_what_the_record_names(study, layer):
    start = study.parent.parent / "start"
    method = job(study, "copied_start", start=str(start))
    record = run_method(method)
    copy = method.outputs / "checkpoint"
    assert record["result"]["path"] == str(copy) and record["result"]["returned"] == "model"
    assert tree_sha256(copy) == tree_sha256(start) == tree_sha256(method.workdir / "model")
    assert record["refused"] == [] and "error" not in record


def test_an_honest_agent_answers_from_the_study_s_copy_of_its_state(study, layer):
    method = job(study, "notes_agent")
    result = run_method(method)["result"]
    assert result["state"] == str(method.outputs / "agent")
    (method.folder / "agent" / "notes.txt").write_text("changed after training")  # the method's own folder
    backend = AgentBackend(method, result)
    try:
        answers = backend.generate([GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8)])
    finally:
        backend.close()
    assert answers[0][0].text.endswith("training tasks")


def test_the_start_model_returned_as_is_is_evaluated_where_it_is(study):
    start = study.parent.parent / "start"
    method = job(study, "start_as_is", start=str(start))
    record = run_method(method)
    assert record["result"]["path"] == str(start) and list(method.outputs.iterdir()) == []


@pytest.mark.slow  # about a minute and a half on two shared cores: a whole study with the tiny model
@pytest.mark.timeout(900)
def test_through_the_study_the_planted_model_is_never_evaluated_and_an_honest_copy_answers_as_the_start(
        tmp_path, built_instance):
    """`sebench run` with a tiny model: the method whose model folder links its chat template to the test
    split is not trained (one line naming the file), and nothing of it is evaluated; an honest method's copy
    of the start model, evaluated from the study's copy, answers every test prompt as the untrained model."""
    pytest.importorskip("transformers")
    from sebench.models import create_tiny_model

    tiny = create_tiny_model(tmp_path / "tiny")
    out = tmp_path / "run"
    split = out / "data" / "datasets" / "test" / "single_test.jsonl"
    argv = ["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny}",
            "--functions", "3", "--max-tokens", "8", "--set", 'splits=["single_test"]',
            "--set", 'untrained_modes=["closed"]', "--set", 'trained_modes=["closed"]', "--set", "judge.workers=1",
            "--set", "name_recall=false",
            "--regimes", f"{HOSTILE}:planted_copy", f"{HOSTILE}:copied_start",
            "--set", f"methods.planted_copy.secret={split}"]
    assert main(argv) == 1  # a method was not trained
    report = json.loads((out / "report" / "report.json").read_text())
    why = report["not_trained"]["planted_copy"]
    assert f"{out / 'train' / 'planted_copy' / 'work' / 'model' / 'chat_template.jinja'} is a symbolic link" in why
    assert not (out / "evals" / "planted_copy").exists() and not (out / "outputs" / "planted_copy" / "checkpoint").exists()
    record = json.loads((out / "train" / "copied_start" / "method.json").read_text())
    assert record["result"]["path"] == str(out / "outputs" / "copied_start" / "checkpoint")

    def answers(label):
        rows = (out / "evals" / label / "closed" / "single_test" / "rollouts.jsonl").read_text().splitlines()
        return {(r["task_id"], r["sample_idx"]): r["response"] for r in map(json.loads, rows)}

    assert answers("copied_start") == answers("untrained") and answers("untrained")


# ---- endpoints ----------------------------------------------------------------------------------------


def test_an_endpoint_is_taken_only_at_the_declared_server(study):
    url = "http://127.0.0.1:9/v1"
    with pytest.raises(SebenchError, match="did not declare"):
        run_method(job(study, "served", url=url))
    for returned in ("http://127.0.0.1:10/v1", "http://127.0.0.1:9/v1,http://evil:1/v1", "http://u:p@127.0.0.1:9/v1"):
        declared = replace(job(study, "served", url=returned), output_rules=OutputRules(endpoint=url))
        with pytest.raises(SebenchError, match="not the server declared"):
            run_method(declared)
    record = run_method(replace(job(study, "served", url="http://127.0.0.1:9"), output_rules=OutputRules(endpoint=url)))
    assert record["result"]["url"] == url and record["endpoint"] == url and record["verified"] is False


class CountingServer(FakeOpenAIServer):
    """The fake OpenAI server, counting every connection made to it (a request or not)."""

    connections = 0

    async def _handle(self, reader, writer):
        self.connections += 1
        await super()._handle(reader, writer)


@pytest.fixture()
def server():
    with CountingServer() as running:
        yield running


def _run(tmp_path, built_instance, url: str, *settings: str, code: int = 0) -> Path:
    """`sebench run` with the fake model and the method `served` returning `url`; its exit code is `code` (1:
    a method was not trained)."""
    out = tmp_path / "run"
    argv = ["run", "--out", str(out), "--instance", str(built_instance), "--model", "fake:", "--functions", "3",
            "--train-model", f"hf:{tmp_path / 'no-weights'}", "--set", 'splits=["single_test"]',
            "--set", 'untrained_modes=["closed"]', "--set", 'trained_modes=["closed"]', "--set", "judge.workers=1",
            "--regimes", f"{HOSTILE}:served", "--set", f"methods.served.url={url}", *settings]
    assert main(argv) == code
    return out


def test_an_undeclared_endpoint_gets_no_request_and_the_row_names_the_server(tmp_path, built_instance, server,
                                                                            monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own")
    out = _run(tmp_path, built_instance, server.url, code=1)
    assert server.connections == 0 and server.authorizations == []
    why = json.loads((out / "report" / "report.json").read_text())["not_trained"]["served"]
    assert server.url in why and "did not declare" in why
    assert not (out / "evals" / "served").exists()


def test_a_declared_endpoint_answers_the_test_prompts_without_the_studys_key(tmp_path, built_instance, server,
                                                                             monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own")
    out = _run(tmp_path, built_instance, server.url, "--set", f"methods.served.endpoint={server.url}")
    assert server.requests > 0 and set(server.authorizations) == {None}
    rows = {r["regime"] for r in json.loads((out / "report" / "report.json").read_text())["main_table"]}
    assert "served" in rows
    assert server.url in (out / "report" / "report.md").read_text()  # the report names the server


def test_a_key_named_for_the_declared_endpoint_goes_to_it_alone(tmp_path, built_instance, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own")
    monkeypatch.setenv("SERVED_KEY", "sk-for-that-server")
    _run(tmp_path, built_instance, server.url, "--set", f"methods.served.endpoint={server.url}",
         "--set", "methods.served.endpoint_key=SERVED_KEY")
    assert server.requests > 0 and set(server.authorizations) == {"Bearer sk-for-that-server"}


@pytest.mark.parametrize(("key", "value", "message"), [
    ("endpoint", "ftp://host/v1", "not the http(s) base URL"),
    ("endpoint_key", "SERVED_KEY", "names a key for no server"),
    ("max_output_gib", "0", "not a positive number"),
])
def test_a_malformed_output_setting_is_refused_before_anything_runs(tmp_path, built_instance, capsys, key, value,
                                                                     message):
    argv = ["run", "--out", str(tmp_path / "run"), "--instance", str(built_instance), "--model", "fake:",
            "--regimes", f"{HOSTILE}:served", "--set", "methods.served.url=http://127.0.0.1:9/v1",
            "--set", f"methods.served.{key}={value}"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and f"methods.served.{key}" in err[-1]
    assert not (tmp_path / "run").exists()

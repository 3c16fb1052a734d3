"""`sebench rollout --protocol original`: the original's templates read from a copy of its repository (here a
stand-in with the same constant names and our own text), filled as the original fills them, sent as one user
message with the paper's decoding defaults."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAIServer
from original_fixtures import RIGHT_ANSWER, SHARED_API_DOC, original_repo, released_instance

from sebench.cli import main
from sebench.records import Rollout, read_records


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    base = tmp_path_factory.mktemp("orig")
    return original_repo(base), released_instance(base)


def _rollout(setup, tmp_path, *flags):
    repo, inst = setup
    bodies = []

    def answer(body):
        bodies.append(body)
        return RIGHT_ANSWER

    out = tmp_path / "r.jsonl"
    with FakeOpenAIServer(answer=answer) as server:
        code = main(["rollout", "--data", str(inst), "--split", "single_test", "--model", f"openai:m@{server.url}",
                     "--out", str(out), "--protocol", "original", "--original-repo", str(repo), *flags])
    return code, bodies, out


def test_closed_book_prompt_and_decoding_are_the_originals(setup, tmp_path):
    code, bodies, out = _rollout(setup, tmp_path)
    assert code == 0 and len(bodies) == 1
    body = bodies[0]
    assert body["messages"] == [{"role": "user", "content":
                                 "PROBLEM Return the running total of `sales`.\n"
                                 "EXAMPLE {'input': 'sales=zwc.yitaf([3, 1])'}\n"
                                 "COMPLETE def running_total(sales):\n$ kept"}]
    assert body["max_tokens"] == 8192 and body["temperature"] == 0.6 and body["n"] == 5
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    records = read_records(out, Rollout)
    assert len(records) == 5 and {r.protocol for r in records} == {"original"}


def test_open_book_prompt_holds_the_selected_functions_docs_and_flags_override_defaults(setup, tmp_path):
    code, bodies, _ = _rollout(setup, tmp_path, "--mode", "open", "--thinking", "off", "--n", "1",
                               "--temperature", "0", "--max-tokens", "100")
    assert code == 0
    text = bodies[0]["messages"][0]["content"]
    doc = next(json.loads(line)["rewritten_doc"] for line in SHARED_API_DOC.read_text().splitlines()
               if json.loads(line)["original_name"] == "cumsum")
    assert text.startswith("DOCS " + repr([{"dorujot": doc}]) + "\nPROBLEM ")
    assert bodies[0]["chat_template_kwargs"] == {"enable_thinking": False}
    assert bodies[0]["max_tokens"] == 100 and bodies[0]["temperature"] == 0 and "n" not in bodies[0]


def test_a_missing_or_foreign_original_repository_is_one_line(setup, tmp_path, capsys):
    _, inst = setup
    args = ["rollout", "--data", str(inst), "--model", "fake:", "--out", str(tmp_path / "r.jsonl"), "--protocol",
            "original"]
    assert main(args) == 2
    assert "--original-repo" in capsys.readouterr().err
    assert main([*args, "--original-repo", str(tmp_path)]) == 2
    assert "prompt_template.py: not found" in capsys.readouterr().err

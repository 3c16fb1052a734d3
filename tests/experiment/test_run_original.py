"""`sebench run --protocol original` evaluates a served model as the paper did, against a fake server."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAIServer
from original_fixtures import RIGHT_ANSWER, SHARED_API_DOC, original_repo, released_instance

from sebench.cli import main
from sebench.records import Verdict, read_records


def test_run_protocol_original_evaluates_with_the_originals_prompts_decoding_and_judge(tmp_path, capsys):
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    repo, inst = original_repo(tmp_path), released_instance(tmp_path)
    bodies = []

    def answer(body):
        bodies.append(body)
        return RIGHT_ANSWER

    run_dir = tmp_path / "run"
    with FakeOpenAIServer(answer=answer) as server:
        code = main(["run", "--out", str(run_dir), "--preset", "quick", "--model", f"openai:m@{server.url}",
                     "--instance", str(inst), "--functions", "0", "--regimes", "--protocol", "original",
                     "--original-repo", str(repo), "--set", "judge.workers=1"])
    assert code == 0
    assert bodies and all(len(b["messages"]) == 1 and b["messages"][0]["role"] == "user" for b in bodies)
    assert {(b["max_tokens"], b["temperature"], b.get("n")) for b in bodies} == {(8192, 0.6, 5)}
    assert all(b["chat_template_kwargs"] == {"enable_thinking": True} for b in bodies)
    verdicts = read_records(run_dir / "evals/untrained/closed/single_test/verdicts.jsonl", Verdict)
    assert len(verdicts) == 5 and {(v.protocol, v.outcome, v.verdict) for v in verdicts} == {
        ("original", "right", "correct")}
    report = json.loads((run_dir / "report/report.json").read_text())
    assert {row["protocol"] for row in report["main_table"]} == {"original"}
    table = (run_dir / "report/report.md").read_text()
    assert "| protocol |" in table and "| original |" in table


def test_report_keeps_only_the_protocol_asked_for(tmp_path, capsys):
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    repo, inst = original_repo(tmp_path), released_instance(tmp_path)
    run_dir = tmp_path / "run"
    with FakeOpenAIServer(answer=RIGHT_ANSWER) as server:
        assert main(["run", "--out", str(run_dir), "--model", f"openai:m@{server.url}", "--instance", str(inst),
                     "--functions", "0", "--regimes", "--protocol", "original", "--original-repo", str(repo),
                     "--samples", "1"]) == 0
    assert main(["report", str(run_dir), "--out", str(tmp_path / "rep"), "--no-plots", "--protocol", "original"]) == 0
    assert main(["report", str(run_dir), "--out", str(tmp_path / "rep2"), "--no-plots", "--protocol", "sebench"]) == 2
    assert "judged under --protocol sebench" in capsys.readouterr().err

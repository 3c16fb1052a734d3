"""Backend table, the fake backend, and the OpenAI client against a real HTTP fake server."""

from __future__ import annotations

import time

import pytest
from fake_openai_server import FakeOpenAIServer

from sebench.answers import extract_code
from sebench.errors import SebenchError
from sebench.rollout.backends import GenerationRequest, get_backend
from sebench.rollout.backends.openai import parse_argument
from sebench.rollout.text import cut_at_stop

QUICK = {"backoff_s": 0.01, "max_backoff_s": 0.05}


def ask(text: str = "hi", **kw) -> GenerationRequest:
    return GenerationRequest([{"role": "user", "content": text}], **kw)


@pytest.fixture
def server():
    with FakeOpenAIServer() as s:
        yield s


# ---- the table ----
@pytest.mark.parametrize("spec, guess", [("opnai:m@http://x", "openai"), ("smollm2", "smollm2-135m"), ("fak:x", "fake")])
def test_unknown_spec_suggests(spec, guess):
    with pytest.raises(SebenchError, match=f"did you mean '{guess}'"):
        get_backend(spec)


def test_unknown_spec_without_a_guess_lists_the_forms():
    with pytest.raises(SebenchError, match="forms: openai:"):
        get_backend("zzzzzz")


def test_parse_argument():
    assert parse_argument("Qwen/Qwen3-8B@http://a:8000/v1,http://b:8000") == (
        "Qwen/Qwen3-8B", ["http://a:8000/v1", "http://b:8000/v1"]
    )
    with pytest.raises(SebenchError, match="not an http"):
        parse_argument("m@localhost:8000")


# ---- fake ----
def test_fake_scripts_answers_and_finish_reasons():
    backend = get_backend("fake:", responses=["a", {"text": "", "finish_reason": "length"}])
    [[first], [second, third]] = backend.generate([ask(), ask(n=2)])
    assert (first.text, first.finish_reason) == ("a", "stop")
    assert (second.text, second.finish_reason) == ("", "length")
    assert third.text == "a"
    assert get_backend("fake:echo").generate([ask("ping")])[0][0].text == "ping"
    assert get_backend("fake:fixed text").generate([ask()])[0][0].text == "fixed text"


def test_fake_reads_answers_from_a_file(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('"one"\n"two"\n')
    backend = get_backend(f"fake:file={path}")
    assert [c[0].text for c in backend.generate([ask(), ask(), ask()])] == ["one", "two", "one"]
    path.write_text('"one"\nnot json\n')  # neither JSON nor JSON lines: one line naming the file and line
    with pytest.raises(SebenchError, match=rf"^{path}:2: not valid JSON"):
        get_backend(f"fake:file={path}")


# ---- openai against the fake server ----
def test_answers_in_order_with_n(server):
    backend = get_backend(f"openai:fake-model@{server.url}", concurrency=4)
    results = backend.generate([ask(f"q{i}", n=3) for i in range(10)])
    assert [len(r) for r in results] == [3] * 10
    assert server.requests == 10  # n asked in one request each
    assert results[0][0].finish_reason == "stop" and "```python" in results[0][0].text
    assert results[0][0].prompt_tokens == 1


def test_retries_429_500_and_dropped_connections(server):
    server.script(["429", "500", "503", "drop", "429"])
    backend = get_backend(f"openai:fake-model@{server.url}", concurrency=2, **QUICK)
    results = backend.generate([ask(f"q{i}") for i in range(6)])
    assert all(r[0].finish_reason == "stop" for r in results)
    assert server.answered == 6 and server.requests == 11


def test_stalled_request_times_out_and_is_retried():
    with FakeOpenAIServer(stall_s=5) as server:
        server.script(["stall"])
        backend = get_backend(f"openai:fake-model@{server.url}", timeout_s=0.5, **QUICK)
        started = time.monotonic()
        [[completion]] = backend.generate([ask()])
        assert completion.finish_reason == "stop"
        assert time.monotonic() - started < 4
        assert server.requests == 2


def test_concurrency_bound_is_respected():
    with FakeOpenAIServer(delay_s=0.05) as server:
        backend = get_backend(f"openai:fake-model@{server.url}", concurrency=5)
        backend.generate([ask(f"q{i}") for i in range(40)])
        assert server.max_concurrent == 5


def test_concurrency_bound_holds_while_retrying():
    with FakeOpenAIServer(delay_s=0.02) as server:
        server.script(["500", "429"] * 10)
        backend = get_backend(f"openai:fake-model@{server.url}", concurrency=3, **QUICK)
        results = backend.generate([ask(f"q{i}") for i in range(30)])
        assert len(results) == 30 and server.answered == 30
        assert server.max_concurrent <= 3


def test_several_base_urls_share_the_load():
    with FakeOpenAIServer(delay_s=0.01) as a, FakeOpenAIServer(delay_s=0.01) as b:
        backend = get_backend(f"openai:fake-model@{a.url},{b.url}", concurrency=4)
        backend.generate([ask(f"q{i}") for i in range(20)])
        assert a.answered == 10 and b.answered == 10


def test_a_down_url_is_skipped_by_retrying_on_the_next():
    with FakeOpenAIServer() as good:
        dead = "http://127.0.0.1:9"  # discard port: connection refused
        backend = get_backend(f"openai:fake-model@{dead},{good.url}", concurrency=2, **QUICK)
        results = backend.generate([ask(f"q{i}") for i in range(6)])
        assert all(r[0].finish_reason == "stop" for r in results)


def test_gives_up_with_a_clear_error():
    with FakeOpenAIServer() as server:
        server.script(["500"] * 10)
        backend = get_backend(f"openai:fake-model@{server.url}", max_retries=2, **QUICK)
        with pytest.raises(SebenchError, match=r"gave up after 3 tries.*HTTP 500"):
            backend.generate([ask()])


def test_n_falls_back_to_single_requests():
    with FakeOpenAIServer(n_supported=False) as server:
        backend = get_backend(f"openai:fake-model@{server.url}")
        results = backend.generate([ask(n=3, seed=7), ask(n=2)])
        assert [len(r) for r in results] == [3, 2]
        assert all(c.finish_reason == "stop" for r in results for c in r)
        assert not backend.n_supported
        seeds = sorted(b.get("seed") for b in server.bodies if b.get("seed") is not None)
        assert seeds == [7, 8, 9]  # distinct samples


def test_a_rejected_request_is_recorded_not_fatal(server):
    server.script(["400"])
    backend = get_backend(f"openai:fake-model@{server.url}")
    [[completion]] = backend.generate([ask()])
    assert completion.finish_reason == "error" and "400" in completion.error


def test_refused_key_is_fatal(server):
    server.script(["401"])
    backend = get_backend(f"openai:fake-model@{server.url}")
    with pytest.raises(SebenchError, match="API key"):
        backend.generate([ask()])


def test_api_key_from_environment(server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test")
    get_backend(f"openai:fake-model@{server.url}", api_key_env="MY_KEY").generate([ask()])
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    get_backend(f"openai:fake-model@{server.url}").generate([ask()])
    assert server.authorizations == ["Bearer sk-test", None]
    with pytest.raises(SebenchError, match="NOT_SET"):
        get_backend(f"openai:fake-model@{server.url}", api_key_env="NOT_SET")


def test_reasoning_is_kept_as_think_block():
    with FakeOpenAIServer(reasoning="let me think", answer="```python\nx = 1\n```") as server:
        [[completion]] = get_backend(f"openai:fake-model@{server.url}").generate([ask()])
        assert completion.text == "<think>\nlet me think\n</think>\n```python\nx = 1\n```"
        assert extract_code(completion.text) == "x = 1\n"


def test_context_length_is_asked_of_the_server(server):
    assert get_backend(f"openai:fake-model@{server.url}").context_tokens == 4096
    assert get_backend(f"openai:fake-model@{server.url}", context_tokens=100).context_tokens == 100


def test_stream_yields_as_requests_finish():
    with FakeOpenAIServer() as server:
        server.script(["stall"])  # the first request to arrive stalls until the client times out and retries
        backend = get_backend(f"openai:fake-model@{server.url}", timeout_s=1.0, concurrency=4, **QUICK)
        order = [index for index, _ in backend.generate_stream([ask(f"q{i}") for i in range(4)])]
        [stalled] = [int(body["messages"][-1]["content"][1:]) for body in server.stalled]
        assert sorted(order) == [0, 1, 2, 3] and order[-1] == stalled  # the other three did not wait for it


# ---- text helpers ----
def test_extract_code_takes_the_last_python_block_after_thinking():
    response = "<think>```python\nwrong\n```</think>\nFirst:\n```python\na = 1\n```\nBetter:\n```python\nb = 2\n```\n"
    assert extract_code(response) == "b = 2\n"
    assert extract_code("```\nplain = 1\n```") == "plain = 1\n"
    assert extract_code("```python\ntruncated = 1\n") == "truncated = 1\n"
    assert extract_code("no code here") is None
    assert extract_code("<think>```python\nx\n```") is None  # never left the thinking


def test_cut_at_stop():
    assert cut_at_stop("a\n```python\nx\n```\nmore", None) == ("a\n```python\nx\n```", True)
    assert cut_at_stop("text STOP more", ["STOP"]) == ("text ", True)
    assert cut_at_stop("```python\nx\n", None) == ("```python\nx\n", False)


def test_missing_local_stack_names_the_extra(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake_import(name, *args):
        if name == "sebench.rollout.backends.hf":
            raise ImportError("No module named 'transformers'", name="transformers")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake_import)
    with pytest.raises(SebenchError, match=r"needs transformers.*sebench\[local\]"):
        get_backend("smollm2-135m")


def test_a_server_that_does_not_answer_is_told_at_the_first_failure(caplog):
    """A server not started is named at the first failed request, once, not only after every retry."""
    dead = "http://127.0.0.1:9"  # discard port: connection refused
    backend = get_backend(f"openai:fake-model@{dead}", max_retries=2, concurrency=2, **QUICK)
    with caplog.at_level("WARNING", logger="sebench.rollout.backends.openai"), pytest.raises(SebenchError):
        backend.generate([ask("a"), ask("b")])
    told = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(told) == 1 and dead in told[0] and "is the server running?" in told[0], told

"""The `vllm:` backend: a server of its own for one model, asked through the openai backend and stopped on
close. vLLM's server is stood in for by tests/fake_openai_server.py (the same OpenAI-compatible API)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fake_openai_server import DEFAULT_ANSWER

from sebench.errors import SebenchError
from sebench.rollout.backends import GenerationRequest, get_backend, vllm_served

FAKE_SERVER = Path(__file__).resolve().parents[1] / "fake_openai_server.py"


def test_the_vllm_backend_serves_the_model_answers_through_it_and_stops_it(monkeypatch):
    commands, real = [], vllm_served.serve_command

    def fake_serve(model, port, gpus):
        commands.append(real(model, port, gpus))
        return [sys.executable, str(FAKE_SERVER), "--port", str(port)]

    monkeypatch.setattr(vllm_served, "serve_command", fake_serve)
    backend = get_backend("vllm:/runs/gpu/train/closed-sft/checkpoint", concurrency=2, device="cpu")
    [[completion]] = backend.generate([GenerationRequest(messages=[{"role": "user", "content": "hi"}])])
    assert completion.text == DEFAULT_ANSWER and completion.finish_reason == "stop"
    process = backend.process
    backend.close()
    assert process.poll() is not None  # the GPUs are free for the next training stage
    assert commands[0][1:3] == ["-m", vllm_served.SERVE_MODULE]
    assert commands[0][commands[0].index("--model") + 1] == "/runs/gpu/train/closed-sft/checkpoint"
    assert commands[0][commands[0].index("--data-parallel-size") + 1] == "1"  # one replica a visible GPU


def test_a_server_that_exits_is_one_line_naming_its_log(monkeypatch):
    monkeypatch.setattr(vllm_served, "serve_command", lambda model, port, gpus: [sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(SebenchError, match=r"exited with code 3 before it served; its log: .*\.log$"):
        get_backend("vllm:/nowhere")

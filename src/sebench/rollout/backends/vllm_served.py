"""vLLM for loaded weights: `vllm:<path or hub id>` serves them with vLLM's OpenAI-compatible server on this
machine's GPUs (one replica a GPU: --data-parallel-size), asks it through the openai backend, and stops the
server on close, which frees the GPUs for the next training stage (`sebench run` evaluates trained
checkpoints this way where vLLM is installed: sebench.experiment.launch)."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from sebench.errors import SebenchError
from sebench.rollout.backends import Backend, Completion, GenerationRequest

log = logging.getLogger(__name__)

SERVE_MODULE = "vllm.entrypoints.openai.api_server"  # what `vllm serve` runs


def serve_command(model: str, port: int, gpus: int) -> list[str]:
    """The server's command line: the model under its own name, on 127.0.0.1:`port`, one replica a GPU."""
    return [sys.executable, "-m", SERVE_MODULE, "--model", model, "--served-model-name", model, "--host",
            "127.0.0.1", "--port", str(port), "--data-parallel-size", str(max(1, gpus)), "--generation-config", "vllm"]


def visible_gpus() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 1


class VLLMBackend(Backend):
    """A vLLM server of its own for one model, asked through OpenAIBackend (its options apply)."""

    def __init__(self, argument: str, start_timeout_s: float = 1800.0, **options: Any):
        from sebench.rollout.backends.openai import OpenAIBackend

        port = _free_port()
        handle, name = tempfile.mkstemp(prefix="sebench-vllm-serve-", suffix=".log")
        self.log_path = Path(name)
        self.log_file = os.fdopen(handle, "w", encoding="utf-8")  # closed in close()
        from sebench.parent_death import bound_to_this_process

        # its own session (close() stops the group); it dies with the study even when the study is killed
        self.process = subprocess.Popen(serve_command(argument, port, visible_gpus()), stdout=self.log_file,
                                        stderr=subprocess.STDOUT, start_new_session=True,
                                        preexec_fn=bound_to_this_process())
        url = f"http://127.0.0.1:{port}/v1"
        try:
            self._wait(url, start_timeout_s)
        except BaseException:
            self.close()
            raise
        self.inner = OpenAIBackend(f"{argument}@{url}", **options)
        self.batch_size = self.inner.batch_size

    def _wait(self, url: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SebenchError(f"vLLM's server exited with code {self.process.returncode} before it served; "
                                   f"its log: {self.log_path}")
            try:
                if httpx.get(f"{url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise SebenchError(f"vLLM's server did not answer within {timeout_s:.0f} s; its log: {self.log_path}")

    @property
    def context_tokens(self) -> int | None:  # type: ignore[override]
        return self.inner.context_tokens

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        return self.inner.generate(requests)

    def generate_stream(self, requests: list[GenerationRequest]) -> Iterator[tuple[int, list[Completion]]]:
        return self.inner.generate_stream(requests)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def close(self) -> None:
        inner = getattr(self, "inner", None)
        if inner is not None:
            inner.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

"""Scripted answers for tests: no model, no network.

    fake:                a fixed answer (a python block defining `solve`)
    fake:echo            the last user message, echoed
    fake:file=PATH       answers from a JSON list or a JSONL file of strings, used in turn; or from a JSON
                         object {"answers": {task query: answer}}, by the task asked (else the fixed answer)
    fake:<text>          that text, every time

Options: `responses` (a list of answers used in turn, or a function of the GenerationRequest that
returns one) and `delay_s` (seconds per request). An answer may be a dict {"text", "finish_reason"}
to script a truncated or failed generation.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.rollout.backends import Backend, Completion, GenerationRequest

DEFAULT_ANSWER = "```python\ndef solve():\n    return None\n```"


class FakeBackend(Backend):
    def __init__(
        self,
        argument: str = "",
        responses: list | Callable[[GenerationRequest], Any] | None = None,
        delay_s: float = 0.0,
        context_tokens: int | None = None,
        batch_size: int = 16,
        **_ignored: Any,
    ):
        self.name = f"fake:{argument}"
        self.delay_s = delay_s
        self.context_tokens = context_tokens
        self.batch_size = batch_size
        self.calls: list[GenerationRequest] = []
        self._lock = threading.Lock()
        if responses is None:
            responses = _responses_from_argument(argument)
        self._respond = responses if callable(responses) else _cycle(list(responses))

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        results = []
        for request in requests:
            with self._lock:
                self.calls.append(request)
            if self.delay_s:
                time.sleep(self.delay_s)
            results.append([self._complete(request) for _ in range(request.n)])
        return results

    def _complete(self, request: GenerationRequest) -> Completion:
        answer = self._respond(request)
        if isinstance(answer, dict):
            text, finish = answer.get("text", ""), answer.get("finish_reason", "stop")
        else:
            text, finish = str(answer), "stop"
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in request.messages)
        return Completion(text, finish, prompt_tokens, len(text.split()), seconds=self.delay_s)


def _cycle(answers: list) -> Callable[[GenerationRequest], Any]:
    if not answers:
        raise SebenchError("fake backend: `responses` is empty")
    it, lock = itertools.cycle(answers), threading.Lock()

    def respond(_: GenerationRequest) -> Any:
        with lock:
            return next(it)

    return respond


def _responses_from_argument(argument: str) -> list | Callable[[GenerationRequest], Any]:
    if argument == "":
        return [DEFAULT_ANSWER]
    if argument == "echo":
        return lambda request: next(
            (m["content"] for m in reversed(request.messages) if m.get("role") == "user"), ""
        )
    if argument.startswith("file="):
        path = Path(argument[5:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SebenchError(f"fake backend: cannot read {path} ({exc.strerror})") from None
        try:
            data = parse_json(text, str(path))
        except SebenchError:  # JSON lines, one answer a line
            return [parse_json(line, f"{path}:{n}") for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if isinstance(data, dict) and isinstance(data.get("answers"), dict):
            by_query = data["answers"]
            return lambda request: by_query.get((request.query or "").strip(), DEFAULT_ANSWER)
        return data if isinstance(data, list) else [data]
    return [argument]

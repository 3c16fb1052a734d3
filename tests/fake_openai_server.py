"""A fake OpenAI-compatible server on 127.0.0.1 for tests and benchmarks: real HTTP, scripted trouble.

Test-only, so it lives under tests/ (pytest puts tests/ on sys.path: `from fake_openai_server import ...`).

    with FakeOpenAIServer(delay_s=0.05) as server:        # in a background thread
        server.script(["429", "500", "stall"])          # the next three requests fail, then all succeed
        get_backend(f"openai:m@{server.url}")...
        server.max_concurrent                           # the most requests it ever held at once

    python tests/fake_openai_server.py --port 8001       # stand-alone, e.g. for bench/rollout_speed.py

Serves POST /v1/chat/completions (with `n`, unless n_supported=False, which answers 400 to n > 1) and
GET /v1/models (with vLLM's max_model_len). A minimal HTTP/1.1 with keep-alive over asyncio streams, so
that it is fast enough to measure the client rather than itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

DEFAULT_ANSWER = "Here is the solution.\n```python\ndef solve():\n    return 1\n```"


class FakeOpenAIServer:
    def __init__(
        self,
        port: int = 0,
        delay_s: float = 0.0,
        stall_s: float = 30.0,
        answer: Callable[[dict], str] | str = DEFAULT_ANSWER,
        n_supported: bool = True,
        model: str = "fake-model",
        max_model_len: int = 4096,
        reasoning: str | None = None,
    ):
        self.port = port
        self.delay_s = delay_s
        self.stall_s = stall_s
        self.answer = answer
        self.n_supported = n_supported
        self.model = model
        self.max_model_len = max_model_len
        self.reasoning = reasoning  # served apart as reasoning_content, as vLLM's reasoning parsers do
        self.requests = 0  # chat requests received
        self.answered = 0  # chat requests answered with 200
        self.concurrent = 0
        self.max_concurrent = 0
        self.bodies: list[dict] = []
        self.stalled: list[dict] = []  # the bodies of the requests that a scripted "stall" held
        self.authorizations: list[str | None] = []  # the Authorization header of each chat request
        self._script: deque[str] = deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, events: list[str]) -> None:
        """Queues what the next requests get: "429", "500", "503", "stall", "drop" (close), "ok"."""
        with self._lock:
            self._script.extend(events)

    # ---- running ----
    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._run_thread, name="fake-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake OpenAI server did not start")
        return self

    def _run_thread(self) -> None:
        asyncio.run(self._serve_until_stopped())

    async def _serve_until_stopped(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        await self.listen()
        self._ready.set()
        await self._stopped.wait()
        self._server.close()

    async def listen(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- HTTP ----
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                keep = await self._route(method, path, body, writer, headers)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):  # the peer may be gone
                writer.close()

    async def _route(self, method: str, path: str, raw: bytes, writer: asyncio.StreamWriter, headers: dict) -> bool:
        if method == "GET" and path.rstrip("/").endswith("/models"):
            data = {"object": "list", "data": [{"id": self.model, "object": "model", "max_model_len": self.max_model_len}]}
            return await _send(writer, 200, data)
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            return await _send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
        with self._lock:
            self.requests += 1
            self.authorizations.append(headers.get("authorization"))
            self.concurrent += 1
            self.max_concurrent = max(self.max_concurrent, self.concurrent)
            event = self._script.popleft() if self._script else "ok"
        try:
            return await self._chat(json.loads(raw), event, writer)
        finally:
            with self._lock:
                self.concurrent -= 1

    async def _chat(self, body: dict, event: str, writer: asyncio.StreamWriter) -> bool:
        if event == "stall":
            self.stalled.append(body)
            await asyncio.sleep(self.stall_s)
            return False
        if event == "drop":
            return False
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if event.isdigit():
            return await _send(writer, int(event), {"error": {"message": f"scripted {event}"}}, {"Retry-After": "0"} if event == "429" else None)
        n = int(body.get("n", 1))
        if n > 1 and not self.n_supported:
            return await _send(writer, 400, {"error": {"message": "n > 1 is not supported"}})
        with self._lock:
            self.bodies.append(body)
            self.answered += 1
        return await _send(writer, 200, self._completion(body, n))

    def _completion(self, body: dict, n: int) -> dict:
        text = self.answer(body) if callable(self.answer) else self.answer
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": i, "message": message, "finish_reason": "stop"} for i in range(n)],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n * len(text.split())},
        }


REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}


async def _send(writer: asyncio.StreamWriter, status: int, data: dict, extra: dict | None = None) -> bool:
    payload = json.dumps(data).encode()
    head = f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    for key, value in (extra or {}).items():
        head += f"{key}: {value}\r\n"
    writer.write(head.encode() + b"\r\n" + payload)
    await writer.drain()
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="a fake OpenAI-compatible server on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(port=args.port, delay_s=args.delay)

    async def serve() -> None:
        await server.listen()
        print(f"listening on {server.url}", flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()

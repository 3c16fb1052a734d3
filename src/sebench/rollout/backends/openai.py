"""OpenAI-compatible chat completions over HTTP (vLLM, SGLang, hosted APIs), async and bounded.

Spec: `openai:<model>@<base_url>[,<base_url>...]`, e.g. `openai:Qwen/Qwen3-8B@http://gpu1:8000/v1,http://gpu2:8000/v1`.
Requests go round-robin over the base URLs, at most `concurrency` in flight over all of them. 429, 5xx,
timeouts and dropped connections are retried with exponential backoff and jitter (Retry-After is
honoured), on the next base URL. `n` samples are asked in one request; a server that refuses `n` or
returns fewer choices gets the rest as single requests. The API key comes from an environment variable
(OPENAI_API_KEY unless `api_key_env` names another); local servers need none.

A request that the server rejects as bad (400/413/422, e.g. a prompt over the context) is recorded as a
completion with finish_reason "error"; a server that stays down, or refuses the key or the model, stops
the run with one clear error, and the same command resumes it later.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import os
import queue
import random
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import httpx

from sebench.errors import SebenchError
from sebench.rollout.backends import Backend, Completion, GenerationRequest

log = logging.getLogger(__name__)
logging.getLogger("httpx").setLevel(logging.WARNING)  # it logs every request at INFO

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SHARD_SIZE = 8
RECORDED_ERRORS = (400, 413, 422)  # this request is bad, not the server: record it and go on


class _RequestRejected(Exception):
    def __init__(self, status: int, text: str):
        super().__init__(f"HTTP {status}: {text}")
        self.status = status


def parse_argument(argument: str, base_url: str | None = None) -> tuple[str, list[str]]:
    """"model@url1,url2" -> ("model", ["url1/v1", "url2/v1"]) (a bare host gets /v1). Without "@url" the
    URLs come from `base_url` (--base-url) or $OPENAI_BASE_URL; with neither the spec is refused, so that
    no request goes to a public endpoint by accident (name it, e.g. @https://api.openai.com/v1)."""
    model, sep, urls = argument.rpartition("@")
    if not sep:
        model, urls = argument, base_url or os.environ.get("OPENAI_BASE_URL", "")
        if not urls.strip():
            raise SebenchError(f"openai backend: 'openai:{argument}' names no server; give one as "
                               f"openai:{argument or '<model>'}@http://HOST:8000/v1 (or @{DEFAULT_BASE_URL}), "
                               "or pass --base-url, or set OPENAI_BASE_URL")
    if not model:
        raise SebenchError(f"openai backend: no model name in 'openai:{argument}' (form: openai:<model>@<base_url>)")
    bases = []
    for url in (u.strip() for u in urls.split(",") if u.strip()):
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise SebenchError(f"openai backend: '{url}' is not an http(s) base URL (e.g. http://localhost:8000/v1)")
        url = url.rstrip("/")
        bases.append(url + "/v1" if parsed.path in ("", "/") else url)
    if not bases:
        raise SebenchError(f"openai backend: no base URL in 'openai:{argument}'")
    return model, bases


class OpenAIBackend(Backend):
    def __init__(
        self,
        argument: str,
        concurrency: int = 16,
        api_key_env: str | None = None,
        timeout_s: float = 600.0,
        connect_timeout_s: float = 10.0,
        max_retries: int = 8,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        use_n: bool = True,
        context_tokens: int | None = None,
        base_url: str | None = None,
        keyless: bool = False,
        **_ignored: Any,
    ):
        self.model, self.base_urls = parse_argument(argument, base_url)
        self.concurrency = max(1, int(concurrency))
        self.batch_size = max(self.concurrency * 4, 64)
        self.timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.n_supported = use_n
        self._context_tokens = context_tokens
        self._context_checked = context_tokens is not None
        self._urls = itertools.cycle(self.base_urls)
        self._told_retrying = False  # the first failed request is told at once, not after every retry
        self._ssl: ssl.SSLContext | None = None
        self.headers = {"Content-Type": "application/json"}
        key_env = api_key_env or "OPENAI_API_KEY"
        key = None if keyless else os.environ.get(key_env)  # keyless: a method's server with no key named for it
        if api_key_env and not key:
            raise SebenchError(f"openai backend: the environment variable {api_key_env} (named by --api-key-env) is not set")
        if key:
            self.headers["Authorization"] = f"Bearer {key}"

    # ---- context length (asked of vLLM's /models once, only when a prompt needs it) ----
    @property
    def context_tokens(self) -> int | None:
        if not self._context_checked:
            self._context_checked = True
            self._context_tokens = self._ask_context_tokens()
        return self._context_tokens

    @context_tokens.setter
    def context_tokens(self, value: int | None) -> None:
        self._context_tokens, self._context_checked = value, True

    def _ask_context_tokens(self) -> int | None:
        try:
            reply = httpx.get(f"{self.base_urls[0]}/models", headers=self.headers, timeout=10.0)
            for entry in reply.json().get("data", []):
                if entry.get("id") == self.model and entry.get("max_model_len"):
                    return int(entry["max_model_len"])
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            log.debug("could not ask %s for the context length: %s", self.base_urls[0], exc)
        return None

    def _ssl_context(self) -> ssl.SSLContext:
        """One context for all clients: loading the CA bundle costs ~60 ms a client."""
        if self._ssl is None:
            try:  # the CA bundle that httpx itself would use
                import certifi

                self._ssl = ssl.create_default_context(cafile=certifi.where())
            except ImportError:
                self._ssl = ssl.create_default_context()
        return self._ssl

    # ---- generation ----
    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        results: list[list[Completion]] = [[] for _ in requests]
        for index, completions in self.generate_stream(requests):
            results[index] = completions
        return results

    def generate_stream(self, requests: list[GenerationRequest]) -> Iterator[tuple[int, list[Completion]]]:
        """Runs the requests on an event loop in a helper thread; yields each one as it finishes."""
        if not requests:
            return
        done: queue.Queue = queue.Queue()
        stop = threading.Event()
        state: dict[str, Any] = {}

        def runner() -> None:
            try:
                asyncio.run(self._run_all(requests, done, state, stop))
            except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread
                done.put(exc)

        thread = threading.Thread(target=runner, name="openai-backend", daemon=True)
        thread.start()
        try:
            for _ in range(len(requests)):
                item = done.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            loop, main = state.get("loop"), state.get("main")
            if loop is not None and main is not None and not main.done():
                loop.call_soon_threadsafe(main.cancel)
            thread.join(timeout=30)

    async def _run_all(self, requests: list[GenerationRequest], done: queue.Queue, state: dict, stop: threading.Event) -> None:
        state["loop"], state["main"] = asyncio.get_running_loop(), asyncio.current_task()
        # httpcore's pool scans all its connections for every request, so one pool of 64 costs more CPU
        # than the request itself; shards of SHARD_SIZE connections, each held by as many slots, keep
        # the scans short and never queue inside a pool.
        shards = [
            httpx.AsyncClient(
                timeout=self.timeout,
                limits=httpx.Limits(max_connections=SHARD_SIZE, max_keepalive_connections=SHARD_SIZE),
                headers=self.headers,
                verify=self._ssl_context(),
            )
            for _ in range((self.concurrency + SHARD_SIZE - 1) // SHARD_SIZE)
        ]
        slots: asyncio.Queue = asyncio.Queue()
        for i in range(self.concurrency):
            slots.put_nowait(shards[i % len(shards)])

        async def one(index: int, request: GenerationRequest) -> None:
            completions = await self._complete(slots, request)
            done.put((index, completions))

        tasks = [asyncio.create_task(one(i, r)) for i, r in enumerate(requests)]
        try:
            for finished in asyncio.as_completed(tasks):
                await finished  # the first failure stops the batch
                if stop.is_set():
                    break
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(client.aclose() for client in shards), return_exceptions=True)

    async def _complete(self, slots: asyncio.Queue, request: GenerationRequest) -> list[Completion]:
        started = time.perf_counter()
        completions = await self._complete_untimed(slots, request)
        seconds = time.perf_counter() - started
        return [dataclasses.replace(c, seconds=seconds) for c in completions]

    async def _complete_untimed(self, slots: asyncio.Queue, request: GenerationRequest) -> list[Completion]:
        completions: list[Completion] = []
        if request.n > 1 and self.n_supported:
            try:
                completions = await self._post(slots, request, request.n)
            except _RequestRejected as exc:
                log.warning("the server refused n=%d (%s); asking for the samples one by one", request.n, exc)
                self.n_supported = False
        missing = request.n - len(completions)
        if missing > 0:
            parts = await asyncio.gather(
                *(self._post_or_record(slots, request, 1, offset=len(completions) + j) for j in range(missing))
            )
            completions += [c for part in parts for c in part]
        return completions[: request.n]

    async def _post_or_record(self, slots: asyncio.Queue, request: GenerationRequest, n: int, offset: int = 0) -> list[Completion]:
        try:
            return await self._post(slots, request, n, offset)
        except _RequestRejected as exc:
            return [Completion("", "error", 0, 0, error=str(exc))]

    def _body(self, request: GenerationRequest, n: int, offset: int) -> dict:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_tokens,
        }
        if n > 1:
            body["n"] = n
        if request.seed is not None:
            body["seed"] = request.seed + offset  # distinct samples when asked one by one
        if request.stop:
            body["stop"] = request.stop
        if request.thinking is not None:  # vLLM's and SGLang's way to reach the chat template
            body["chat_template_kwargs"] = {"enable_thinking": request.thinking}
        return body

    async def _post(self, slots: asyncio.Queue, request: GenerationRequest, n: int, offset: int = 0) -> list[Completion]:
        body = self._body(request, n, offset)
        problem = ""
        for attempt in range(self.max_retries + 1):
            base = next(self._urls)
            retry_after = None
            client = await slots.get()  # at most `concurrency` requests in flight
            try:
                reply = await client.post(f"{base}/chat/completions", json=body)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                problem = f"{base}: {type(exc).__name__} {exc}".strip()
            else:
                if reply.status_code == 200:
                    return _parse_reply(reply, base)
                problem = f"{base}: HTTP {reply.status_code} {reply.text[:200]}"
                if reply.status_code in RECORDED_ERRORS:
                    raise _RequestRejected(reply.status_code, reply.text[:500])
                if reply.status_code != 429 and reply.status_code < 500:
                    raise SebenchError(_fatal_message(reply.status_code, base, self.model, reply.text))
                retry_after = _retry_after(reply)
            finally:
                slots.put_nowait(client)  # the slot is free while backing off
            if attempt < self.max_retries:
                delay = retry_after if retry_after is not None else self._backoff(attempt)
                if not self._told_retrying:
                    self._told_retrying = True
                    log.warning("%s; retrying up to %d times (is the server running?)", problem, self.max_retries)
                log.debug("retrying in %.2f s after %s", delay, problem)
                await asyncio.sleep(delay)
        raise SebenchError(
            f"openai backend: gave up after {self.max_retries + 1} tries; last: {problem}. "
            "Records so far are saved; run the same command again to resume"
        )

    def _backoff(self, attempt: int) -> float:
        return min(self.max_backoff_s, self.backoff_s * 2**attempt) * (0.5 + random.random() / 2)


def _retry_after(reply: httpx.Response) -> float | None:
    try:
        return min(60.0, max(0.0, float(reply.headers["retry-after"])))
    except (KeyError, ValueError):
        return None


def _fatal_message(status: int, base: str, model: str, text: str) -> str:
    why = {
        401: "the API key was refused; set OPENAI_API_KEY or name the variable with --api-key-env",
        403: "access denied; check the API key and its permissions",
        404: f"not found; check the base URL (usually ends with /v1) and that the server serves '{model}'",
    }.get(status, text[:200])
    return f"openai backend: {base}: HTTP {status}: {why}"


def _parse_reply(reply: httpx.Response, base: str) -> list[Completion]:
    try:
        data = reply.json()
        choices = sorted(data["choices"], key=lambda c: c.get("index", 0))
    except (ValueError, KeyError, TypeError):
        raise SebenchError(f"openai backend: {base}: the reply is not a chat completion: {reply.text[:200]}") from None
    usage = data.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_total = int(usage.get("completion_tokens") or 0)
    per_choice = completion_total // max(1, len(choices))
    completions = []
    for choice in choices:
        message = choice.get("message") or {}
        text = message.get("content") or ""
        # vLLM/SGLang reasoning parsers serve the thinking apart; keep it, in the model's own form
        thinking = message.get("reasoning_content") or message.get("reasoning")
        if thinking:
            text = f"<think>\n{thinking}\n</think>\n{text}"
        finish = choice.get("finish_reason") or "unknown"
        completions.append(Completion(text, finish, prompt_tokens, per_choice))
    return completions

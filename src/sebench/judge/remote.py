"""The client of `sebench sandbox serve`: `Judge(..., sandbox_urls=[...])` judges on these servers.

Records travel in the tagged encoding of sebench.values, so tasks whose expected outputs hold NaN,
infinities or complex numbers are judged exactly as locally. Before the first batch every server's
/health is read: a malformed URL, a server of another instance, or no server answering at all is a
SebenchError (one line), never a run of `judge_error` verdicts. Work goes out in chunks spread over the
servers; a chunk that fails on one server is tried on the others, then item by item (so one bad item
cannot sink its neighbours); only an item that no server could judge gets `judge_error`, with the reasons.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from sebench import values
from sebench.errors import SebenchError
from sebench.judge.verdict import make_verdict
from sebench.records import Task, Verdict, from_dict

log = logging.getLogger(__name__)
logging.getLogger("httpx").setLevel(logging.WARNING)  # it logs every request at INFO

CHUNK = 16
HEALTH_TIMEOUT_S = 15.0


class _Refused(Exception):
    """One server could not judge one request (the reason is the message)."""


class RemotePool:
    """judge_many over several sandbox servers, in input order; `timeout_s` per program (servers may cap it)."""

    def __init__(self, urls: list[str], identity: dict, timeout_s: float = 3.0, request_timeout_s: float = 600.0):
        import httpx

        self.urls = [_check_url(u) for u in urls]
        self.identity = identity
        self.timeout_s = float(timeout_s)
        self.client = httpx.Client(timeout=httpx.Timeout(request_timeout_s, connect=10.0))
        self._next = itertools.count()
        self._lock = threading.Lock()
        self._live: list[str] | None = None
        self._pool = ThreadPoolExecutor(max(2, 2 * len(self.urls)), thread_name_prefix="sebench-remote")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.client.close()

    def judge_many(self, items: list[tuple[Task, str, int]]) -> list[Verdict]:
        servers = self._servers()
        chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
        results = self._pool.map(lambda chunk: self._judge_chunk(chunk, servers), chunks)
        return [v for chunk in results for v in chunk]

    # ---------------------------------------------------------------------------------- servers
    def _servers(self) -> list[str]:
        """The servers that answer /health for this instance (checked once); SebenchError if none."""
        with self._lock:
            if self._live is None:
                live, failed = [], []
                for url in self.urls:
                    try:
                        self._health(url)
                        live.append(url)
                    except _Refused as exc:
                        failed.append(f"{url}: {exc}")
                if not live:
                    raise SebenchError("no sandbox server answered: " + "; ".join(failed)
                                       + " (start one with `sebench sandbox serve --data DIR`)")
                for reason in failed:
                    log.warning("sandbox server left out: %s", reason)
                self._live = live
            return self._live

    def _health(self, url: str) -> None:
        import httpx

        try:
            resp = self.client.get(f"{url}/health", timeout=HEALTH_TIMEOUT_S)
            health = values.loads(resp.content) if resp.status_code == 200 else None
        except (httpx.HTTPError, values.CodecError) as exc:
            raise _Refused(f"{type(exc).__name__}: {exc}") from None
        if not (isinstance(health, dict) and health.get("ok")):
            raise _Refused(f"not a sandbox server (GET /health: HTTP {resp.status_code})")
        served = {"package": health.get("package"), "seed": health.get("seed")}
        if served != self.identity:
            raise SebenchError(f"{url} serves {served}, not this instance {self.identity}; start it with --data "
                               "pointing to this instance")
        cap = health.get("max_timeout")
        if isinstance(cap, (int, float)) and cap < self.timeout_s:
            log.warning("%s runs programs at most %g s (asked for %g s): timeouts may differ from local judging",
                        url, cap, self.timeout_s)

    # ---------------------------------------------------------------------------------- judging
    def _judge_chunk(self, chunk: list[tuple[Task, str, int]], servers: list[str]) -> list[Verdict]:
        start = next(self._next)
        order = [servers[(start + k) % len(servers)] for k in range(len(servers))]
        errors = []
        for url in order:
            try:
                return self._post(url, chunk)
            except _Refused as exc:
                errors.append(f"{url}: {exc}")
        if len(chunk) > 1:
            log.warning("a chunk of %d items failed on every server (%s); retrying item by item", len(chunk),
                        "; ".join(errors)[:300])
            return [v for item in chunk for v in self._judge_chunk([item], servers)]
        task, _response, sample_idx = chunk[0]
        message = "no sandbox server could judge it: " + "; ".join(errors)
        log.warning("%s/%s: %s", task.task_id, sample_idx, message[:300])
        return [make_verdict(task, sample_idx, "judge_error", 0, message=message[:500])]

    def _post(self, url: str, chunk: list[tuple[Task, str, int]]) -> list[Verdict]:
        import httpx

        records = [{"task": dataclasses.asdict(t), "response": r, "sample_idx": s} for t, r, s in chunk]
        try:
            body = values.dumps({"package": self.identity, "timeout": self.timeout_s, "records": records})
        except values.CodecError as exc:
            raise _Refused(f"cannot send the task: {exc}") from None
        try:
            resp = self.client.post(f"{url}/judge", content=body.encode(),
                                    headers={"Content-Type": "application/json"})
        except httpx.HTTPError as exc:
            raise _Refused(f"{type(exc).__name__}: {exc}") from None
        if resp.status_code == 409:
            raise SebenchError(f"{url}: {resp.text[:300]}; start it with --data pointing to this instance")
        if resp.status_code != 200:
            raise _Refused(f"HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            verdicts = values.loads(resp.content)["verdicts"]
            if not isinstance(verdicts, list) or len(verdicts) != len(chunk):
                raise ValueError(f"{len(chunk)} verdicts expected")
            return [from_dict(Verdict, v, f"{url}/judge") for v in verdicts]
        except (ValueError, KeyError, TypeError, SebenchError) as exc:
            raise _Refused(f"a malformed answer: {exc}") from None


def _check_url(url: str) -> str:
    import httpx

    text = str(url).strip().rstrip("/")
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise SebenchError(f"--sandbox-url {url!r}: not a URL ({exc}); expected e.g. http://host:8111") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise SebenchError(f"--sandbox-url {url!r}: expected an http(s) URL with a host, e.g. http://host:8111")
    return text

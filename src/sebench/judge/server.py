"""`sebench sandbox serve`: the sandbox over HTTP, so judges and RL rewards can run on other machines.

API (JSON bodies):
- POST /run {"code": str, "timeout"?: float} -> {"stdout": str, "stderr": str}, the original benchmark's
  API: the program runs as a script; a failure's traceback (or the reason it was stopped) is in stderr.
- POST /judge {"records": [{"task": {Task fields} | "task_id": str, "response": str, "sample_idx": int}],
  "package"?: {"package": name, "seed": N}} -> {"verdicts": [{Verdict fields}, ...]} (input order).
  The identity, when given, must match the served instance (409 otherwise).
- GET /health -> {"ok": true, "package": name, "seed": N, "layers": [...], "workers": N}.

`RemotePool` is the client side: `Judge(..., sandbox_urls=[...])` spreads chunks of items over the
servers, moving a chunk to another server when one fails; items no server could judge get `judge_error`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, Verdict, from_dict, to_dict

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024 * 1024
CHUNK = 16


class SandboxServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], judge):
        super().__init__(address, _Handler)
        self.judge = judge
        self.tasks = {t.task_id: t for t in judge.instance.all_tasks()} if _has_tasks(judge.instance) else {}


def _has_tasks(instance: Instance) -> bool:
    try:
        instance.all_tasks()
        return True
    except SebenchError:
        return False


class _Handler(BaseHTTPRequestHandler):
    server: SandboxServer
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args) -> None:
        log.debug("%s " + fmt, self.address_string(), *args)

    def _send(self, code: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > MAX_BODY:
            raise ValueError("a JSON body of at most 64 MiB is required")
        data = json.loads(self.rfile.read(length))
        if not isinstance(data, dict):
            raise ValueError("the body must be a JSON object")
        return data

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") == "/health":
            judge = self.server.judge
            sandbox = judge.sandbox
            self._send(200, {"ok": True, **judge.package_identity(), "layers": list(sandbox.layers),
                             "workers": judge.workers})
        else:
            self._send(404, {"error": f"no such endpoint: GET {self.path}"})

    def do_POST(self) -> None:  # noqa: N802
        try:
            body = self._body()
            if self.path.rstrip("/") == "/run":
                self._send(200, self._run(body))
            elif self.path.rstrip("/") == "/judge":
                self._judge(body)
            else:
                self._send(404, {"error": f"no such endpoint: POST {self.path}"})
        except (ValueError, KeyError, TypeError, SebenchError) as exc:
            self._send(400, {"error": f"{type(exc).__name__}: {exc}"})

    def _run(self, body: dict) -> dict:
        code = body["code"]
        if not isinstance(code, str):
            raise ValueError("'code' must be a string")
        judge = self.server.judge
        timeout = float(body.get("timeout", judge.timeout_s))
        result = judge.sandbox.run(code, "", [], min(timeout, 60.0))
        stderr = result.stderr
        if result.status != "ok" and not stderr:
            stderr = result.error or result.status
        return {"stdout": result.stdout, "stderr": stderr}

    def _judge(self, body: dict) -> None:
        judge = self.server.judge
        identity = body.get("package")
        if identity and identity != judge.package_identity():
            self._send(409, {"error": f"this server serves {judge.package_identity()}, not {identity}"})
            return
        records = body.get("records")
        if not isinstance(records, list):
            raise ValueError("'records' must be a list")
        items = []
        for i, rec in enumerate(records):
            if "task" in rec:
                task = from_dict(Task, rec["task"], f"records[{i}].task")
            elif rec.get("task_id") in self.server.tasks:
                task = self.server.tasks[rec["task_id"]]
            else:
                raise ValueError(f"records[{i}]: give 'task' (a Task record) or a known 'task_id'")
            items.append((task, str(rec.get("response") or ""), int(rec.get("sample_idx", 0))))
        verdicts = judge.judge_many(items)
        self._send(200, {"verdicts": [to_dict(v) for v in verdicts]})


def serve(data: Path, host: str = "127.0.0.1", port: int = 8111, workers: int | None = None,
          timeout_s: float = 3.0, bwrap: bool | None = None, ready=None) -> None:
    """Serves until interrupted. `ready(server)` is called once listening (tests use it to learn the port)."""
    from sebench.judge.core import Judge

    with Judge(data, workers=workers, timeout_s=timeout_s, bwrap=bwrap) as judge:
        judge.sandbox  # start the zygote before accepting requests
        server = SandboxServer((host, port), judge)
        log.info("sandbox server on http://%s:%d (package %s, %d workers)", host, server.server_address[1],
                 judge.rules.package, judge.workers)
        if ready:
            ready(server)
        try:
            server.serve_forever(poll_interval=0.2)
        finally:
            server.server_close()


class RemotePool:
    """Client for several sandbox servers: judge_many over all of them, in input order."""

    def __init__(self, urls: list[str], identity: dict, timeout_s: float = 600.0):
        import httpx

        self.urls = [u.rstrip("/") for u in urls]
        self.identity = identity
        self.client = httpx.Client(timeout=timeout_s)
        self._next = itertools.count()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max(2, 2 * len(self.urls)), thread_name_prefix="sebench-remote")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.client.close()

    def judge_many(self, items: list[tuple[Task, str, int]]) -> list[Verdict]:
        chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
        results = self._pool.map(self._judge_chunk, chunks)
        return [v for chunk in results for v in chunk]

    def _judge_chunk(self, chunk: list[tuple[Task, str, int]]) -> list[Verdict]:
        body = {"package": self.identity,
                "records": [{"task": dataclasses.asdict(t), "response": r, "sample_idx": s} for t, r, s in chunk]}
        start = next(self._next)
        errors = []
        for k in range(len(self.urls)):
            url = self.urls[(start + k) % len(self.urls)]
            try:
                resp = self.client.post(f"{url}/judge", json=body)
            except Exception as exc:  # noqa: BLE001 - try the next server
                errors.append(f"{url}: {type(exc).__name__}: {exc}")
                continue
            if resp.status_code == 409:
                raise SebenchError(f"{url}: {resp.json().get('error')}; start it with --data pointing to this "
                                   "instance")
            if resp.status_code != 200:
                errors.append(f"{url}: HTTP {resp.status_code}: {resp.text[:200]}")
                continue
            return [from_dict(Verdict, v, f"{url}/judge") for v in resp.json()["verdicts"]]
        log.warning("no sandbox server could judge %d items: %s", len(chunk), "; ".join(errors))
        from sebench.judge.core import _verdict

        return [_verdict(t, s, "judge_error", 0, message="no sandbox server answered: " + "; ".join(errors)[:500])
                for t, _r, s in chunk]

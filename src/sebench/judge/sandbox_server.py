"""`sebench sandbox serve`: the sandbox over HTTP, so judges and RL rewards can run on other machines.

API (JSON bodies in the tagged encoding of sebench.values, so NaN, infinities and complex numbers survive;
every error is a JSON {"error": message} with a 4xx/5xx status):
- POST /run {"code": str, "timeout"?: float} -> {"stdout": str, "stderr": str}, the original benchmark's
  API: the program runs as a script; a failure's traceback (or the reason it was stopped) is in stderr.
- POST /judge {"records": [{"task": {Task fields} | "task_id": str, "response": str, "sample_idx": int}],
  "package"?: {"package": name, "seed": N}, "timeout"?: float} -> {"verdicts": [{Verdict fields}, ...]}
  (input order). The identity, when given, must match the served instance (409 otherwise).
- GET /health -> {"ok": true, "package": name, "seed": N, "protocol": "sebench" | "original", "layers": [...],
  "workers": N, "timeout": s, "max_timeout": s, "busy": programs running now}.

Limits (ServerLimits): a program runs at most `max_timeout_s` whatever the client asks; a request must
arrive whole within `read_timeout_s` and hold at most `max_body` bytes; at most `max_connections` at
once. Programs share the sandbox fairly (server_fairness.FairSlots) and are killed when their client hangs up
(server_fairness.ConnectionWatch). New endpoints are functions `(handler, body) -> answer` in ROUTES.
"""

from __future__ import annotations

import errno
import logging
import math
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sebench import values
from sebench.errors import SebenchError
from sebench.judge.server_fairness import ConnectionWatch, FairSlots
from sebench.records import Task, from_dict, to_dict

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerLimits:
    timeout_s: float = 3.0  # per program, when the client does not say
    max_timeout_s: float = 10.0  # per program, whatever the client asks
    read_timeout_s: float = 30.0  # to receive one request's headers and body
    max_body: int = 16 * 1024 * 1024  # bytes
    max_records: int = 4096  # per /judge request
    max_connections: int = 256

    def __post_init__(self) -> None:
        for name in ("timeout_s", "max_timeout_s", "read_timeout_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise SebenchError(f"{name.replace('_s', '').replace('_', '-')} must be a positive number of "
                                   f"seconds, not {value!r}")
        if self.timeout_s > self.max_timeout_s:
            raise SebenchError(f"the default time per program ({self.timeout_s} s) is above the maximum "
                               f"({self.max_timeout_s} s)")

    def program_time(self, asked: Any) -> float:
        """The time a program gets: what the client asked (a positive number), at most max_timeout_s."""
        if asked is None:
            return self.timeout_s
        if isinstance(asked, bool) or not isinstance(asked, (int, float)) or not asked > 0:
            raise _HttpError(400, f"'timeout' must be a positive number of seconds, not {asked!r}")
        return min(float(asked), self.max_timeout_s)


class _HttpError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _ClientGone(Exception):
    """The client hung up: nobody is left to answer."""


class SandboxServer(ThreadingHTTPServer):
    """Listens at once (a busy port fails before the sandbox starts); serves once `attach`ed to a Judge."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], limits: ServerLimits):
        self.limits = limits
        self.judge = None
        self.original = False  # protocol "original" (see serve)
        self.tasks: dict[str, Task] = {}
        self.watch: ConnectionWatch | None = None
        self._connections = 0
        self._count_lock = threading.Lock()
        super().__init__(address, _Handler)

    def attach(self, judge) -> None:
        """Serves `judge` (its sandbox started): fair slots, the worker pool and the connection watch."""
        self.judge = judge
        try:
            self.tasks = {t.task_id: t for t in judge.instance.all_tasks()}
        except SebenchError:
            self.tasks = {}
        self.slots = FairSlots(judge.workers, judge.workers - 1)
        self.pool = ThreadPoolExecutor(judge.workers, thread_name_prefix="sebench-serve")
        self.watch = ConnectionWatch()

    def server_close(self) -> None:
        super().server_close()
        if self.watch:
            self.watch.stop()
            self.pool.shutdown(wait=False, cancel_futures=True)

    def process_request(self, request, client_address) -> None:
        with self._count_lock:
            full = self._connections >= self.limits.max_connections
            if not full:
                self._connections += 1
        if full:
            _refuse_busy(request)
            super().shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._count_lock:
                self._connections -= 1

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        log.debug("connection from %s ended: %s: %s", client_address, type(exc).__name__, exc)


def _refuse_busy(conn: socket.socket) -> None:
    """A 503 answer for a connection over the limit, without starting a thread for it."""
    body = values.dumps({"error": "too many connections; try again shortly"}).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    try:
        conn.settimeout(1.0)
        conn.sendall(head + body)
    except OSError:
        pass


class _Handler(BaseHTTPRequestHandler):
    server: SandboxServer
    protocol_version = "HTTP/1.1"
    server_version = "sebench-sandbox"

    def setup(self) -> None:
        self.timeout = self.server.limits.read_timeout_s  # applied to the socket by StreamRequestHandler
        super().setup()

    def log_message(self, fmt: str, *args) -> None:
        log.debug("%s " + fmt, self.address_string(), *args)

    def handle_one_request(self) -> None:
        self.started = time.monotonic()
        self.connection.settimeout(self.server.limits.read_timeout_s)
        # past this deadline the watch closes the connection (a body that stalls gets a 408 from _read_body
        # before; one that trickles in byte by byte is cut off here)
        self.server.watch.reading(self.connection, self.started + self.server.limits.read_timeout_s + 2.0)
        try:
            super().handle_one_request()
        finally:
            self.server.watch.forget(self.connection)

    def parse_request(self) -> bool:
        try:
            return super().parse_request()
        except TimeoutError:  # headers that stop halfway
            self.send_error(408, f"the request did not arrive within {self.server.limits.read_timeout_s:g} s")
            return False

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed request lines and headers (found by http.server) get a JSON answer too."""
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # a status line and headers even for a request line that is garbage
        self._send(code, {"error": message or self.responses.get(code, ("error",))[0]})

    def _send(self, status: int, payload: dict) -> None:
        try:
            body = values.dumps(payload).encode()
        except (values.CodecError, ValueError) as exc:
            status, body = 500, values.dumps({"error": f"cannot encode the answer: {exc}"}).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") == "/health":
            judge, limits = self.server.judge, self.server.limits
            self._send(200, {"ok": True, **judge.package_identity(),
                             "protocol": "original" if self.server.original else "sebench",
                             "layers": list(judge.sandbox.layers),
                             "workers": judge.workers, "timeout": limits.timeout_s,
                             "max_timeout": limits.max_timeout_s, "busy": self.server.slots.busy})
        else:
            self._send(404, {"error": f"no such endpoint: GET {self.path}"})

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        try:
            route = ROUTES.get(path)
            if route is None:
                self.close_connection = True  # the body is not read
                raise _HttpError(404, f"no such endpoint: POST {path}")
            body = self._read_json()
            self.cancel = threading.Event()
            self.server.watch.running(self.connection, self.cancel)
            answer = route(self, body)
            if self.cancel.is_set():
                raise _ClientGone()
            self._send(200, answer)
        except _HttpError as exc:
            self._send(exc.status, {"error": str(exc)})
        except (ValueError, TypeError, KeyError, SebenchError) as exc:
            self._send(400, {"error": f"{type(exc).__name__}: {exc}"})
        except _ClientGone:
            self.close_connection = True
        except Exception as exc:  # noqa: BLE001 - one line in the log and a 500, never a dropped request
            log.error("POST %s failed: %s: %s", path, type(exc).__name__, exc)
            self._send(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def _read_json(self) -> dict:
        data = self._read_body()
        try:
            body = values.loads(data)
        except values.CodecError as exc:
            raise _HttpError(400, f"the body is not valid JSON: {exc}") from None
        if not isinstance(body, dict):
            raise _HttpError(400, "the body must be a JSON object")
        return body

    def _read_body(self) -> bytes:
        limits = self.server.limits
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise _HttpError(411, "send the body with a Content-Length (no Transfer-Encoding)")
        raw = self.headers.get("Content-Length")
        if raw is None or not re.fullmatch(r"[0-9]{1,20}", raw.strip()):
            self.close_connection = True
            raise _HttpError(411 if raw is None else 400, f"a Content-Length is required (got {raw!r})")
        length = int(raw)
        if length > limits.max_body:
            self.close_connection = True
            raise _HttpError(413, f"the body is {length} bytes; at most {limits.max_body} are accepted")
        deadline = self.started + limits.read_timeout_s
        parts, left = [], length
        while left:
            try:
                # data already here is always read (a busy server is no reason for a 408); a body still
                # trickling in after the deadline is cut off by the connection watch
                self.connection.settimeout(max(deadline - time.monotonic(), 0.5))
                chunk = self.rfile.read1(min(left, 1 << 16))
            except TimeoutError:
                self.close_connection = True
                raise _HttpError(408, f"the request did not arrive within {limits.read_timeout_s:g} s") from None
            except OSError:
                self.close_connection = True
                raise _ClientGone() from None
            if not chunk:
                self.close_connection = True
                raise _ClientGone()
            parts.append(chunk)
            left -= len(chunk)
        self.connection.settimeout(limits.read_timeout_s)  # for writing the answer
        return b"".join(parts)

    # ------------------------------------------------------------------------------ running programs
    def run_program(self, code: str, timeout_s: float):
        """Runs `code` as a script in the sandbox (a fair slot, killed if the client leaves): a RunResult."""
        slots, long = self.server.slots, timeout_s > self.server.limits.timeout_s
        if not slots.acquire(self, long, self.cancel):
            raise _ClientGone()
        try:
            return self.server.judge.sandbox.run(code, "", [], timeout_s, cancel=self.cancel)
        finally:
            slots.release(self, long)

    def judge_items(self, items: list[tuple[Task, str, int]], timeout_s: float) -> list:
        """Verdicts for (task, response, sample_idx) items, each program in a fair slot, in input order."""
        slots, long, judge = self.server.slots, timeout_s > self.server.limits.timeout_s, self.server.judge

        def one(item):
            try:
                return judge.judge_local(*item, timeout_s=timeout_s, cancel=self.cancel)
            finally:
                slots.release(self, long)

        futures = []
        for item in items:
            if not slots.acquire(self, long, self.cancel):
                break
            futures.append(self.server.pool.submit(one, item))
        verdicts = [f.result() for f in futures]
        if len(verdicts) < len(items):
            raise _ClientGone()
        return verdicts


def _run(handler: _Handler, body: dict) -> dict:
    code = body.get("code")
    if not isinstance(code, str):
        raise _HttpError(400, "'code' must be a string")
    result = handler.run_program(code, handler.server.limits.program_time(body.get("timeout")))
    if result.status == "timeout" and handler.server.original:
        return {"stdout": "", "stderr": "TLE"}  # the original server's answer to a program out of time
    stderr = result.stderr
    if result.status != "ok" and not stderr:
        stderr = result.error or result.status
    return {"stdout": result.stdout, "stderr": stderr}


def _judge(handler: _Handler, body: dict) -> dict:
    judge = handler.server.judge
    identity = body.get("package")
    if identity is not None and identity != judge.package_identity():
        raise _HttpError(409, f"this server serves {judge.package_identity()}, not {identity}")
    timeout_s = handler.server.limits.program_time(body.get("timeout"))
    records = body.get("records")
    if not isinstance(records, list):
        raise _HttpError(400, "'records' must be a list")
    if len(records) > handler.server.limits.max_records:
        raise _HttpError(413, f"{len(records)} records; at most {handler.server.limits.max_records} per request")
    items = [_item(rec, f"records[{i}]", handler.server.tasks) for i, rec in enumerate(records)]
    return {"verdicts": [to_dict(v) for v in handler.judge_items(items, timeout_s)]}


def _item(rec: Any, where: str, tasks: dict[str, Task]) -> tuple[Task, str, int]:
    if not isinstance(rec, dict):
        raise _HttpError(400, f"{where}: expected an object with 'task' or 'task_id', 'response', 'sample_idx'")
    if "task" in rec:
        task = _task(rec["task"], f"{where}.task")
    elif isinstance(rec.get("task_id"), str) and rec["task_id"] in tasks:
        task = tasks[rec["task_id"]]
    else:
        raise _HttpError(400, f"{where}: give 'task' (a Task record) or a 'task_id' this server knows")
    response, sample_idx = rec.get("response") or "", rec.get("sample_idx", 0)
    if not isinstance(response, str):
        raise _HttpError(400, f"{where}.response: expected a string")
    if isinstance(sample_idx, bool) or not isinstance(sample_idx, int):
        raise _HttpError(400, f"{where}.sample_idx: expected an integer")
    return task, response, sample_idx


def _task(data: Any, where: str) -> Task:
    """A Task from a request, its nested fields checked too (the judge reads them without checks)."""
    task = from_dict(Task, data, where)
    if task.entry_point and not task.entry_point.isidentifier():
        raise _HttpError(400, f"{where}.entry_point: expected a function name")
    if not all(isinstance(s, str) for s in task.selected_functions):
        raise _HttpError(400, f"{where}.selected_functions: expected a list of strings")
    for i, case in enumerate(task.test_cases):
        if not (isinstance(case, str) or (isinstance(case, dict) and isinstance(case.get("input", ""), str))):
            raise _HttpError(400, f"{where}.test_cases[{i}]: expected {{\"input\": str, \"output\": str}}")
    return task


ROUTES: dict[str, Callable[[_Handler, dict], dict]] = {"/run": _run, "/judge": _judge}


def serve(data: Path, host: str = "127.0.0.1", port: int = 8111, workers: int | None = None,
          timeout_s: float = 3.0, bwrap: bool | None = None, ready=None, *, max_timeout_s: float = 10.0,
          read_timeout_s: float = 30.0, max_body: int = ServerLimits.max_body, protocol: str = "sebench") -> None:
    """Serves until interrupted. `ready(server)` is called once listening (tests use it to learn the port).

    protocol "original": programs see the package as the original benchmark's (its printing included),
    /judge uses the original's rules, and a program stopped at its time limit answers as the original's
    server did: no output, stderr "TLE"."""
    from sebench.judge.core import Judge
    from sebench.judge.original import OriginalJudge
    from sebench.protocols import get as get_protocol

    original = get_protocol(protocol).judge == "original"
    limits = ServerLimits(timeout_s, max_timeout_s, read_timeout_s, max_body)
    server = _listen(host, port, limits)
    server.original = original
    try:
        judge_class = OriginalJudge if original else Judge
        with judge_class(data, workers=workers, timeout_s=timeout_s, bwrap=bwrap) as judge:
            judge.sandbox  # noqa: B018 - starts the zygote before accepting requests
            server.attach(judge)
            log.info("sandbox server on http://%s:%d (package %s, %d workers, programs at most %g s, protocol %s)",
                     host, server.server_address[1], judge.package_identity()["package"], judge.workers,
                     limits.max_timeout_s, protocol)
            if ready:
                ready(server)
            try:
                server.serve_forever(poll_interval=0.2)
            except KeyboardInterrupt:
                log.info("sandbox server stopped")
    finally:
        server.server_close()


def _listen(host: str, port: int, limits: ServerLimits) -> SandboxServer:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise SebenchError(f"--port {port}: a port is a number from 0 to 65535 (0: any free port)")
    try:
        return SandboxServer((host, port), limits)
    except socket.gaierror as exc:
        raise SebenchError(f"--host {host!r}: not an address of this machine ({exc.strerror})") from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise SebenchError(f"{host}:{port} is already in use; pick another --port (or stop the server "
                               "that holds it)") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise SebenchError(f"--host {host}: not an address of this machine; use 127.0.0.1 or 0.0.0.0") from None
        if exc.errno == errno.EACCES:
            raise SebenchError(f"{host}:{port}: permission denied (ports below 1024 need root); pick "
                               "another --port") from None
        raise SebenchError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None

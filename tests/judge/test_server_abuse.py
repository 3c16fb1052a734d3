"""The sandbox server under abuse: malformed and slow requests, greedy and vanishing clients, load, bad ports.

No wall-clock thresholds: each well-formed request must get its right answer before its client gives up,
and the limits asked for (up to 1e9 s) are far above the clients' own patience, so an answer can only
arrive in time if the server capped the program.
"""

import json
import select
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from sebench.cli import main

from .conftest import fenced, make_task, write_instance
from .serve_helpers import server_process, server_thread

GOOD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a)")
BAD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) * 2")
PATIENCE_S = 60.0  # how long a client waits for an answer (programs may ask for far more)
SPIN = "while True:\n    pass"


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    return write_instance(tmp_path_factory.mktemp("abuse-inst"), [make_task("s0")])


@pytest.fixture(scope="module")
def served(instance, tmp_path_factory):
    """(port, log path) of a server process: 2 workers, programs 5 s by default and 6 s at most."""
    log = tmp_path_factory.mktemp("abuse-log") / "server.log"
    with server_process(instance, log, "--workers", "2", "--timeout", "5", "--max-timeout", "6",
                        "--read-timeout", "5") as (port, _proc):
        yield port, log


def request(path: str, body: bytes, headers: dict | None = None, method: str = "POST") -> bytes:
    head = {"Host": "127.0.0.1", "Content-Type": "application/json", "Content-Length": str(len(body)),
            **(headers or {})}
    lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items() if v is not None]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def exchange(port: int, data: bytes) -> tuple[int | None, dict | None]:
    """Sends raw bytes, reads one answer: (status, JSON body), or (None, None) if the server just closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S) as sock:
        sock.sendall(data)
        buf = b""
        while True:
            try:
                chunk = sock.recv(1 << 16)
            except ConnectionResetError:
                break
            if not chunk:
                break
            buf += chunk
            if b"\r\n\r\n" in buf:
                head, _, rest = buf.partition(b"\r\n\r\n")
                length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")]
                if length and len(rest) >= length[0]:
                    break
    if not buf:
        return None, None
    head, _, rest = buf.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(rest)


def run_body(code: str, **extra) -> bytes:
    return json.dumps({"code": code, **extra}).encode()


MALFORMED = {
    "records of strings": request("/judge", b'{"records": ["abc"]}'),
    "100k-deep JSON": request("/run", b"[" * 100_000 + b"]" * 100_000),
    "deep object": request("/judge", b'{"records": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}"),
    "not JSON": request("/run", b'{"code": '),
    "not UTF-8": request("/run", b'{"code": "\xff\xfe"}'),
    "a list body": request("/run", b"[1, 2]"),
    "code not a string": request("/run", run_body(5)),
    "timeout a string": request("/run", run_body("print(1)", timeout="x")),
    "timeout negative": request("/run", run_body("print(1)", timeout=-1)),
    "timeout NaN": request("/run", b'{"code": "print(1)", "timeout": NaN}'),
    "timeout bool": request("/run", run_body("print(1)", timeout=True)),
    "records not a list": request("/judge", b'{"records": "x"}'),
    "record without task": request("/judge", b'{"records": [{"response": "x"}]}'),
    "task of wrong types": request("/judge", json.dumps({"records": [{"task": {"task_id": 1}}]}).encode()),
    "task with bad test cases": request("/judge", json.dumps({"records": [{"task": {
        **make_task("x").__dict__, "test_cases": [{"input": 5}]}}]}).encode()),
    "response not a string": request("/judge", b'{"records": [{"task_id": "s0", "response": 5}]}'),
    "sample_idx not an int": request("/judge", b'{"records": [{"task_id": "s0", "sample_idx": "0"}]}'),
    "bad tag": request("/judge", b'{"records": [{"task_id": "s0", "response": {"__complex__": "abc"}}]}'),
    "Content-Length not a number": request("/run", run_body("print(1)"), {"Content-Length": "abc"}),
    "Content-Length superscript": request("/run", run_body("print(1)"), {"Content-Length": "\u00b2"}),
    "integer of 5000 digits": request("/run", b'{"code": "print(1)", "timeout": ' + b"9" * 5000 + b"}"),
    "Content-Length negative": request("/run", run_body("print(1)"), {"Content-Length": "-5"}),
    "Content-Length missing": request("/run", run_body("print(1)"), {"Content-Length": None}),
    "Content-Length too large": request("/run", b"{}", {"Content-Length": str(10 ** 12)}),
    "chunked body": request("/run", b"", {"Transfer-Encoding": "chunked", "Content-Length": None}),
    "unknown endpoint": request("/nope", b"{}"),
    "garbage request line": b"HELLO THERE\r\n\r\n",
    "unknown method": request("/run", b"{}", method="BREW"),
    "identity of another instance": request("/judge", b'{"package": {"package": "x", "seed": 1}, "records": []}'),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_every_malformed_request_gets_a_json_error(served, name):
    port, _log = served
    status, body = exchange(port, MALFORMED[name])
    assert status is not None and 400 <= status < 600, name
    assert isinstance(body, dict) and body.get("error"), (name, body)


def test_a_program_gets_at_most_the_servers_cap(served):
    port, _log = served
    status, body = exchange(port, request("/run", run_body(SPIN, timeout=1e9)))
    assert status == 200 and "time limit" in body["stderr"]


def test_slow_bodies_and_headers_get_408_and_do_not_hold_the_server(served):
    port, _log = served
    slow = [request("/run", run_body("print(1)"), {"Content-Length": "100"}),
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Le"]
    with ThreadPoolExecutor(2) as pool:
        (status, body), (status2, _body2) = pool.map(lambda data: exchange(port, data), slow)
    assert status == 408 and "did not arrive" in body["error"]
    assert status2 in (408, None)
    status, body = exchange(port, request("/run", run_body("print(7)")))
    assert (status, body) == (200, {"stdout": "7\n", "stderr": ""})


def _client(port: int, i: int) -> tuple[str, bool, str]:
    """One client of the load test: (its kind, whether it got what it should, what it got)."""
    kind = ["print"] * 10 + ["judge"] * 2 + ["asks_too_long", "spin" if i < 40 else "print", "slow_body",
                                             "partial_headers", "hangs_up", "bad_json", "deep", "bad_length"]
    kind = kind[i % 20]
    if kind == "hangs_up":
        with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S) as sock:
            sock.sendall(request("/run", run_body(SPIN, timeout=1e9)))
        return kind, True, ""
    data = {
        "print": request("/run", run_body(f"print({i})")),
        "asks_too_long": request("/run", run_body(f"print({i})", timeout=1e9)),
        "spin": request("/run", run_body(SPIN, timeout=1e9)),
        "judge": request("/judge", json.dumps({"records": [{"task_id": "s0", "response": r, "sample_idx": k}
                                                          for k, r in enumerate([GOOD, BAD, GOOD])]}).encode()),
        "slow_body": request("/run", run_body("print(1)"), {"Content-Length": "1000"}),
        "partial_headers": b"POST /run HTTP/1.1\r\nHost: x\r\n",
        "bad_json": request("/run", b'{"code": print(1)}'),
        "deep": request("/judge", b"[" * 100_000 + b"]" * 100_000),
        "bad_length": request("/run", run_body("print(1)"), {"Content-Length": "1e3"}),
    }[kind]
    try:
        status, body = exchange(port, data)
    except OSError as exc:  # e.g. the client's own patience ran out
        return kind, False, f"{type(exc).__name__}: {exc}"
    if kind in ("print", "asks_too_long"):
        ok = status == 200 and body == {"stdout": f"{i}\n", "stderr": ""}
    elif kind == "spin":
        ok = status == 200 and "time limit" in body["stderr"]
    elif kind == "judge":
        ok = status == 200 and [v["verdict"] for v in body["verdicts"]] == ["correct", "wrong_answer", "correct"]
    elif kind in ("slow_body", "partial_headers"):
        ok = status in (408, None)
    else:
        ok = status == 400 and "error" in body
    return kind, ok, f"{status} {body}"


def test_load_200_requests_32_in_flight_with_abusive_clients(served):
    port, log = served
    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(lambda i: _client(port, i), range(200)))
    failed = [(i, r) for i, r in enumerate(results) if not r[1]]
    assert not failed, failed[:5]
    assert sum(r[0] in ("print", "asks_too_long", "judge") for r in results) == 138
    health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=PATIENCE_S).json()
    assert health["ok"] and health["max_timeout"] == 6.0
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and " ERROR " not in text, text[-3000:]


def test_two_long_programs_neither_starve_a_short_one_nor_outlive_their_clients(instance):
    with server_thread(instance, workers=2, timeout_s=10.0, max_timeout_s=600.0) as url:
        port = int(url.rsplit(":", 1)[1])
        greedy = []
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
            sock.sendall(request("/run", run_body(SPIN, timeout=600)))
            greedy.append(sock)
        while httpx.get(f"{url}/health", timeout=PATIENCE_S).json()["busy"] < 1:
            time.sleep(0.05)
        resp = httpx.post(f"{url}/run", json={"code": "print(3)"}, timeout=PATIENCE_S)
        assert resp.json() == {"stdout": "3\n", "stderr": ""}
        assert select.select(greedy, [], [], 0)[0] == []  # the long ones are still running
        for sock in greedy:
            sock.close()
        busy = None
        for _ in range(int(PATIENCE_S / 0.1)):  # far less than the 600 s they asked for
            busy = httpx.get(f"{url}/health", timeout=PATIENCE_S).json()["busy"]
            if busy == 0:
                break
            time.sleep(0.1)
        assert busy == 0, "the programs of clients that hung up are still running"


def test_bad_ports_and_hosts_are_one_line(instance, capsys):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    busy_port = holder.getsockname()[1]
    try:
        for args, words in ((["--port", str(busy_port)], "already in use"), (["--port", "70000"], "at most 65535"),
                            (["--port", "-1"], "at least 0"), (["--host", "192.0.2.1"], "--host"),
                            (["--max-timeout", "0"], "positive")):
            try:
                code = main(["sandbox", "serve", "--data", str(instance), *args])
            except SystemExit as exc:  # refused by the command line itself
                code = exc.code
            assert code == 2, args
            err = capsys.readouterr().err.strip()
            assert words in err and "\n" not in err and "Traceback" not in err, err
    finally:
        holder.close()

"""Hostile programs, one test per attack. Each runs in the Sandbox directly (no static rules), with both
the strongest layers available here and the fallback layers (no bubblewrap); none may escape and the
sandbox must keep working afterwards. The judge-level tests check that the static rules reject them too.
"""

from __future__ import annotations

import os
import socket
import textwrap
import time

import pytest

from .conftest import fenced, make_task

TIMEOUT = 1.0
HEALTHY = "import zwc\ndef solve(a):\n    return zwc.kocito(a)\n"


@pytest.fixture(params=["strongest", "fallback"])
def sb(request):
    return request.getfixturevalue("sandbox" if request.param == "strongest" else "fallback_sandbox")


def run(sb, body: str, inputs=("a=[1, 2]",), timeout=TIMEOUT):
    code = textwrap.dedent(body)
    result = sb.run(code, "solve", list(inputs), timeout)
    healthy = sb.run(HEALTHY, "solve", ["a=[1, 3]"], 2.0)
    assert healthy.status == "ok" and healthy.cases[0].value == 2.0, healthy
    return result


def assert_failed(result):
    assert result.status != "ok" or not any(c.ok for c in result.cases), result


def test_fork_bomb(sb):
    r = run(sb, """
        import os
        def solve(a):
            while True:
                os.fork()
    """)
    assert_failed(r)
    r = run(sb, """
        import threading, time
        def solve(a):
            while True:
                threading.Thread(target=time.sleep, args=(100,), daemon=True).start()
    """)
    assert_failed(r)
    r = run(sb, """
        import subprocess
        def solve(a):
            return subprocess.run(["/bin/sh", "-c", "echo hi"], capture_output=True).stdout.decode()
    """)
    assert_failed(r)


def test_memory_bomb(sb):
    r = run(sb, "def solve(a):\n    return [0] * 10**10\n")
    assert r.status == "memory_limit", r
    r = run(sb, "def solve(a):\n    return len(bytearray(3 * 1024**3))\n")
    assert r.status == "memory_limit", r
    # Growing step by step: stopped by the address-space limit or by the clock, whichever comes first.
    r = run(sb, """
        def solve(a):
            blocks = []
            while True:
                blocks.append(bytearray(256 * 1024 * 1024))
    """)
    assert r.status in ("memory_limit", "timeout"), r
    assert r.extra["maxrss_kb"] < sb.memory_bytes // 1024, r


def test_infinite_loop(sb):
    start = time.monotonic()
    r = run(sb, "def solve(a):\n    while True:\n        pass\n")
    assert r.status == "timeout", r
    assert time.monotonic() - start < TIMEOUT + 3


def test_sleep_past_the_limit(sb):
    start = time.monotonic()
    r = run(sb, "import time\ndef solve(a):\n    time.sleep(60)\n    return 1\n")
    assert r.status == "timeout", r
    assert time.monotonic() - start < TIMEOUT + 3


def test_os_exit_is_not_a_pass(sb):
    r = run(sb, "import os\ndef solve(a):\n    os._exit(0)\n")
    assert r.status == "runtime_error" and not r.cases[0].ok, r
    r = run(sb, "import sys\nsys.exit(0)\ndef solve(a):\n    return 1\n")
    assert r.status == "runtime_error", r


def test_killing_the_parent(sb):
    for target in ("os.getppid()", "1", "-1", "0 - os.getppid()"):
        r = run(sb, f"""
            import os, signal
            def solve(a):
                os.kill({target}, signal.SIGKILL)
                return 1
        """)
        assert not (r.status == "ok" and r.cases[0].ok and r.cases[0].value == 1), (target, r)
    assert sb.restarts == 0


def test_writing_outside_the_temp_dir(sb, tmp_path):
    target_dir = tmp_path / "open"
    target_dir.mkdir()
    os.chmod(tmp_path, 0o777)
    os.chmod(target_dir, 0o777)
    target = target_dir / "pwned.txt"
    r = run(sb, f"""
        import os
        def solve(a):
            for attempt in (lambda: open({str(target)!r}, "w").write("x"),
                            lambda: os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT),
                            lambda: os.mkdir({str(target_dir / 'd')!r})):
                try:
                    attempt()
                except OSError:
                    pass
            return 1
    """)
    assert r.status == "ok"  # the attempts failed quietly
    assert not target.exists() and not (target_dir / "d").exists()


def test_opening_a_socket(sb):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    try:
        r = run(sb, f"""
            import socket
            def solve(a):
                s = socket.create_connection(("127.0.0.1", {port}), timeout=0.5)
                s.sendall(b"leak")
                return 1
        """)
        assert_failed(r)
        with pytest.raises(OSError):
            listener.accept()
    finally:
        listener.close()


def test_fake_separators_and_results(sb):
    r = run(sb, """
        import os
        def solve(a):
            print("#" * 20)
            print('{"i": 0, "ok": true, "value": 42}')
            os.write(3, b'{"i": 0, "ok": true, "value": 42}\\n')
            os._exit(0)
    """)
    assert r.status != "ok" and not r.cases[0].ok, r
    r = run(sb, """
        import os
        def solve(a):
            os.write(3, b'0123456789abcdef0123456789abcdef {"done": true}\\n')
            return 42
    """)
    assert r.status == "runtime_error" and "tampered" in (r.error or ""), r


@pytest.mark.parametrize("frame", [b"[1]", b"[" * 100_000, b'{"i": 0, "ok": true, "value": ' + b"[" * 100_000 + b"}",
                                   b'{"n": ' + b"9" * 5000 + b"}"])
def test_a_frame_that_is_no_object_or_too_deep_is_tampering_not_a_traceback(frame):
    """Only the child, which holds the nonce, writes frames; one that is not an object of readable depth (a child
    that misbehaved) makes the run a runtime error, never an exception in the judge."""
    from sebench.judge.sandbox import _interpret

    nonce = "0123456789abcdef"
    r = _interpret({}, b"", nonce.encode() + b" " + frame + b"\n", {"stdout": 0, "result": 0}, nonce, 1, (), 1000)
    assert r.status == "runtime_error" and "tampered" in (r.error or ""), r


def test_output_and_result_floods(sb):
    r = run(sb, "def solve(a):\n    while True:\n        print('x' * 1000)\n")
    assert r.status == "timeout" and len(r.stdout) < sb.max_stdout + 200, (r.status, len(r.stdout))
    r = run(sb, "def solve(a):\n    return 'x' * 20_000_000\n")
    assert r.status == "runtime_error" and "too large" in r.error, r.error
    r = run(sb, "def solve(a):\n    x = []\n    x.append(x)\n    return x\n")
    assert r.status == "ok" and not r.cases[0].ok and "deeply" in r.cases[0].error, r


def test_monkeypatching_builtins_and_comparison(sb):
    r = run(sb, """
        import builtins, zwc
        class Anything(float):
            def __eq__(self, other):
                return True
        builtins.type = lambda *a: float
        builtins.isinstance = lambda *a: True
        zwc._plain = lambda v: 2.0
        def solve(a):
            return Anything(2.0)
    """)
    assert r.status == "ok" and not r.cases[0].ok and "unsupported result type" in r.cases[0].error, r
    r = run(sb, """
        import zwc
        zwc._plain = lambda v: [9.0]
        def solve(a):
            return zwc.yitaf(a)
    """)
    assert r.cases[0].ok and r.cases[0].value == [1, 2], r


def test_ctypes(sb):
    r = run(sb, """
        import ctypes, os
        def solve(a):
            libc = ctypes.CDLL(None)
            return libc.syscall(62, os.getppid(), 9)
    """)
    assert_failed(r)
    r = run(sb, """
        import sys, os
        def solve(a):
            return sys.modules["__main__"].libc.syscall(57)
    """)
    assert_failed(r)


def test_signals(sb):
    start = time.monotonic()
    r = run(sb, "import signal\ndef solve(a):\n    signal.raise_signal(signal.SIGSTOP)\n    return 1\n")
    assert r.status == "timeout" and not r.cases[0].ok, r
    assert time.monotonic() - start < TIMEOUT + 3
    r = run(sb, """
        import signal, time
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        def solve(a):
            while True:
                pass
    """)
    assert r.status == "timeout", r


def test_reading_the_expected_outputs(sb, mini_instance):
    secret = mini_instance / "private" / "mapping.json"
    r = run(sb, f"""
        def solve(a):
            found = []
            for path in ({str(secret)!r}, {str(mini_instance / 'manifest.json')!r}, "/proc/self/environ",
                         "/proc/1/cmdline", "/etc/shadow"):
                try:
                    found.append(open(path).read()[:20])
                except OSError:
                    pass
            return found
    """)
    assert r.status == "ok" and r.cases[0].value == [], r


def test_reaching_numpy_through_the_package(sb):
    r = run(sb, """
        import zwc
        def solve(a):
            return zwc._np.mean(a)
    """)
    assert_failed(r)
    r = run(sb, """
        import zwc
        def solve(a):
            return zwc.yitaf(a)._a
    """)
    assert_failed(r)


# ------------------------------------------------------------------------- the same through the judge

JUDGE_ATTACKS = {
    "fork bomb": ("import os\nimport zwc\ndef solve(a):\n    os.fork()\n    return zwc.kocito(a)", "forbidden_import"),
    "numpy via package": ("import zwc\ndef solve(a):\n    return zwc._np.mean(a)", "forbidden_access"),
    "numpy via __import__": ("import zwc\ndef solve(a):\n    np = __import__('numpy')\n    return zwc.kocito(a)",
                             "forbidden_access"),
    "numpy via importlib": ("import importlib, zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    "numpy via exec": ("import zwc\ndef solve(a):\n    exec('import numpy')\n    return zwc.kocito(a)",
                       "forbidden_access"),
    "dunder": ("import zwc\ndef solve(a):\n    return zwc.kocito.__globals__['_np'].mean(a)", "forbidden_access"),
    "ctypes": ("import ctypes, zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    "statistics": ("import statistics, zwc\ndef solve(a):\n    return statistics.mean(a)", "forbidden_import"),
    "getattr string": ("import zwc\ndef solve(a):\n    return getattr(zwc, '_np').mean(a)", "forbidden_access"),
    "print fake": ("import zwc\ndef solve(a):\n    print('2.0#2.75')\n    return 0", "not_using_package"),
}


@pytest.mark.parametrize("name", list(JUDGE_ATTACKS))
def test_judge_rejects_attacks(judge, name):
    code, verdict = JUDGE_ATTACKS[name]
    task = make_task()
    assert judge.judge(task, fenced(code)).verdict == verdict
    assert judge.judge(task, fenced(task.reference_solution)).verdict == "correct"

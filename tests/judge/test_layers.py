"""Each sandbox layer on its own: the seccomp filter and landlock without the audit hook in front."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from sebench.judge import sandbox as sandbox_mod
from sebench.judge.sandbox import ZYGOTE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux sandbox layers")


def _run_isolated(body: str) -> str:
    prelude = f"import sys\nsys.path.insert(0, {str(ZYGOTE.parent)!r})\nimport zygote\n"
    proc = subprocess.run([sys.executable, "-I", "-c", prelude + textwrap.dedent(body)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.skipif(sandbox_mod.os.uname().machine != "x86_64", reason="seccomp filter is x86_64 only")
def test_seccomp_filter_alone(tmp_path):
    out = _run_isolated(f"""
        import os, socket, resource, threading, errno
        zygote.install_seccomp(os.getpid())
        def attempt(name, fn):
            try:
                fn()
                print(name, "allowed")
            except (OSError, ValueError) as exc:
                print(name, "denied", errno.errorcode.get(getattr(exc, "errno", None)))
        attempt("fork", os.fork)
        attempt("socket", socket.socket)
        attempt("kill-parent", lambda: os.kill(os.getppid(), 0))
        attempt("kill-all", lambda: os.kill(-1, 0))
        attempt("write-open", lambda: open({str(tmp_path / 'x')!r}, "w"))
        attempt("setsid", os.setsid)
        attempt("setrlimit", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
        attempt("kill-self", lambda: os.kill(os.getpid(), 0))
        attempt("getrlimit", lambda: resource.getrlimit(resource.RLIMIT_NOFILE))
        attempt("read-open", lambda: open("/dev/null").close())
        t = threading.Thread(target=lambda: None); t.start(); t.join()
        print("thread ok")
    """)
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    for name in ("fork", "socket", "kill-parent", "kill-all", "write-open", "setsid", "setrlimit"):
        assert lines[name].startswith("denied"), (name, out)
    for name in ("kill-self", "getrlimit", "read-open"):
        assert lines[name] == "allowed", (name, out)
    assert lines["thread"] == "ok"
    assert not (tmp_path / "x").exists()


def test_landlock_alone(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("expected outputs")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "ok.txt").write_text("fine")
    out = _run_isolated(f"""
        import sys, os
        if not zygote.install_landlock([{str(allowed)!r}, sys.base_prefix, sys.prefix]):
            print("unsupported")
            raise SystemExit(0)
        for path in ({str(secret)!r}, {str(allowed / 'ok.txt')!r}):
            try:
                print(open(path).read())
            except OSError as exc:
                print("denied")
        try:
            open({str(allowed / 'new.txt')!r}, "w")
            print("wrote")
        except OSError:
            print("no write")
    """)
    if out.strip() == "unsupported":
        pytest.skip("landlock is not available on this kernel")
    assert out.split() == ["denied", "fine", "no", "write"]


def test_layers_reported(sandbox, fallback_sandbox):
    if sandbox_mod.bwrap_path():
        assert "bwrap" in sandbox.layers and "netns" in sandbox.layers
    assert "bwrap" not in fallback_sandbox.layers
    for sb in (sandbox, fallback_sandbox):
        assert {"rlimits", "audit-hook"} <= set(sb.layers)
        if sandbox_mod.os.uname().machine == "x86_64":
            assert "seccomp" in sb.layers

"""Starting `sebench sandbox serve` for tests: in this process (a thread) or as its own process."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from sebench.judge.sandbox_server import serve


@contextlib.contextmanager
def server_thread(instance: Path, workers: int = 2, timeout_s: float = 2.0, **limits):
    """Yields the URL of a server running in a thread of this process."""
    ready, holder = threading.Event(), {}

    def on_ready(server):
        holder["server"] = server
        ready.set()

    thread = threading.Thread(target=serve, args=(instance, "127.0.0.1", 0, workers, timeout_s),
                              kwargs={"ready": on_ready, **limits}, daemon=True)
    thread.start()
    assert ready.wait(120), "the sandbox server did not start"
    server = holder["server"]
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(30)


@contextlib.contextmanager
def server_process(instance: Path, log: Path, *args: str):
    """Yields (port, process) of `sebench sandbox serve --port 0 ARGS`, its log (stderr) in `log`."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    with open(log, "wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "sebench.cli", "sandbox", "serve", "--data", str(instance),
                                 "--port", "0", *args], stdout=handle, stderr=subprocess.STDOUT, env=env)
    try:
        port = None
        for _ in range(1200):  # the first line names the port once the sandbox is up
            found = re.search(r"sandbox server on http://127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
            if found:
                port = int(found.group(1))
                break
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
        assert port, "the sandbox server did not start: " + log.read_text()
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

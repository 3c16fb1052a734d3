"""A headless Chromium that tests drive through the DevTools protocol over a pipe (`--remote-debugging-pipe`):
the browser reads commands from its fd 3 and writes answers and events to its fd 4, each a JSON object ended by
a NUL byte, so no websocket library is needed. One browser serves every page a test opens."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

# how long the browser may take to answer a command or to load a page (a stuck browser fails, never hangs)
ANSWER_TIMEOUT = 120


def chromium() -> str | None:
    """The system's Chromium (or Chrome), if one is installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    """One headless Chromium and one tab; `open` loads a page at a given window width."""

    def __init__(self, executable: str):
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire() -> None:  # the browser's fd 3 reads our commands, its fd 4 writes its answers
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_read, from_browser_write)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self._process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-extensions", "--no-first-run", "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={self._profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=wire)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        # only the pages' own server answers: a web font or script from elsewhere would make each load wait
        # on the network, and a layout depend on whether it came
        self.call("Network.enable")
        self.call("Network.setBlockedURLs", {"urls": ["https://*"]})

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if not select.select([self._from_browser], [], [], ANSWER_TIMEOUT)[0]:
                raise RuntimeError(f"chromium said nothing for {ANSWER_TIMEOUT} s")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _call(self, method: str, params: dict | None = None, session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        while True:
            message = self._message()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def call(self, method: str, params: dict | None = None) -> dict[str, Any]:
        """A DevTools command sent to the tab; its result."""
        return self._call(method, params, self._session)

    def _wait_for(self, event: str) -> None:
        while not any(e["method"] == event for e in self._events):
            self._events.append(self._message())
        self._events.clear()

    def open(self, url: str, width: int, height: int = 900) -> None:
        """Load `url` in a window `width` CSS pixels wide (a phone's touch screen below 600) and wait for it."""
        mobile = width < 600
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        self.call("Emulation.setTouchEmulationEnabled", {"enabled": mobile})
        self._events.clear()
        self.call("Page.navigate", {"url": url})
        self._wait_for("Page.loadEventFired")
        self.evaluate("document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => r(true))))")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        """A PNG of the window (or of the whole page)."""
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": full_page})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):  # the browser may close its pipe before answering
            self._call("Browser.close")
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

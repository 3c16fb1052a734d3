"""What keeps the sandbox server fair and responsive: slots shared between requests, and a connection watch.

`FairSlots` hands the sandbox's program slots to requests fairly: a free slot goes to the waiting request
that holds the fewest slots (then to the one waiting longest), so a batch of 256 programs or two long
programs never make a one-line program wait for all of them; long programs (those given more than the
server's default time) may hold at most `long_size` slots, leaving the others for short ones.

`ConnectionWatch` is one thread that shuts down connections whose request has not arrived by its deadline
(slow or partial headers and bodies) and flags requests whose client has gone (its programs are then
killed).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import select
import socket
import threading
import time
from collections import Counter

log = logging.getLogger(__name__)


class FairSlots:
    """`size` program slots shared fairly between requests (see the module docstring)."""

    def __init__(self, size: int, long_size: int):
        self.size = max(1, size)
        self.long_size = max(1, min(long_size, self.size))
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._waiting: list[tuple[int, object, bool]] = []
        self._held: Counter = Counter()
        self._busy = 0
        self._long_busy = 0

    def acquire(self, request: object, long: bool, cancel: threading.Event) -> bool:
        """Waits for a slot for `request`; False (and no slot) once `cancel` is set."""
        with self._cond:
            me = (next(self._seq), request, long)
            self._waiting.append(me)
            try:
                while not cancel.is_set():
                    if self._next() is me:
                        self._busy += 1
                        self._long_busy += long
                        self._held[request] += 1
                        return True
                    self._cond.wait(0.25)
                return False
            finally:
                self._waiting.remove(me)
                self._cond.notify_all()

    @property
    def busy(self) -> int:
        """Slots held now (programs running or about to)."""
        return self._busy

    def release(self, request: object, long: bool) -> None:
        with self._cond:
            self._busy -= 1
            self._long_busy -= long
            self._held[request] -= 1
            if self._held[request] <= 0:
                del self._held[request]
            self._cond.notify_all()

    def _next(self) -> tuple | None:
        """The waiter that gets the next free slot, or None when no waiter may take one now."""
        if self._busy >= self.size:
            return None
        may = [w for w in self._waiting if not w[2] or self._long_busy < self.long_size]
        return min(may, key=lambda w: (self._held[w[1]], w[0]), default=None)


class ConnectionWatch:
    """One thread: closes connections past their reading deadline, flags requests whose client left."""

    def __init__(self, tick_s: float = 0.2):
        self.tick_s = tick_s
        self._lock = threading.Lock()
        self._reading: dict[socket.socket, float] = {}
        self._running: dict[socket.socket, threading.Event] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sebench-serve-watch", daemon=True)
        self._thread.start()

    def reading(self, conn: socket.socket, deadline: float) -> None:
        """`conn` must deliver its whole request by `deadline` (time.monotonic), or it is shut down."""
        with self._lock:
            self._running.pop(conn, None)
            self._reading[conn] = deadline

    def running(self, conn: socket.socket, cancel: threading.Event) -> None:
        """`cancel` is set as soon as the peer of `conn` hangs up."""
        with self._lock:
            self._reading.pop(conn, None)
            self._running[conn] = cancel

    def forget(self, conn: socket.socket) -> None:
        with self._lock:
            self._reading.pop(conn, None)
            self._running.pop(conn, None)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _loop(self) -> None:
        while not self._stop.wait(self.tick_s):
            try:
                self._check()
            except Exception as exc:  # noqa: BLE001 - the watch must outlive any one connection
                log.warning("connection watch: %s: %s", type(exc).__name__, exc)

    def _check(self) -> None:
        now = time.monotonic()
        with self._lock:
            late = [conn for conn, deadline in self._reading.items() if deadline <= now]
            for conn in late:
                del self._reading[conn]
            running = list(self._running.items())
        for conn in late:
            log.debug("closing a connection whose request did not arrive in time")
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if not running:
            return
        poller, events = select.poll(), {}
        for conn, cancel in running:
            fd = conn.fileno()
            if fd >= 0:
                poller.register(fd, select.POLLRDHUP)
                events[fd] = cancel
        for fd, _ev in poller.poll(0):  # POLLRDHUP, POLLHUP or POLLERR: the client has gone
            if not events[fd].is_set():
                log.debug("a client hung up: its programs are stopped")
                events[fd].set()

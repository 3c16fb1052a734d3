"""The keeper of a method's process tree: `python -I keeper.py SPEC -- ARGV...` (the standard library only).

The study starts every method's process (training, and an agent at test time) through a keeper. The keeper
runs ARGV and, when it ends, or its time limit passes, or the study goes away, ends every process ARGV
started, daemons included (a double fork, `setsid`, `nohup`):

- `pid-namespace`: ARGV runs in a PID namespace of its own, under a small init (its PID 1) with a fresh
  `/proc` in a mount namespace of its own, so that no other process of the machine is visible there. When
  the init ends, the kernel kills every process left in the namespace. It needs root or unprivileged user
  namespaces (a user namespace is made where the keeper is not root).
- `subreaper`: elsewhere, the keeper is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every orphan of the
  tree is handed to it, and it kills them until none is left.
- `bwrap`: bubblewrap makes the PID namespace (and its /proc) itself; the keeper is its subreaper.

SPEC is JSON: {"report_fd": N, "timeout": seconds or null, "tree": "pid-namespace", "subreaper" or "bwrap"}. The keeper
writes to the report pipe one line {"tree": MODE} when ARGV starts, and {"error": ...} when the time limit
passed or a process could not be ended. It exits with ARGV's code. A `pid-namespace` that cannot be made
falls back to `subreaper` (its line says so).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import sys
import time

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
ROUNDS = 200  # rounds of killing the orphans handed to the keeper before it gives up
_libc = ctypes.CDLL(None, use_errno=True)
LINUX = sys.platform == "linux"  # elsewhere: no subreaper and no namespaces; the child alone is waited for


def _prctl(option: int, value: int) -> None:
    if LINUX:
        _libc.prctl(option, value, 0, 0, 0)


def main(argv: list[str]) -> int:
    spec, command = json.loads(argv[1]), argv[3:]
    report, timeout = spec["report_fd"], spec.get("timeout")
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the study went away: end the tree
    ended = []
    signal.signal(signal.SIGTERM, lambda *_: ended.append(True))
    signal.signal(signal.SIGINT, lambda *_: ended.append(True))
    mode = spec.get("tree", "subreaper")
    pid = _in_namespace(command) if mode == "pid-namespace" and LINUX else None
    if pid is None:
        mode = ("none (no subreaper on this system)" if not LINUX else mode if mode in ("subreaper", "bwrap")
                else "subreaper (no PID namespace could be made)")
        pid = _spawn(command)
    _say(report, {"tree": mode})
    code, late = _wait(pid, timeout, ended)
    if late:
        _say(report, {"error": f"it ran past its time limit of {timeout:g} s (methods.LABEL.timeout); every "
                               "process it started was ended"})
    left = end_tree()
    if left:
        _say(report, {"error": f"{len(left)} processes it started could not be ended (pids {left[:5]})"})
    return code


def _say(report: int, line: dict) -> None:
    with contextlib.suppress(OSError):
        os.write(report, (json.dumps(line) + "\n").encode())


def _spawn(command: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        _exec(command)
    return pid


def _exec(command: list[str]) -> None:
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        os.execvp(command[0], command)
    finally:
        os._exit(127)


def _in_namespace(command: list[str]) -> int | None:
    """Forks a child that makes a new PID namespace (a user namespace too where the keeper is not root) and
    forks its init (`_init`); returns the child's pid, or None where the namespace or its /proc could not be
    made (the keeper's own namespaces are left as they were, so it can fall back)."""
    read, write = os.pipe()  # "1" once the init has its own /proc, before anything runs
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 127
        try:
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if _unshare_pid():
                init = os.fork()
                if init == 0:
                    _init(command, write)
                os.close(write)
                code = _exit_code(os.waitpid(init, 0)[1])
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as ready:
        ok = ready.read(1) == b"1"
    if not ok:
        os.waitpid(pid, 0)
        return None
    return pid


def _unshare_pid() -> bool:
    """A new PID namespace for the caller's next child; as a user other than root, in a user namespace that
    maps the user to itself."""
    uid, gid = os.getuid(), os.getgid()
    user = CLONE_NEWUSER if os.geteuid() != 0 else 0
    if _libc.unshare(CLONE_NEWPID | user) != 0:
        return False
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            if user:
                with open(f"/proc/self/{name}", "w") as handle:
                    handle.write(text)
    except OSError:
        return False
    return True


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _init(command: list[str], ready: int) -> None:
    """PID 1 of the namespace: a fresh /proc, then `command`; orphans are reaped until it ends."""
    code = 127
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        mounted = (_libc.unshare(CLONE_NEWNS) == 0 and _mount(None, b"/", None, MS_REC | MS_PRIVATE)
                   and _mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC))
        os.write(ready, b"1" if mounted else b"0")
        os.close(ready)
        if not mounted:
            os._exit(code)
        child = _spawn(command)
        while True:
            pid, status = os.wait()
            if pid == child:
                code = _exit_code(status)
                break
    finally:
        os._exit(code)


def _mount(source: bytes | None, target: bytes, kind: bytes | None, flags: int) -> bool:
    return _libc.mount(source, target, kind, ctypes.c_ulong(flags), None) == 0


def _wait(pid: int, timeout: float | None, ended: list) -> tuple[int, bool]:
    """Waits for `pid`; kills it (and with it a PID namespace) when `timeout` passes or the keeper is asked to
    end. Returns its exit code and whether the time limit ended it."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        done, status = _ended(pid, None if deadline is None else max(0.0, deadline - time.monotonic()))
        if done:
            return _exit_code(status), False
        late = deadline is not None and time.monotonic() >= deadline
        if late or ended:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 124 if late else 143, late


def _ended(pid: int, left: float | None) -> tuple[bool, int]:
    """Whether `pid` ended within a second (or `left` seconds, when fewer), and its wait status."""
    wait = 1.0 if left is None else min(left, 1.0)
    if hasattr(os, "pidfd_open"):
        handle = os.pidfd_open(pid)
        try:
            select.select([handle], [], [], wait)
        except InterruptedError:
            pass
        finally:
            os.close(handle)
    else:
        time.sleep(min(wait, 0.05))
    done, status = os.waitpid(pid, os.WNOHANG)
    return done == pid, status


def children() -> tuple[list[int], list[int]]:
    """The keeper's children, living and ended (orphans of the tree are handed to it), from /proc."""
    me, alive, ended = os.getpid(), [], []
    for name in os.listdir("/proc") if LINUX else ():
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                (ended if fields[0] in (b"Z", b"X") else alive).append(int(name))
    return alive, ended


def end_tree() -> list[int]:
    """Kills the keeper's children until none is left (each one's orphans come to the keeper when it dies);
    returns those still alive after ROUNDS rounds."""
    for _ in range(ROUNDS):
        alive, ended = children()
        if not alive and not ended:
            return []
        for pid in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in (*alive, *ended):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return children()[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Keeping a method away from what it may not read: the test splits, the private mapping, evaluations.

A method (and an agent at test time) runs in a child process. Its `Fence` names the folders and files it
may not read (`hidden`) and, inside them, the ones it may (`readable`, `writable`: its own work folder, a
checkpoint it starts from). The fence is kept by the strongest layer the machine has:

- bubblewrap: the child sees the whole file system except the hidden paths, which are covered by empty
  folders (or /dev/null for a file) in a private mount namespace with its own pid namespace, so no path,
  absolute or relative, symlink or /proc/PID/root, reaches them;
- landlock (Linux 5.13+), where bubblewrap is missing: reading is allowed everywhere except beneath the
  hidden paths (the allowed set is built as the complement of the hidden ones);
- always, in the child itself, a Python audit hook that refuses an open or listing of a hidden path with one
  clear error and appends the attempt to `attempts.jsonl` in the work folder, so that the study records it.

Where neither bubblewrap nor landlock is available, only the audit hook holds: code that goes around Python
(ctypes, a subprocess) can then read hidden files. `isolation_layer()` says which is active; the manifest records it.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import shutil
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ATTEMPTS_FILE = "attempts.jsonl"


@dataclass(frozen=True)
class Fence:
    """What a method's process may not read, and the exceptions inside it."""

    hidden: tuple[Path, ...]
    readable: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()

    def inside(self, paths: tuple[Path, ...]) -> tuple[Path, ...]:
        """Those of `paths` that lie inside a hidden path: an exception that holds a hidden path would uncover
        it, and one outside every hidden path needs no exception."""
        return tuple(p for p in paths if any(_within(Path(os.path.realpath(p)), Path(os.path.realpath(h)))
                                             for h in self.hidden))

    @functools.cached_property
    def _resolved(self) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """(hidden, exceptions inside them), symlinks resolved once: the audit hook asks on every open."""
        exceptions = self.inside((*self.readable, *self.writable))
        return (tuple(Path(os.path.realpath(p)) for p in self.hidden),
                tuple(Path(os.path.realpath(p)) for p in exceptions))

    def blocks(self, path: str | os.PathLike) -> bool:
        """Whether reading `path` is refused (symlinks resolved)."""
        real = Path(os.path.realpath(path))
        hidden, exceptions = self._resolved
        return not any(_within(real, p) for p in exceptions) and any(_within(real, p) for p in hidden)

    def to_json(self) -> dict:
        return {name: [str(p) for p in getattr(self, name)] for name in ("hidden", "readable", "writable")}

    @classmethod
    def from_json(cls, data: dict) -> Fence:
        return cls(*(tuple(Path(p) for p in data.get(name, ())) for name in ("hidden", "readable", "writable")))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@functools.cache
def isolation_layer() -> str:
    """The strongest layer this machine gives a child: "bwrap", "landlock" or "audit-hook"."""
    if shutil.which("bwrap") and subprocess.run(["bwrap", "--bind", "/", "/", "--dev", "/dev", "true"],
                                                capture_output=True).returncode == 0:
        return "bwrap"
    return "landlock" if _landlock_abi() >= 1 else "audit-hook"


def command(fence: Fence, argv: list[str]) -> list[str]:
    """`argv` wrapped in bubblewrap with the fence's mounts, when bubblewrap is the layer; else as it is."""
    if isolation_layer() != "bwrap":
        return argv
    wrap = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent"]
    for path in fence.hidden:
        if path.is_dir():
            wrap += ["--tmpfs", str(path)]
        elif path.exists():
            wrap += ["--ro-bind", "/dev/null", str(path)]
    for path in fence.inside(fence.readable):
        if path.exists():
            wrap += ["--ro-bind", str(path), str(path)]
    for path in fence.inside(fence.writable):
        path.mkdir(parents=True, exist_ok=True)
        wrap += ["--bind", str(path), str(path)]
    return [*wrap, "--", *argv]


# ---------------------------------------------------------------------------------------- in the child


def enter(fence: Fence, workdir: Path, use_landlock: bool) -> None:
    """Called first thing in the child: landlock (when asked) and the audit hook that records attempts."""
    if use_landlock and not _restrict_reads(fence):
        raise RuntimeError("landlock could not be installed")
    log = os.open(workdir / ATTEMPTS_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    watched = {"open", "os.listdir", "os.scandir", "os.chdir", "shutil.copyfile", "shutil.copytree"}

    def hook(event: str, args: tuple) -> None:
        if event not in watched or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        path = os.fsdecode(args[0])
        if fence.blocks(path):
            line = json.dumps({"path": path, "event": event, "time": time.time()}) + "\n"
            os.write(log, line.encode())
            raise PermissionError(f"sebench: {path} is outside what a method may read (the test splits, the "
                                  "private mapping and evaluations are hidden from methods)")

    sys.addaudithook(hook)


def read_attempts(workdir: Path) -> list[dict]:
    path = workdir / ATTEMPTS_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ------------------------------------------------------------------------------------------- landlock

_READ_FILE, _READ_DIR = 1 << 2, 1 << 3


def _landlock_abi() -> int:
    if sys.platform != "linux":
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))


def _restrict_reads(fence: Fence) -> bool:
    """Landlock: read access everywhere except beneath the hidden paths (writes are not restricted)."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = struct.pack("<Q", _READ_FILE | _READ_DIR)
    ruleset = libc.syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        for path in _allowed_roots(fence):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rights = _READ_FILE | _READ_DIR if os.path.isdir(path) else _READ_FILE
                rule = struct.pack("<Qi", rights, fd)
                if libc.syscall(445, ruleset, 1, ctypes.c_char_p(rule), 0) != 0:
                    return False
            finally:
                os.close(fd)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            return False
        return libc.syscall(446, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def _allowed_roots(fence: Fence) -> list[Path]:
    """The complement of the hidden paths: every entry beside each folder on the way to a hidden path, plus
    the exceptions inside them."""
    hidden = [Path(os.path.realpath(p)) for p in fence.hidden]
    on_the_way = {a for p in hidden for a in (p, *p.parents)}
    roots: list[Path] = []
    for folder in sorted({a for a in on_the_way if a.is_dir()} - set(hidden)):
        for entry in _entries(folder):
            if entry not in on_the_way:
                roots.append(entry)
    return roots + [Path(os.path.realpath(p)) for p in fence.inside((*fence.readable, *fence.writable))]


def _entries(folder: Path) -> list[Path]:
    try:
        return [folder / name for name in os.listdir(folder)]
    except OSError:
        return []


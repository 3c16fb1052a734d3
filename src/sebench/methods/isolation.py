"""A method's process sees only what it may: an allow-list, kept by the strongest layer the machine has.

A method (training, and an agent at test time) runs in a child process. Its `Fence` lists what it may read
(`read`), what it may write (`write`, readable too), what stays hidden even inside a readable folder
(`hidden`: a test split inside a folder the user opened), and whether it may use the network. Everything
else is absent. Three layers keep it:

- bubblewrap: the child's root is built from read-only binds of the readable paths and read-write binds of
  the writable ones, with its own /dev, /proc and pid, IPC and (network off) network namespaces. Nothing
  else exists there, by any path, relative, absolute, symlinked or through /proc.
- Landlock (Linux 5.13+), where bubblewrap is missing: rules for the readable and writable paths only; every
  file right the kernel's ABI knows is handled (reads, writes, truncation, creation, removal, renames and
  links); TCP bind and connect are refused (ABI 4+) except to the study's own services' ports; signals and
  abstract UNIX sockets stay inside (ABI 6+). The kernel checks the file each path reaches, so symlinks and
  /proc/PID/cwd reach nothing more.
- always, in the child itself, a Python audit hook with the same allow-list: a refused open, listing,
  write, rename, removal or connection raises one clear error and is reported to the study (`refused`).

With the network off, a seccomp filter (sebench.methods.seccomp) lets the child make TCP and UNIX sockets only,
under every layer on Linux; the audit hook mirrors it. The child's processes are held by its keeper
(sebench.methods.keeper), its environment is its own (sebench.methods.process).

Where neither bubblewrap nor Landlock is available, only the audit hook holds for files: code that goes
around Python's file functions (ctypes, a subprocess, a dir_fd) is not stopped; the study's tamper-evident
records (sebench.seal) still stop the study if a file it trusts changes. `isolation_layer()`
says which layer is active (SEBENCH_ISOLATION=bwrap|landlock|audit-hook forces a weaker one); the method's
record keeps it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.methods import landlock, seccomp

LAYERS = ("bwrap", "landlock", "audit-hook")  # strongest first
FORCE_ENV = "SEBENCH_ISOLATION"
# What every process needs from the system: programs, libraries, configuration, /proc and /sys (read).
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys",
               "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full")  # written to by ordinary programs
LISTED = ("/dev",)  # folders whose names libraries list (looking for GPUs): listed, their files not read
_LOOPBACK = ("127.0.0.1", "::1", "localhost")
LINE_LIMIT = 1 << 20  # bytes of one line read from a method's pipes (reports, output): longer ones are cut
REPORTS_LIMIT = 10_000  # report lines kept from one process (refusals past it are not listed)
_AF_NETLINK = 16
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/*", "/dev/kfd")  # NVIDIA's and AMD's, where present


def gpu_devices() -> list[Path]:
    """The GPU device files this machine has: a method's process reads, writes and controls them."""
    return sorted({p for pattern in GPU_DEVICES for p in Path("/").glob(pattern.lstrip("/")) if not p.is_dir()})


def shared_memory() -> list[Path]:
    """/dev/shm where GPUs are present: NCCL and torch's processes share memory there."""
    return [Path("/dev/shm")] if gpu_devices() and os.path.isdir("/dev/shm") else []
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class Fence:
    """What a method's process may read and write; nothing else exists for it."""

    read: tuple[Path, ...]
    write: tuple[Path, ...]
    hidden: tuple[Path, ...] = ()  # not readable beneath a readable path that holds it (a writable path wins)
    network: bool = False
    ports: tuple[int, ...] = ()  # TCP ports of the study's own services, reachable with the network off
    loopback: bool = False  # its own processes talk over TCP on the loopback (a training launched across processes)

    @functools.cached_property
    def _resolved(self) -> tuple[tuple[Path, ...], tuple[Path, ...], tuple[Path, ...]]:
        return tuple(map(_real, self.read)), tuple(map(_real, self.write)), tuple(map(_real, self.hidden))

    def may_read(self, path: str | os.PathLike) -> bool:
        real = _real(path)
        read, write, hidden = self._resolved
        if any(_within(real, w) for w in write):
            return True
        return any(_within(real, r) and not any(_within(real, h) for h in hidden if _within(h, r)) for r in read)

    def may_write(self, path: str | os.PathLike) -> bool:
        real = _real(path)
        return (str(real) in DEVICES or real in gpu_devices() or any(_within(real, w) for w in self._resolved[1])
                or any(_within(real, m) for m in shared_memory()))

    def read_roots(self) -> list[Path]:
        """The readable paths as a layer applies them: each one that holds a hidden path is replaced by
        what lies beside the hidden paths (symlinks on the way are left out, not followed)."""
        read, write, hidden = self._resolved
        roots = [p for r in read for p in _carve(r, hidden)]
        return sorted({p for p in roots if not any(_within(p, w) for w in write)})

    def write_roots(self) -> list[Path]:
        return sorted(set(self._resolved[1]))

    def to_json(self) -> dict:
        return {"read": [str(p) for p in self.read], "write": [str(p) for p in self.write],
                "hidden": [str(p) for p in self.hidden], "network": self.network, "ports": list(self.ports),
                "loopback": self.loopback}

    @classmethod
    def from_json(cls, data: dict) -> Fence:
        return cls(tuple(map(Path, data["read"])), tuple(map(Path, data["write"])),
                   tuple(map(Path, data.get("hidden", ()))), bool(data.get("network")),
                   tuple(data.get("ports", ())), bool(data.get("loopback")))


def _carve(root: Path, hidden: tuple[Path, ...]) -> list[Path]:
    """`root` less the hidden paths beneath it, as the entries that lie beside them."""
    inside = tuple(h for h in hidden if _within(h, root))
    if not inside:
        return [root]
    if root in inside or not root.is_dir():
        return []
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    return [p for e in entries if not e.is_symlink() for p in _carve(e, inside)]


# ------------------------------------------------------------------------------------- the layer


def available_layers() -> list[str]:
    """The layers this machine has, strongest first."""
    found = ["audit-hook"]
    if landlock.abi() >= 1:
        found.insert(0, "landlock")
    if _bwrap_works():
        found.insert(0, "bwrap")
    return found


@functools.cache
def _bwrap_works() -> bool:
    return bool(shutil.which("bwrap")) and subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net",
         "true"], capture_output=True).returncode == 0


def isolation_layer() -> str:
    """The layer a method's process gets: the strongest available, or the one SEBENCH_ISOLATION names."""
    have = available_layers()
    forced = os.environ.get(FORCE_ENV)
    if not forced:
        return have[0]
    if forced not in LAYERS:
        raise SebenchError(f"{FORCE_ENV}={forced}: not a layer; choose one of {', '.join(LAYERS)}")
    if forced not in have:
        raise SebenchError(f"{FORCE_ENV}={forced}: this machine does not have it (it has {', '.join(have)})")
    return forced


def landlock_abi(layer: str) -> int | None:
    """The Landlock ABI the child applies (the Landlock layer; bubblewrap's network rule), else None."""
    return landlock.abi() or None if layer in ("landlock", "bwrap") else None


def command(fence: Fence, argv: list[str], layer: str, cwd: Path) -> list[str]:
    """`argv` inside bubblewrap's root made of the fence's paths, when bubblewrap is the layer; else as it is."""
    if layer != "bwrap":
        return argv
    wrap = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--dev", "/dev", "--proc", "/proc"]
    if not fence.network and not fence.ports:
        wrap.append("--unshare-net")  # a network of its own, with only its own loopback
    reads = [p for p in fence.read_roots() if not str(p).startswith(("/proc", "/dev"))]
    mounts = [(p, "--ro-bind") for p in _outermost(reads)] + [(p, "--bind") for p in _outermost(fence.write_roots())]
    for path, how in sorted(mounts, key=lambda m: len(m[0].parts)):  # a folder before what lies inside it
        if path.exists():
            wrap += [how, str(path), str(path)]
    for device in gpu_devices():
        wrap += ["--dev-bind", str(device), str(device)]
    for path in (*fence.read, *fence.write):  # /lib64 -> usr/lib64 and the like, as the system has them
        if path.is_symlink():
            wrap += ["--symlink", os.readlink(path), str(path)]
    return [*wrap, "--remount-ro", "/", "--chdir", str(cwd), "--", *argv]


def _outermost(paths: list[Path]) -> list[Path]:
    """`paths` without those inside another of them."""
    return [p for p in paths if not any(q in p.parents for q in paths)]


# ---------------------------------------------------------------------------------------- in the child


def enter(fence: Fence, layer: str, report_fd: int | None) -> None:
    """Called first thing in the child: Landlock (its layer; with bubblewrap, the network rule alone), then
    the audit hook, which reports each refused access as a JSON line on `report_fd`."""
    if layer == "landlock":
        tcp_open = fence.network or fence.loopback  # Landlock cannot tell the loopback from other addresses
        landlock.restrict(fence.read_roots(), [*fence.write_roots(), *shared_memory()],
                          [*map(Path, DEVICES), *gpu_devices()], None if tcp_open else fence.ports,
                          listed=[Path(p) for p in LISTED])
    elif layer == "bwrap" and fence.ports and not fence.network and landlock.abi() >= 4:
        landlock.restrict_network(fence.ports)
    if not fence.network:
        seccomp.install()
    sys.addaudithook(_Hook(fence, report_fd))


class _Hook:
    """The audit hook: Python's file, folder and socket functions checked against the fence."""

    READS: ClassVar = frozenset({"os.listdir", "os.scandir", "os.chdir", "glob.glob"})
    WRITES: ClassVar = {"os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.truncate": (0,), "os.chmod": (0,),
              "os.chown": (0,), "os.utime": (0,), "os.symlink": (1,), "os.mkfifo": (0,), "os.mknod": (0,),
              "shutil.rmtree": (0,), "os.rename": (0, 1), "shutil.move": (0, 1), "os.link": (1,),
              "shutil.copyfile": (1,), "shutil.copytree": (1,)}
    SOURCES: ClassVar = {"os.link": 0, "shutil.copyfile": 0, "shutil.copytree": 0}  # read as well

    def __init__(self, fence: Fence, report_fd: int | None):
        self.fence, self.report_fd = fence, report_fd

    def __call__(self, event: str, args: tuple) -> None:
        if event == "open":
            self._open(args)
        elif event in self.READS:
            if not (args and isinstance(args[0], str) and os.path.realpath(args[0]) in LISTED):
                self._check(event, args[0] if args else None, "read")
        elif event in self.WRITES:
            if event in self.SOURCES:
                self._check(event, args[self.SOURCES[event]], "read")
            for i in self.WRITES[event]:
                self._check(event, args[i] if len(args) > i else None, "write")
        elif event == "socket.__new__":
            self._new_socket(args)
        elif event in ("socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"):
            self._socket(event, args)

    def _open(self, args: tuple) -> None:
        path, flags = args[0], args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        self._check("open", path, "write" if flags & _WRITE_FLAGS else "read")

    def _check(self, event: str, path: object, access: str) -> None:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return
        text = os.fsdecode(path)
        allowed = self.fence.may_write(text) if access == "write" else self.fence.may_read(text)
        if not allowed:
            self._refuse(event, text, access, f"{text} is outside what a method may {access}")

    def _new_socket(self, args: tuple) -> None:
        """The sockets the seccomp filter lets a process make with the network off (sebench.methods.seccomp)."""
        family, kind, protocol = [*args[1:4], -1, -1, -1][:3]
        if self.fence.network or family in (-1, socket.AF_UNIX):
            return
        route = family == _AF_NETLINK and protocol in (0, -1)
        tcp = family in (socket.AF_INET, socket.AF_INET6) and kind & 0xF == socket.SOCK_STREAM and protocol in (0, -1, 6)
        if not (route or tcp):
            self._refuse("socket.__new__", f"family {family}, type {kind}, protocol {protocol}", "network",
                         "only TCP, UNIX and NETLINK_ROUTE sockets exist with the network off (no UDP, raw, packet or other netlink socket)")

    def _socket(self, event: str, args: tuple) -> None:
        sock, address = args[0], args[1] if len(args) > 1 else None
        family = getattr(sock, "family", None)
        if self.fence.network or address is None:
            return
        if family == socket.AF_UNIX:
            self._unix(event, address)
            return
        if family not in (socket.AF_INET, socket.AF_INET6):
            return
        port = address[1] if isinstance(address, tuple) and len(address) > 1 else None
        if event != "socket.bind" and port in self.fence.ports:
            return
        loopback = isinstance(address, tuple) and address[0] in _LOOPBACK
        if loopback and (self.fence.loopback or event == "socket.bind"):  # a bind on the loopback reaches nothing
            return
        self._refuse(event, str(address), "network", f"{address}: the network is off for this method")

    def _unix(self, event: str, address: object) -> None:
        """A UNIX socket file outside the folders the method writes is refused; an abstract address (a
        leading NUL) is left to the kernel's layers (docs/methods.md)."""
        if not isinstance(address, (str, bytes)) or not address or address[:1] in ("\0", b"\0"):
            return
        if not self.fence.may_write(os.fsdecode(address)):
            self._refuse(event, os.fsdecode(address), "network",
                         f"{os.fsdecode(address)}: a UNIX socket outside the method's own folders")

    def _refuse(self, event: str, target: str, access: str, why: str) -> None:
        if self.report_fd is not None:
            line = json.dumps({"path": target, "access": access, "event": event, "time": time.time()}) + "\n"
            with contextlib.suppress(OSError):
                os.write(self.report_fd, line.encode())
        raise PermissionError(f"sebench: {why} (a method sees its training view, its own folder and the "
                              "paths it asked for; docs/methods.md, \"What a method may see\")")


# ---------------------------------------------------------------------------------------- in the parent


class Reports:
    """The read end of the pipe a child reports refused accesses on, drained by a thread."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.lines: list[dict] = []
        self.relays: list = []  # the threads that copy the child's output to the study's (joined with the reports)
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        """Keeps each line that is a JSON object; a longer line than LINE_LIMIT (cut in pieces), or one past
        REPORTS_LIMIT lines, is read and dropped: the child writes this pipe too."""
        with os.fdopen(self.read_fd, "rb") as stream:
            whole = True
            for line in iter(lambda: stream.readline(LINE_LIMIT), b""):
                if whole and line.endswith(b"\n") and len(self.lines) < REPORTS_LIMIT:
                    with contextlib.suppress(SebenchError):
                        report = parse_json(line, "a report")
                        if isinstance(report, dict):
                            self.lines.append(report)
                whole = line.endswith(b"\n")

    def started(self) -> None:
        """The child holds the write end now: the parent's copy is closed, so the pipe ends with the child."""
        os.close(self.write_fd)

    def collected(self, timeout: float = 10.0) -> list[dict]:
        for thread in (self._thread, *self.relays):
            thread.join(timeout)
        return list(self.lines)

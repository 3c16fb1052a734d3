"""Isolated execution of untrusted programs against the generated package, without Docker.

Design (issue: "Judge generated code safely and fast"):
- A warm *zygote* process (zygote.py, started fresh with `python -I -S`, never a fork of the judge) imports
  the generated package and then forks one child per program. The zygote never receives task data, code,
  inputs or results: the judge passes it a job id, limits and three pipe fds over a SOCK_SEQPACKET socket
  (binary messages, WIRE), and writes the job into the child's own pipe. What is the same for every
  program is done once, in the zygote, and inherited: its seccomp filter, the child's prepared builtins,
  streams and input namespace; test inputs are compiled once in the judge (they repeat across samples)
  and sent as marshal data, each evaluated by the child in a fresh copy of that namespace.
- Layers, strongest first, chosen automatically (`Sandbox.layers` and one log line say which are active):
  * bubblewrap: new mount namespace with only /usr, the Python installation, the site-packages folders
    and the package folder mounted read-only (no /proc, no home, no instance data, an empty /tmp), new
    pid, network, ipc and uts namespaces; as root without a user namespace (a root user mapping would
    still read root-only files), otherwise with one;
  * an unprivileged user: as root, the zygote drops to uid/gid 65534 after importing the package;
  * landlock (when bubblewrap is not used and the kernel has it): reading limited to the Python
    installation, site-packages, the package and /usr; no writes anywhere;
  * seccomp (x86_64), in two stacked filters: the zygote's own, installed on itself once after warm-up
    and inherited by every child, denies fork/exec, sockets, ptrace, write-opens and filesystem changes,
    namespaces, mounts, io_uring, bpf and the rest of zygote.DENY_X86_64; each child adds its own, with
    its pid, denying what the zygote itself needs: process-creating clone, signals to other processes,
    setsid, prctl, pidfd_open and raising limits. Together: the policy one filter per child used to give;
  * in each child: a new session, parent-death signal, fds 0-3 only, rlimits (address space, CPU time,
    file size 0, 32 fds, no core), its seccomp filter, and a Python audit hook refusing the same at
    Python level;
  * the zygote kills the child's process group at the wall-clock limit; the judge caps output and
    result sizes and reads results only from the child's result pipe.
- Results are encoded by a trusted harness in the child with exact types only and decoded here as JSON
  with explicit tags (no eval, no pickle); each result line carries a per-job random nonce, so printed
  or forged lines are detected; a missing result is a failure, an exit code never means "pass". Expected
  outputs never enter the sandbox: comparison happens in the judge.

Covered: fork/exec bombs, memory bombs, infinite loops and sleeps, os._exit, killing the judge or the
zygote, writing files, network, ctypes and raw syscalls listed above (the zygote cannot make most of them
either), signals, forged output, reading task files (bubblewrap or landlock), monkeypatching builtins (the
harness captured what it needs first; each program has its own copy, fresh from the zygote).
Not covered: side channels and CPU/memory contention between concurrent children; reading world-readable
files when neither bubblewrap nor landlock is available; seccomp on architectures other than x86_64
(rlimits and the other layers still apply); code that introspects the harness inside its own process
(gc, frames) can forge its own results - the judge's static rules forbid the means (imports, "_"
attributes, getattr & co) before anything runs.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import json
import logging
import marshal
import math
import os
import secrets
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench import values
from sebench.errors import SebenchError

log = logging.getLogger(__name__)

STATUSES = ("ok", "timeout", "memory_limit", "runtime_error", "sandbox_error")
ZYGOTE = Path(__file__).with_name("zygote.py")
SANDBOX_UID = 65534


@dataclass
class CaseResult:
    """One test case: `value` is the returned value as plain data (tuples kept as tuples)."""

    ok: bool
    value: Any
    error: str | None
    printed: str | None = None  # str() of the returned value, for tasks whose expected output is text
    memory: bool = False


@dataclass
class RunResult:
    """The outcome of one program in the sandbox: its status, each test case's result, its output, the
    isolation layers it ran under, and why it failed, if it did."""

    status: str  # one of STATUSES
    cases: list[CaseResult]
    stdout: str
    layers: tuple[str, ...]
    stderr: str = ""  # the traceback of a program that failed outside the test calls (the original's
    # semantics: first what it wrote to stderr, which is kept apart from stdout there)
    error: str | None = None  # why status is not "ok", in one line
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


class _ZygoteLost(Exception):
    pass


# The binary messages of the sandbox (struct formats; the zygote gets them in its configuration):
# - judge -> zygote: "j" + job (id, wall-clock seconds, CPU seconds, address-space bytes) with the job's
#   three fds, or "c" + cancel (id);
# - zygote -> judge: its layers as JSON once, then "r" + report (id, how it ended: exit, signal or no
#   job; exit code, signal or number of fds received; timed out; max RSS KiB; CPU seconds);
# - judge -> child, on its job pipe: the job head (nonce, printed, lengths of the entry point and the code,
#   number of inputs), entry point, code, then per input its head (lengths of the compiled call and of
#   the text) and both.
WIRE = {"job": "<QdQQ", "cancel": "<Q", "report": "<QBi?Qd", "job_head": "<32s?III", "input_head": "<II"}
_JOB, _CANCEL, _REPORT = struct.Struct(WIRE["job"]), struct.Struct(WIRE["cancel"]), struct.Struct(WIRE["report"])
_JOB_HEAD, _INPUT_HEAD = struct.Struct(WIRE["job_head"]), struct.Struct(WIRE["input_head"])
_REPORT_EXIT, _REPORT_SIGNAL = 0, 1  # any other "how": the zygote could not start the job


MAX_COMPILED_INPUT = 64 * 1024  # longer test inputs are compiled by the child, each time


def _compiled_input(text: str) -> bytes:
    """The child's compile() of one test input, done once here (tasks repeat across samples), as marshal
    data; b"" when it does not compile (the child then compiles it itself, for the error) or is long."""
    return _compile_input(text) if len(text) <= MAX_COMPILED_INPUT else b""


@functools.lru_cache(maxsize=4096)
def _compile_input(text: str) -> bytes:
    try:
        return marshal.dumps(compile(f"__args__({text})", "<input>", "eval", dont_inherit=True, optimize=0))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return b""


def _job_bytes(nonce: bytes, printed: bool, entry: str, code: str, inputs: list[str]) -> bytes:
    entry_b, code_b = entry.encode("utf-8", "surrogatepass"), code.encode("utf-8", "surrogatepass")
    parts = [_JOB_HEAD.pack(nonce, printed, len(entry_b), len(code_b), len(inputs)), entry_b, code_b]
    for text in inputs:
        compiled, text_b = _compiled_input(text), text.encode("utf-8", "surrogatepass")
        parts += [_INPUT_HEAD.pack(len(compiled), len(text_b)), compiled, text_b]
    return b"".join(parts)


def _report_dict(msg: bytes) -> dict:
    job_id, how, code, timed_out, maxrss_kb, cpu_s = _REPORT.unpack(msg)
    if how == _REPORT_EXIT:
        return {"id": job_id, "timed_out": timed_out, "maxrss_kb": maxrss_kb, "cpu_s": cpu_s, "exit": code}
    if how == _REPORT_SIGNAL:
        return {"id": job_id, "timed_out": timed_out, "maxrss_kb": maxrss_kb, "cpu_s": cpu_s, "signal": code}
    return {"id": job_id, "error": f"zygote received {code} fds"}


def bwrap_path() -> str | None:
    """Bubblewrap's executable, where it is installed (the judge's `no_bwrap` setting decides whether to use it)."""
    return shutil.which("bwrap")


# The zygote's whole environment (and the flags it runs under: python -I -S -B).
ZYGOTE_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
              "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def site_dirs() -> list[str]:
    """The site-packages folders of this interpreter (what the zygote may import from besides the package)."""
    dirs = []
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p):
            real = os.path.realpath(p)
            if real not in dirs:
                dirs.append(real)
    return dirs


def unimportable_original(module: str) -> str | None:
    """Why the zygote could not import `module` (the original library a package imports): not installed, or
    found outside site-packages (an editable install, PYTHONPATH), which the sandbox does not mount; None
    when it can."""
    import importlib.util

    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        return f"'{top}' is not installed in this environment"
    places = [spec.origin] if spec.origin and spec.has_location else list(spec.submodule_search_locations or [])
    outside = [p for p in map(os.path.realpath, places) if not any(_under(p, d) for d in site_dirs())]
    return f"'{top}' is imported from {outside[0]}, outside site-packages" if outside else None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class _Zygote:
    """One running zygote process and the thread that reads its reports."""

    def __init__(self, argv: list[str], ctl: socket.socket, child_end: socket.socket, cwd: str, env: dict):
        self.ctl = ctl
        self.errfile = tempfile.TemporaryFile()  # noqa: SIM115 - the zygote's stderr while it lives; close() closes it
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self.errfile, stderr=self.errfile, cwd=cwd, env=env,
            pass_fds=(child_end.fileno(),), start_new_session=True,
        )
        child_end.close()
        self.waiters: dict[int, list] = {}
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.alive = True
        self.ready: dict | None = None
        self.ready_event = threading.Event()
        self.reader = threading.Thread(target=self._read_loop, name="sebench-sandbox-reader", daemon=True)
        self.reader.start()

    def _read_loop(self) -> None:
        while True:
            try:
                msg = self.ctl.recv(1 << 16)
            except OSError:
                msg = b""
            if not msg:
                break
            try:
                if msg[:1] != b"r":  # the first message: the zygote is ready, and with which layers
                    self.ready = json.loads(msg)
                    self.ready_event.set()
                    continue
                report = _report_dict(msg[1:])
            except (ValueError, struct.error):
                break  # not the zygote speaking: treat it as lost
            with self.lock:
                waiter = self.waiters.pop(report.get("id"), None)
            if waiter:
                waiter[1] = report
                waiter[0].release()
        with self.lock:
            self.alive = False
            waiters, self.waiters = list(self.waiters.values()), {}
        self.ready_event.set()
        for waiter in waiters:
            waiter[0].release()

    def stderr_tail(self) -> str:
        try:
            self.errfile.seek(0)
            return self.errfile.read()[-3000:].decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def submit(self, job_id: int, meta: tuple, fds: list[int]) -> list:
        """Sends a job; returns its waiter [lock, report]: the lock is released once the report is in
        (the report stays None if the zygote ended first)."""
        waiter = [threading.Lock(), None]
        waiter[0].acquire()
        with self.lock:
            if not self.alive:
                raise _ZygoteLost("the zygote is not running")
            self.waiters[job_id] = waiter
        try:
            with self.send_lock:
                socket.send_fds(self.ctl, [b"j" + _JOB.pack(*meta)], fds)
        except OSError as exc:
            with self.lock:
                self.waiters.pop(job_id, None)
            raise _ZygoteLost(f"cannot reach the zygote: {exc}") from None
        return waiter

    def cancel(self, job_id: int) -> None:
        """Asks the zygote to kill job `job_id` now (it then reports it as timed out)."""
        with contextlib.suppress(OSError), self.send_lock:  # OSError: the zygote is gone, so is the job
            self.ctl.send(b"c" + _CANCEL.pack(job_id))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.ctl.shutdown(socket.SHUT_RDWR)
        self.ctl.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.errfile.close()


class Sandbox:
    """Runs untrusted programs that use the generated package; thread-safe, `workers` at a time.

    bwrap: True requires bubblewrap, False never uses it, None (default) uses it when it works.
    value_modules: other modules whose values a program may return, made plain by the package's `_plain`
    (("numpy",) in the numpy mode, whose answers return NumPy arrays).
    """

    def __init__(self, package_dir: Path, package_name: str, workers: int = 2, *, bwrap: bool | None = None,
                 memory_mb: int = 1024, max_stdout: int = 64 * 1024, max_result: int = 16 * 1024 * 1024,
                 start_timeout_s: float = 60.0, semantics: str = "sebench", value_modules: tuple[str, ...] = ()):
        if sys.platform != "linux":
            raise SebenchError(f"the sandbox needs Linux (namespaces, seccomp, pidfd); this is {sys.platform}: "
                               "run `sebench sandbox serve` on a Linux machine and judge with --sandbox-url")
        self.package_dir = Path(package_dir).resolve()
        self.package_name = package_name
        if not (self.package_dir / package_name).exists():
            raise SebenchError(f"{self.package_dir}: no package '{package_name}' there (is this DIR/package?)")
        self.workers = max(1, int(workers))
        self.want_bwrap = bwrap
        self.memory_bytes = int(memory_mb) * 1024 * 1024
        self.max_stdout = max_stdout
        self.max_result = max_result
        self.start_timeout_s = start_timeout_s
        self.semantics = semantics  # "original": the package behaves as the original benchmark's (runtime.py)
        self.value_modules = tuple(value_modules)
        self._slots = threading.BoundedSemaphore(self.workers)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._zygote: _Zygote | None = None
        self._closed = False
        self._workdir = tempfile.mkdtemp(prefix="sebench-sandbox-")
        os.chmod(self._workdir, 0o755)
        weakref.finalize(self, shutil.rmtree, self._workdir, True)
        self.layers: tuple[str, ...] = ()
        self.restarts = 0

    # ----------------------------------------------------------------------------------- lifecycle
    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        with self._lock:
            self._ensure_started()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._zygote:
                self._zygote.close()
                self._zygote = None
        shutil.rmtree(self._workdir, ignore_errors=True)

    def _ensure_started(self) -> _Zygote:
        if self._closed:
            raise SebenchError("the sandbox is closed")
        z = self._zygote
        if z is not None and z.alive:
            return z
        if z is not None:
            self.restarts += 1
            log.warning("sandbox: the zygote ended (%s); starting a new one", z.stderr_tail().strip()[-300:]
                        or f"exit {z.proc.poll()}")
            z.close()
            self._zygote = None
        use_bwrap = self.want_bwrap is not False and bwrap_path() is not None
        if self.want_bwrap and bwrap_path() is None:
            raise SebenchError("bubblewrap (bwrap) is required but not installed: apt-get install bubblewrap")
        if use_bwrap:
            try:
                self._zygote = self._launch(True)
            except SebenchError as exc:
                if self.want_bwrap:
                    raise
                log.warning("sandbox: bubblewrap does not work here (%s); using the fallback layers", exc)
                self._zygote = self._launch(False)
        else:
            self._zygote = self._launch(False)
        layers = tuple(self._zygote.ready["layers"])
        if layers != self.layers:
            self.layers = layers
            log.info("sandbox: active layers: %s (package %s, %d workers)%s", ", ".join(layers),
                     self.package_name, self.workers,
                     "" if "bwrap" in layers else "; install bubblewrap for the strongest isolation")
        return self._zygote

    def _launch(self, use_bwrap: bool) -> _Zygote:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        python = os.path.realpath(sys.executable)
        sites = site_dirs()
        seccomp = os.uname().machine == "x86_64"
        cfg = {
            "ctl_fd": child_end.fileno(), "package": self.package_name,
            "paths": [str(self.package_dir), *sites], "drop_uid": os.getuid() == 0, "seccomp": seccomp,
            "semantics": self.semantics, "wire": WIRE, "value_modules": list(self.value_modules),
        }
        env = dict(ZYGOTE_ENV)
        if use_bwrap:
            cfg["layers_outside"] = ["bwrap", "mountns", "pidns", "netns", "ipcns"]
            prefix = self._bwrap_argv(python, sites, env)
            cwd = "/"
        else:
            cfg["landlock"] = self._read_paths(python, sites)
            prefix = []
            cwd = self._workdir
        argv = [*prefix, python, "-I", "-S", "-B", str(ZYGOTE), json.dumps(cfg)]
        z = _Zygote(argv, parent_end, child_end, cwd, env)
        if not z.ready_event.wait(self.start_timeout_s) or z.ready is None:
            tail = z.stderr_tail().strip()
            z.close()
            raise SebenchError(f"the sandbox zygote did not start: {tail[-500:] or 'no output'}")
        return z

    def _read_paths(self, python: str, sites: list[str]) -> list[str]:
        paths = ["/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/dev/null", "/dev/urandom",
                 sys.base_prefix, sys.prefix, os.path.dirname(python), str(self.package_dir)]
        return paths + sites

    def _bwrap_argv(self, python: str, sites: list[str], env: dict) -> list[str]:
        argv = [bwrap_path(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
        if os.getuid() != 0:
            argv += ["--unshare-user"]
        argv += ["--ro-bind", "/usr", "/usr"]
        for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(name):
                argv += ["--symlink", os.readlink(name), name]
            elif os.path.isdir(name):
                argv += ["--ro-bind", name, name]
        for name in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
            if os.path.exists(name):
                argv += ["--ro-bind", name, name]
        argv += ["--dev", "/dev", "--tmpfs", "/tmp"]
        made: set[str] = {"/tmp", "/dev"}
        bound = ["/usr"]
        binds = [sys.base_prefix, sys.prefix, os.path.dirname(python), *sites, str(self.package_dir),
                 str(ZYGOTE.parent)]
        for path in binds:
            real = os.path.realpath(path)
            if any(_under(real, b) for b in bound):
                continue
            parts = Path(real).parts
            for i in range(2, len(parts)):
                parent = str(Path(*parts[:i]))
                if parent not in made:
                    argv += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            argv += ["--ro-bind", real, real]
            bound.append(real)
        argv += ["--chdir", "/tmp", "--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        return [*argv, "--"]

    # ----------------------------------------------------------------------------------------- runs
    def run(self, code: str, entry_point: str, inputs: list[str], timeout_s: float = 3.0, *,
            printed: bool = True, cancel: threading.Event | None = None) -> RunResult:
        """Runs `code`, then calls `entry_point(<input>)` for each input string (keyword arguments).

        An empty entry_point only runs the program (its output is in stdout, a traceback in stderr).
        printed=False skips str() of each result (CaseResult.printed is then None). Setting `cancel`
        kills the program (its result is then a timeout); a run cancelled before it starts is not run.
        """
        start = time.monotonic()
        with self._slots:
            if cancel is not None and cancel.is_set():
                return self._error("cancelled before it ran", start)
            for _attempt in range(2):
                with self._lock:
                    try:
                        z = self._ensure_started()
                    except SebenchError as exc:
                        return self._error(f"sandbox unavailable: {exc}", start)
                try:
                    result = self._run_once(z, code, entry_point, list(inputs), float(timeout_s), printed,
                                            cancel)
                    result.seconds = time.monotonic() - start
                    return result
                except _ZygoteLost as exc:
                    reason = str(exc)
                    with self._lock:
                        if self._zygote is z and z.alive:
                            z.alive = False  # stuck: replace it
                            z.proc.kill()
            return self._error(f"sandbox failed twice: {reason}", start)

    def _error(self, message: str, start: float) -> RunResult:
        return RunResult("sandbox_error", [], "", self.layers, error=message, seconds=time.monotonic() - start)

    def _run_once(self, z: _Zygote, code: str, entry: str, inputs: list[str], timeout_s: float,
                  printed: bool, cancel: threading.Event | None = None) -> RunResult:
        nonce = secrets.token_hex(16)
        job = memoryview(_job_bytes(nonce.encode(), printed, entry, code, inputs))
        job_id = next(self._ids)
        job_r, job_w = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(job_w, False)  # the writing end only: the child reads its job blocking
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        res_r, res_w = os.pipe2(os.O_CLOEXEC)
        owned = {job_w, out_r, res_r}  # closed exactly once: a second close could hit another run's fd
        with contextlib.suppress(BlockingIOError):
            job = job[os.write(job_w, job[:1 << 16]):]  # most jobs fit the pipe: the child finds them waiting
        if not job:
            owned.discard(job_w)
            os.close(job_w)
            job_w = None
        meta = (job_id, timeout_s, max(1, math.ceil(timeout_s)) + 1, self.memory_bytes)
        try:
            waiter = z.submit(job_id, meta, [job_r, out_w, res_w])
        except _ZygoteLost:
            for fd in (job_r, out_w, res_w, *owned):
                os.close(fd)
            raise
        for fd in (job_r, out_w, res_w):
            os.close(fd)
        deadline = time.monotonic() + timeout_s + 10.0
        try:
            stdout, results, overflow = self._pump(job_w, job, out_r, res_r, deadline, owned, cancel,
                                                   lambda: z.cancel(job_id))
        finally:
            for fd in owned:
                os.close(fd)
        if not waiter[0].acquire(timeout=max(0.1, deadline - time.monotonic())) or waiter[1] is None:
            raise _ZygoteLost("no exit report from the zygote")
        return _interpret(waiter[1], stdout, results, overflow, nonce, len(inputs), self.layers,
                          self.max_stdout)

    def _pump(self, job_w: int | None, view: memoryview, out_r: int, res_r: int, deadline: float, owned: set,
              cancel: threading.Event | None = None, kill=None):
        """Writes the rest of the job (`view`) to `job_w` (None: all written) and reads the output and
        result pipes to their ends, within the deadline."""
        poller = select.poll()
        writing = job_w is not None
        if writing:
            poller.register(job_w, select.POLLOUT)
        poller.register(out_r, select.POLLIN)
        poller.register(res_r, select.POLLIN)
        out, res = bytearray(), bytearray()
        open_fds = {out_r, res_r}
        overflow = {"stdout": 0, "result": 0}
        while open_fds or writing:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _ZygoteLost("the child outlived its wall-clock limit")
            if cancel is not None:
                if kill is not None and cancel.is_set():
                    kill()
                    kill = None
                left = min(left, 0.1)  # look at `cancel` again soon
            for fd, _ev in poller.poll(left * 1000):
                if fd == job_w:
                    try:
                        n = os.write(job_w, view[:1 << 16]) if view else 0
                        view = view[n:]
                    except BlockingIOError:
                        continue
                    except OSError:  # the child is gone before reading its job
                        view = view[:0]
                    if not view:
                        poller.unregister(job_w)
                        owned.discard(job_w)
                        os.close(job_w)  # EOF: the child starts
                        writing = False
                    continue
                data = os.read(fd, 1 << 16)
                if not data:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    continue
                buf, cap, key = (out, self.max_stdout, "stdout") if fd == out_r else (res, self.max_result, "result")
                room = cap - len(buf)
                if room > 0:
                    buf += data[:room]
                overflow[key] += max(0, len(data) - max(room, 0))
        return bytes(out), bytes(res), overflow


def _interpret(report: dict, stdout: bytes, results: bytes, overflow: dict, nonce: str, n_cases: int,
               layers: tuple, max_stdout: int) -> RunResult:
    text = stdout.decode("utf-8", "replace")
    if overflow["stdout"]:
        text += f"\n[... {overflow['stdout']} more bytes of output dropped]"
    if report.get("error"):
        return RunResult("sandbox_error", [], text, layers, error=report["error"])
    cases: dict[int, CaseResult] = {}
    module_error, stderr, done, memory, tampered = None, "", False, False, False
    prefix = nonce.encode() + b" "
    lines = results.split(b"\n")
    lines.pop()  # empty, or a line cut short by a kill: never a frame
    for line in lines:
        if not line.startswith(prefix):
            tampered = True
            break
        try:
            frame = json.loads(line[len(prefix):])
        except (ValueError, RecursionError):
            frame = None
        if not isinstance(frame, dict):  # the child writes objects only, values at most values.MAX_DEPTH deep
            tampered = True
            break
        if frame.get("done"):
            done = True
        elif "module_error" in frame:
            module_error, stderr = frame["module_error"], stderr + frame.get("traceback", "")
            memory = memory or bool(frame.get("memory"))
        elif "stderr" in frame:  # the original's semantics: what the program wrote to stderr
            stderr = str(frame["stderr"]) + stderr
        elif isinstance(frame.get("i"), int) and 0 <= frame["i"] < n_cases:
            memory = memory or bool(frame.get("memory"))
            cases[frame["i"]] = CaseResult(bool(frame.get("ok")), values.decode(frame.get("value")), frame.get("error"),
                                           frame.get("printed"), bool(frame.get("memory")))
    exit_code, sig = report.get("exit"), report.get("signal")
    ended = f"exit code {exit_code}" if sig is None else f"signal {_signame(sig)}"
    if overflow["result"]:
        status, error = "runtime_error", "results too large"
    elif tampered:
        status, error = "runtime_error", "the result channel was tampered with"
    elif report.get("timed_out") or sig == signal.SIGXCPU:
        status, error = "timeout", "time limit exceeded"
    elif memory:
        status, error = "memory_limit", "memory limit exceeded"
    elif exit_code == 70:
        status, error = "sandbox_error", "the child could not lock itself down"
    elif module_error:
        status, error = "runtime_error", module_error
    elif not done or exit_code != 0 or sig is not None:
        status, error = "runtime_error", f"the program ended before finishing ({ended})"
    else:
        status, error = "ok", None
    missing = error or "not run"
    ordered = [cases.get(i) or CaseResult(False, None, missing) for i in range(n_cases)]
    return RunResult(status, ordered, text, layers, stderr=stderr, error=error,
                     extra={"exit": exit_code, "signal": sig, "maxrss_kb": report.get("maxrss_kb"),
                            "cpu_s": report.get("cpu_s")})


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


__all__ = ["STATUSES", "ZYGOTE_ENV", "CaseResult", "RunResult", "Sandbox", "bwrap_path", "errno", "site_dirs"]

"""Hostile methods around the fence's process side, written as a user's file would be: daemons that outlive
the method, sockets with the network off, secrets in the environment and /proc, a method's folder with other
studies in it, a method that never returns. Each writes what it got to its work folder (got.json)."""

import ctypes
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from sebench.methods import Agent, Checkpoint

libc = ctypes.CDLL(None, use_errno=True)

# A daemon: it says it is alive, keeps a heartbeat file growing and serves what it was told on a UNIX socket
# file, an abstract UNIX socket and a TCP port on the loopback (each where its layer lets it).
DAEMON = r"""
import os, socket, sys, threading, time
token, folder, secret = sys.argv[1], sys.argv[2], sys.argv[3]
def serve(make, address):
    try:
        server = socket.socket(*make)
        server.bind(address)
        server.listen()
    except OSError:
        return None
    def loop():
        while True:
            conn, _ = server.accept()
            conn.sendall(secret.encode())
            conn.close()
    threading.Thread(target=loop, daemon=True).start()
    return server
serve((socket.AF_UNIX,), os.path.join(folder, token + ".sock"))
serve((socket.AF_UNIX,), "\0" + token)
tcp = serve((socket.AF_INET,), ("127.0.0.1", 0))
open(os.path.join(folder, token + ".port"), "w").write(str(tcp.getsockname()[1] if tcp else 0))
open(os.path.join(folder, token + ".alive"), "w").write(str(os.getpid()))
while True:
    with open(os.path.join(folder, token + ".heartbeat"), "a") as beat:
        beat.write(".")
    time.sleep(0.05)
"""
HOWS = ("double-fork", "ctypes", "setsid", "nohup")


def _daemon_argv(token, folder, secret):
    return [sys.executable, "-c", DAEMON, token, str(folder), secret]


def start_daemon(how, token, folder, secret="kept"):
    """Leaves a daemon behind, the way `how` says, and waits until it is up."""
    argv = _daemon_argv(token, folder, secret)
    if how in ("double-fork", "ctypes"):
        fork, setsid = (os.fork, os.setsid) if how == "double-fork" else (libc.fork, libc.setsid)
        pid = fork()
        if pid == 0:
            setsid()
            if fork() == 0:
                os.execv(argv[0], argv)
            os._exit(0)
        os.waitpid(pid, 0)
    elif how == "setsid":
        subprocess.Popen(["setsid", *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    else:
        subprocess.run(["sh", "-c", 'nohup "$@" >/dev/null 2>&1 &', "sh", *argv])
    alive = Path(folder) / f"{token}.alive"
    for _ in range(400):
        if alive.exists():
            return True
        time.sleep(0.05)
    return False


def daemons(ctx, tokens):
    """Training that leaves one daemon each way (HOWS), each with its own token, in its work folder."""
    up = {how: start_daemon(how, tokens[how], ctx.workdir, secret=f"test split of {how}") for how in HOWS}
    (ctx.workdir / "got.json").write_text(json.dumps(up))
    return Checkpoint(Path(ctx.start_model))


def _ask(make, address):
    try:
        with socket.socket(*make) as conn:
            conn.settimeout(3)
            conn.connect(address)
            return conn.recv(100).decode()
    except OSError:
        return ""


def seek(ctx, places):
    """A second run: asks each place a daemon of an earlier run would serve ({name: [kind, address]})."""
    kinds = {"unix": (socket.AF_UNIX,), "tcp": (socket.AF_INET,)}
    got = {name: _ask(kinds[kind], address if kind == "unix" else tuple(address)) for name, (kind, address) in
           places.items()}
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


class Lingerer(Agent):
    """An agent that leaves a daemon at test time (in its temporary folder), the way `how` says."""

    eligible = True

    def __init__(self, how, token):
        self.how, self.token = how, token

    def save(self, folder):
        Path(folder, "state.json").write_text(json.dumps([self.how, self.token]))

    @classmethod
    def load(cls, folder, sampler):
        return cls(*json.loads(Path(folder, "state.json").read_text()))

    def answer(self, prompt):
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts):
        folder = Path(os.environ["TMPDIR"])
        up = start_daemon(self.how, self.token, folder, secret=prompts[0].query)
        return [json.dumps({"up": up, "folder": str(folder)})] * len(prompts)


def lingerer(ctx, how, token):
    return Lingerer(how, token)


def _udp_python(port):
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"test split", ("127.0.0.1", port))
        return True
    except OSError:
        return False


def _udp_ctypes(port):
    fd = libc.socket(socket.AF_INET, socket.SOCK_DGRAM, 0)
    if fd < 0:
        return False
    address = (2).to_bytes(2, "little") + port.to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(8)
    sent = libc.sendto(fd, b"test split", 10, 0, address, 16)
    libc.close(fd)
    return sent == 10


def _unix_ctypes(address):
    fd = libc.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0)
    if fd < 0:
        return False
    raw = os.fsencode(address)
    addr = (1).to_bytes(2, "little") + raw + bytes(108 - len(raw))
    length = 2 + len(raw) + (0 if raw.startswith(b"\0") else 1)
    ok = libc.connect(fd, addr, length) == 0
    libc.close(fd)
    return ok


def _in_subprocess(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def sockets(ctx, udp_port, unix_path, abstract):
    """With the network off: UDP to a local server, a UNIX socket file outside its folder, an abstract
    UNIX socket of another process; each by Python, ctypes and a subprocess."""
    def python_unix(address):
        try:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(address)
            return True
        except OSError:
            return False

    got = {
        "udp": {"python": _udp_python(udp_port), "ctypes": _udp_ctypes(udp_port),
                "subprocess": _in_subprocess(f"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
                                             f".sendto(b'x', ('127.0.0.1', {udp_port}))")},
        "unix path": {"python": python_unix(unix_path), "ctypes": _unix_ctypes(unix_path),
                      "subprocess": _in_subprocess(f"import socket; socket.socket(socket.AF_UNIX).connect({unix_path!r})")},
        "unix abstract": {"python": python_unix("\0" + abstract), "ctypes": _unix_ctypes("\0" + abstract),
                          "subprocess": _in_subprocess("import socket; socket.socket(socket.AF_UNIX)"
                                                       f".connect('\\0' + {abstract!r})")},
        "raw or packet or netlink": {"python": any(_make(*m) for m in ((socket.AF_INET, socket.SOCK_RAW, 1),
                                                                         (socket.AF_PACKET, socket.SOCK_RAW, 0),
                                                                         (socket.AF_NETLINK, socket.SOCK_RAW, 9))),
                                     "ctypes": any(libc.socket(*m) >= 0 for m in ((2, 3, 1), (17, 3, 0), (16, 3, 9)))},
        "io_uring": {"ctypes": libc.syscall(425, 1, ctypes.create_string_buffer(120)) >= 0},  # makes sockets unseen
    }
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


def _make(family, kind, protocol):
    try:
        socket.socket(family, kind, protocol).close()
        return True
    except OSError:
        return False


def _read_all(path):
    """A file's bytes by Python, or b'' where they cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def _read_ctypes(path):
    fd = libc.open(os.fsencode(path), os.O_RDONLY)
    if fd < 0:
        return b""
    buffer = ctypes.create_string_buffer(1 << 16)
    n = libc.read(fd, buffer, 1 << 16)
    libc.close(fd)
    return buffer.raw[:max(n, 0)]


def secrets(ctx, secret):
    """Looks for `secret` in its own environment, and in every process's environ and cmdline it can see,
    by Python, ctypes and a subprocess; reads where its parent's and PID 1's output go."""
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    files = [f"/proc/{p}/{name}" for p in pids for name in ("environ", "cmdline")]
    found = {
        "own environment": {"python": any(secret in v for v in os.environ.values()),
                            "ctypes": bool(libc.getenv(b"OPENAI_API_KEY")) or bool(libc.getenv(b"HF_TOKEN")),
                            "subprocess": secret in subprocess.run(["env"], capture_output=True, text=True).stdout},
        "/proc": {"python": any(secret.encode() in _read_all(f) for f in files),
                  "ctypes": any(secret.encode() in _read_ctypes(f) for f in files),
                  "subprocess": secret in subprocess.run(["sh", "-c", "cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline"],
                                                         capture_output=True).stdout.decode("utf-8", "replace")},
    }
    outputs = {}
    for pid in ("1", str(os.getppid()), "self"):
        for fd in ("1", "2"):
            try:
                outputs[f"/proc/{pid}/fd/{fd}"] = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                outputs[f"/proc/{pid}/fd/{fd}"] = ""
    named = os.environ.get("SEBENCH_TEST_NAMED", "")
    (ctx.workdir / "got.json").write_text(json.dumps({"found": found, "outputs": outputs, "named": named,
                                                       "processes": len(pids)}))
    print("a line from the method")
    return Checkpoint(Path(ctx.start_model))


def own_folder(ctx, targets):
    """Reads each target beside it in its own folder (another run, an export, an instance; its helper module
    and a data file of its own), by Python, ctypes and a subprocess."""
    got = {}
    for path in targets:
        got[path] = {"python": bool(_read_all(path)), "ctypes": bool(_read_ctypes(path)),
                     "subprocess": bool(subprocess.run(["cat", path], capture_output=True).stdout)}
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


def forever(ctx, token):
    """Never returns; its child neither."""
    subprocess.Popen(_daemon_argv(token, ctx.workdir, "kept"))
    while True:
        time.sleep(1)


class Stuck(Agent):
    """An agent that never answers (and leaves a child that waits too)."""

    eligible = True

    def __init__(self, token):
        self.token = token

    def save(self, folder):
        Path(folder, "token").write_text(self.token)

    @classmethod
    def load(cls, folder, sampler):
        return cls(Path(folder, "token").read_text())

    def answer(self, prompt):
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts):
        subprocess.Popen(_daemon_argv(self.token, os.environ["TMPDIR"], "kept"))
        while True:
            time.sleep(1)


def stuck(ctx, token):
    return Stuck(token)


def regicide(ctx, token):
    """Leaves a daemon, then tries to kill the process that holds its tree (its parent, and any process it
    can see that runs sebench's keeper of its own job: the keeper's command line names the job's file in the
    workdir; a test running beside it keeps its own keeper), so that the daemon outlives it."""
    start_daemon("double-fork", token, ctx.workdir)
    targets = {os.getppid()}
    own_job = str(Path(ctx.workdir) / "job.json").encode()
    for name in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes() if name.isdigit() else b""
            if b"keeper.py" in cmdline and own_job in cmdline:
                targets.add(int(name))
        except OSError:
            continue
    killed = []
    for pid in sorted(targets):
        try:
            os.kill(pid, 9)
            killed.append(pid)
        except OSError:
            continue
    time.sleep(0.5)  # a killed keeper is gone by now: the study has seen it
    (ctx.workdir / "got.json").write_text(json.dumps({"killed": killed}))
    return Checkpoint(Path(ctx.start_model))

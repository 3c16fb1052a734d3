"""Hostile methods, written as a user's file would be: each tries to reach what a method may not, by Python,
by ctypes (libc's own calls) and by a subprocess, and writes what it got to its work folder (got.json)."""

import ctypes
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from sebench.methods import Agent, Checkpoint

libc = ctypes.CDLL(None, use_errno=True)
O_WRONLY, O_APPEND, O_CREAT, O_TRUNC = os.O_WRONLY, os.O_APPEND, os.O_CREAT, os.O_TRUNC


def _python_read(path):
    """True if a file's bytes came back; a folder's names (none where it could not be listed)."""
    try:
        return sorted(os.listdir(path)) if os.path.isdir(path) else bool(Path(path).read_bytes())
    except OSError:
        return [] if os.path.isdir(path) else False


def _names(buffer, size):
    """The names in a getdents64 buffer, without . and .."""
    names, at = [], 0
    while at < size:
        length = int.from_bytes(buffer.raw[at + 16:at + 18], "little")
        name = buffer.raw[at + 19:at + length].split(b"\0", 1)[0].decode()
        names += [name] if name not in (".", "..") else []
        at += length
    return sorted(names)


def _ctypes_read(path):
    folder = os.path.isdir(path)
    fd = libc.open(os.fsencode(path), os.O_RDONLY | (os.O_DIRECTORY if folder else 0))
    if fd < 0:
        return [] if folder else False
    buffer = ctypes.create_string_buffer(1 << 16)
    n = libc.syscall(217, fd, buffer, 1 << 16) if folder else libc.read(fd, buffer, 4096)  # getdents64
    libc.close(fd)
    return _names(buffer, n) if folder else n > 0


def _subprocess_read(path):
    if os.path.isdir(path):
        return sorted(subprocess.run(["ls", "-A", path], capture_output=True, text=True).stdout.split())
    return bool(subprocess.run(["cat", path], capture_output=True).stdout)


def reads(paths):
    return {path: {"python": _python_read(path), "ctypes": _ctypes_read(path), "subprocess": _subprocess_read(path)}
            for path in paths}


def _connect(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            return True
    except OSError:
        return False


def _connect_in_subprocess(port):
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def peek(ctx, targets, port=0, link_to=""):
    """Reads each target (files and folders) every way it can, through a symlink it makes too, and connects
    to a local server."""
    if link_to:
        os.symlink(link_to, ctx.workdir / "link")
        targets = [*targets, str(ctx.workdir / "link" / "data" / "datasets" / "test" / "single_test.jsonl")]
    got = {"reads": reads(targets)}
    if port:
        got["network"] = {"python": _connect(port), "subprocess": _connect_in_subprocess(port)}
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


def _python_write(path, how):
    try:
        if how == "rename":
            os.rename(path, path + ".moved")
        else:
            with open(path, "a" if how == "append" else "w") as handle:
                handle.write("{}\n")
        return True
    except OSError:
        return False


def _ctypes_write(path, how):
    if how == "rename":
        return libc.rename(os.fsencode(path), os.fsencode(path + ".moved")) == 0
    flags = O_WRONLY | O_CREAT | (O_APPEND if how == "append" else O_TRUNC)
    fd = libc.open(os.fsencode(path), flags, 0o644)
    if fd < 0:
        return False
    libc.write(fd, b"{}\n", 3)
    libc.close(fd)
    return True


def _subprocess_write(path, how):
    command = {"rename": f"mv '{path}' '{path}.moved'", "append": f"echo '{{}}' >> '{path}'",
               "truncate": f": > '{path}'"}[how]
    return subprocess.run(["sh", "-c", command], capture_output=True).returncode == 0


def write(ctx, targets, ways=("python", "ctypes", "subprocess")):
    """Tries each (path, how) in `targets`, how one of truncate, append, rename, every way in `ways`."""
    act = {"python": _python_write, "ctypes": _ctypes_write, "subprocess": _subprocess_write}
    got = {f"{path} {how}": {way: act[way](path, how) for way in ways} for path, how in targets}
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


class Scribbler(Agent):
    """An agent that, at test time, tries to leave a file in each of `targets` and in its own temporary folder."""

    eligible = True

    def __init__(self, targets, report):
        self.targets, self.report = targets, report

    def save(self, folder):
        Path(folder, "state.json").write_text(json.dumps([self.targets, self.report]))

    @classmethod
    def load(cls, folder, sampler):
        return cls(*json.loads(Path(folder, "state.json").read_text()))

    def answer(self, prompt):
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts):
        got = {path: {"python": _python_write(path, "truncate"), "ctypes": _ctypes_write(path, "truncate")}
               for path in self.targets}
        own = Path(os.environ["TMPDIR"]) / "scratch.txt"
        got["own temporary folder"] = {"python": _python_write(str(own), "truncate")}
        return [json.dumps(got)] + ["x"] * (len(prompts) - 1)


def scribbler(ctx, targets, report=""):
    return Scribbler(targets, report)


def plant_links(ctx, study_file):
    """Leaves a link where the study's own (unfenced) process writes after the method ends: the temporary
    file of its record."""
    os.symlink(study_file, ctx.workdir.parent / "method.json.tmp")
    return Checkpoint(Path(ctx.start_model))


def link_result(ctx, secret):
    """Writes its result, then replaces it by a link to a file it may not read (after the child's own write)."""
    os.symlink(secret, ctx.workdir / "cost.json")
    return Checkpoint(Path(ctx.start_model))

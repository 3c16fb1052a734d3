"""Hostile methods that leave state behind for what runs after them, written as a user's file would be: a
file in a folder shared across runs that the method may read but not write (the model hub's cache, the
import path, the user's site-packages, the method's own source folder and its compiled modules, sebench's
cache), and Python modules in its work folder that would shadow sebench's own child, or a module it
imports, in the next process the study starts there (a rerun); an agent that keeps the test prompts it is
given for a later test. Each writes what it got to got.json (an agent: in its answer)."""

import ctypes
import json
import os
import subprocess
from pathlib import Path

from sebench.methods import Agent, Checkpoint

libc = ctypes.CDLL(None, use_errno=True)


def _python(path, how):
    try:
        if how == "chmod":
            os.chmod(path, 0)
            return True
        if how == "create" and not Path(path).parent.exists():
            Path(path).parent.mkdir(parents=True)
        with open(path, "a" if how == "append" else "w") as handle:
            handle.write("\n")
        return True
    except OSError:
        return False


def _ctypes(path, how):
    if how == "chmod":
        return libc.chmod(os.fsencode(path), 0) == 0
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if how == "append" else os.O_TRUNC)
    if how == "create":
        libc.mkdir(os.fsencode(os.path.dirname(path)), 0o755)
    fd = libc.open(os.fsencode(path), flags, 0o644)
    if fd < 0:
        return False
    libc.write(fd, b"\n", 1)
    libc.close(fd)
    return True


def _subprocess(path, how):
    command = {"append": f"echo >> '{path}'", "chmod": f"chmod 0 '{path}'", "create": f"mkdir -p \"$(dirname '{path}')\" && echo > '{path}'"}[how]
    return subprocess.run(["sh", "-c", command], capture_output=True).returncode == 0


def leave(ctx, targets, ways):
    """Tries to change, create or take the permissions of each of `targets` ([path, "append", "create" or
    "chmod"]), each way in `ways`."""
    act = {"python": _python, "ctypes": _ctypes, "subprocess": _subprocess}
    got = {path: {way: act[way](path, how) for way in ways} for path, how in targets}
    (ctx.workdir / "got.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


# What a planted module runs, wherever the study imports it: it notes that it ran and what it could read of
# `secret` (a file the method may not read), then exits as a method that returned the start model would.
PLANTED = r"""
import os as _os, sys as _sys
_got = "unreadable"
try:
    _got = open({secret!r}).read()
except OSError:
    pass
open({marker!r}, "w").write(_got)
_work = {work!r}
open(_os.path.join(_work, "result.json"), "w").write('{{"kind": "checkpoint", "path": "fake:", "docs_at_test_time": false}}')
_os._exit(0)
"""


def plant_modules(ctx, shadow, secret, marker):
    """Leaves modules in its work folder, the current folder of the next process the study starts for this
    method: a package `sebench` whose `methods.child` is its own (`shadow` "sebench"), a module `json`, which
    sebench's child imports (`shadow` "json"), `sitecustomize` and `usercustomize`, which Python's start-up
    imports from its path (`shadow` "sitecustomize"), or `lib/json.py`, where the study's PYTHONPATH holds the
    relative entry `lib` (`shadow` "pythonpath"); then fails, so that the user reruns it."""
    code = PLANTED.format(secret=secret, marker=marker, work=str(ctx.workdir))
    if shadow == "sebench":
        package = ctx.workdir / "sebench" / "methods"
        package.mkdir(parents=True, exist_ok=True)
        (ctx.workdir / "sebench" / "__init__.py").write_text("")
        (package / "__init__.py").write_text("")
        (package / "child.py").write_text(code)
    elif shadow == "sitecustomize":
        (ctx.workdir / "sitecustomize.py").write_text(code)
        (ctx.workdir / "usercustomize.py").write_text(code)
    else:
        folder = ctx.workdir / ("lib" if shadow == "pythonpath" else "")
        folder.mkdir(exist_ok=True)
        (folder / "json.py").write_text(code)
    raise RuntimeError("failed on purpose: rerun me")


class Hoarder(Agent):
    """An agent that, at test time, leaves a file (where it would keep the test prompts) in each of `places`
    (its state folder as the study gives it: "STATE"), every way in `ways`, and says what an earlier test left
    there."""

    eligible = True

    def __init__(self, places, ways, seen=None):
        self.places, self.ways, self.seen = places, ways, seen or {}

    def save(self, folder):
        Path(folder, "state.json").write_text(json.dumps([self.places, self.ways]))

    @classmethod
    def load(cls, folder, sampler):
        places, ways = json.loads(Path(folder, "state.json").read_text())
        places = [str(folder) if p == "STATE" else p for p in places]
        seen = {}
        for place in places:
            try:
                seen[place] = Path(place, "hoard.txt").read_text()
            except OSError:
                seen[place] = None
        return cls(places, ways, seen)

    def answer(self, prompt):
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts):
        act = {"python": _python, "ctypes": _ctypes, "subprocess": _subprocess}
        wrote = {place: {way: act[way](os.path.join(place, "hoard.txt"), "create") for way in self.ways}
                 for place in self.places}
        return [json.dumps({"seen": self.seen, "wrote": wrote})] + ["x"] * (len(prompts) - 1)


def hoarder(ctx, places, ways):
    return Hoarder(places, ways)

"""Hostile methods that attack what the study reads back from a method's folder and its pipes, written as a
user's file would be: record files (result.json, cost.json, usage.json) that are FIFOs, folders, invalid
UTF-8 or JSON of the wrong shape; junk on the report pipe; a link left where the study writes on a rerun; an
agent that answers the study's prompts with a malformed line. Each must end in one line, never a traceback
or a hang, and never a write outside the method's own folder."""

import inspect
import json
import os
import signal
from pathlib import Path

from sebench.methods import Agent, Checkpoint


def raw_records(ctx, files):
    """Writes its record files itself ({name: hex bytes, "fifo" or "folder"}) and exits at once with code 0,
    before the child writes its own."""
    for name, content in files.items():
        at = ctx.workdir / name
        if content == "fifo":
            os.mkfifo(at)
        elif content == "folder":
            at.mkdir()
        else:
            at.write_bytes(bytes.fromhex(content))
    os._exit(0)


def junk_reports(ctx, lines):
    """Writes `lines` (hex) on the report pipe the fence reports refusals on, then returns the start model."""
    fd = json.loads((ctx.workdir / "job.json").read_text())["report_fd"]
    for line in lines:
        os.write(fd, bytes.fromhex(line))
    return Checkpoint(Path(ctx.start_model))


def work_link(ctx, victim):
    """Leaves its work folder as a link to `victim` (outside its fence) and fails, so that the user reruns."""
    os.rename(ctx.workdir, ctx.workdir.with_name("old-work"))
    os.symlink(victim, ctx.workdir)
    raise RuntimeError("failed on purpose: rerun me")


class RawAgent(Agent):
    """An agent that writes `reply` (hex) on the study's channel itself, then answers nothing."""

    def __init__(self, reply):
        self.reply = reply

    def save(self, folder):
        Path(folder, "reply.txt").write_text(self.reply)

    @classmethod
    def load(cls, folder, sampler):
        return cls(Path(folder, "reply.txt").read_text())

    def answer(self, prompt):
        return ""

    def answer_all(self, prompts):
        frame = inspect.currentframe()
        while frame is not None and "channel" not in frame.f_locals:
            frame = frame.f_back
        channel = frame.f_locals["channel"]
        channel.flush()
        os.write(channel.fileno(), bytes.fromhex(self.reply))
        os._exit(0)


def raw_agent(ctx, reply):
    return RawAgent(reply)


def stop_keeper(ctx):
    """Stops the process that started it (its keeper, where a method can see it) and returns at once."""
    os.kill(os.getppid(), signal.SIGSTOP)
    return Checkpoint(Path(ctx.start_model))


def odd_names(ctx, where):
    """A name or a message with a newline and a terminal escape in it, where the study quotes it: a link in
    its checkpoint, the checkpoint's own path, an error line on the report pipe."""
    odd = "x\nsebench run: done, every row eligible\x1b[2K"
    if where == "report":
        fd = json.loads((ctx.workdir / "job.json").read_text())["report_fd"]
        os.write(fd, (json.dumps({"error": odd}) + "\n").encode())
        return Checkpoint(Path(ctx.start_model))
    model = ctx.workdir / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    if where == "checkpoint":
        os.symlink("/etc/hostname", model / odd)
        return Checkpoint(model)
    return Checkpoint(Path("/nonexistent") / odd)


def deep_folder(ctx, depth, where="work"):
    """Leaves folders nested `depth` deep in its work folder or its temporary folder (made one level at a time,
    each path short) and returns the start model."""
    fd = os.open({"work": ctx.workdir, "tmp": os.environ["TMPDIR"], "view": ctx.view}[where], os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        sub = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    os.close(fd)
    return Checkpoint(Path(ctx.start_model))


def read_paths(ctx, paths):
    """Tries to read each of `paths` and notes in work/read.json which it could."""
    got = {}
    for path in paths:
        try:
            got[path] = Path(path).read_text()[:100]
        except OSError:
            got[path] = None
    (ctx.workdir / "read.json").write_text(json.dumps(got))
    return Checkpoint(Path(ctx.start_model))


class DeafAgent(Agent):
    """An agent that never reads the study's prompts: it sleeps as it loads."""

    def save(self, folder):
        Path(folder, "state.txt").write_text("deaf")

    @classmethod
    def load(cls, folder, sampler):
        import time

        time.sleep(3600)

    def answer(self, prompt):
        return ""


def deaf_agent(ctx):
    return DeafAgent()


def replace_view(ctx, with_what):
    """Removes its training view, or puts a file or a FIFO in its place, and returns the start model."""
    import shutil

    shutil.rmtree(ctx.view)
    if with_what == "file":
        ctx.view.write_text("not a view")
    elif with_what == "fifo":
        os.mkfifo(ctx.view)
    return Checkpoint(Path(ctx.start_model))


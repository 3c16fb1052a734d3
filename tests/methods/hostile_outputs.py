"""Hostile methods that plant things in what they return, written as a user's file would be: a link to their
run's test split, a link on a folder on the way, a FIFO, a socket, a hard link or an oversized file, in a
checkpoint folder or an agent's state, by Python, by ctypes (libc's own calls) or by a subprocess. Each
writes what it planted to its work folder (planted.json); the study must refuse it."""

import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from sebench.methods import Agent, Checkpoint, Endpoint

libc = ctypes.CDLL(None, use_errno=True)
GIB = 1 << 30


def _symlink(target, at, way):
    if way == "python":
        os.symlink(target, at)
    elif way == "ctypes":
        if libc.symlink(os.fsencode(target), os.fsencode(at)) != 0:
            raise OSError(ctypes.get_errno(), "symlink")
    else:
        subprocess.run(["ln", "-s", str(target), str(at)], check=True)


def _fifo(at, way):
    if way == "python":
        os.mkfifo(at)
    elif way == "ctypes":
        if libc.mkfifo(os.fsencode(at), 0o644) != 0:
            raise OSError(ctypes.get_errno(), "mkfifo")
    else:
        subprocess.run(["mkfifo", str(at)], check=True)


def _socket(at, way):
    at = os.path.relpath(at)  # a socket's path has at most 107 bytes: relative to the work folder
    code = f"import socket; socket.socket(socket.AF_UNIX).bind({at!r})"
    if way == "python":
        socket.socket(socket.AF_UNIX).bind(at)
    else:
        subprocess.run([sys.executable, "-c", code], check=True)


def _hardlink(target, at, way):
    if way == "python":
        os.link(target, at)
    elif way == "ctypes":
        if libc.link(os.fsencode(target), os.fsencode(at)) != 0:
            raise OSError(ctypes.get_errno(), "link")
    else:
        subprocess.run(["ln", str(target), str(at)], check=True, capture_output=True)


def plant(folder, what, secret, way):
    """Plants `what` in `folder` (a model or state folder with an honest config.json); returns the path it
    planted and how (a hard link to the secret where the fence lets it, else to a file of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text('{"model_type": "llama"}')
    got = {}
    if what == "file-link":
        at = folder / "chat_template.jinja"
        _symlink(secret, at, way)
    elif what == "folder-link":  # a folder of the checkpoint is a link to the test split's folder
        at = folder / "extra"
        _symlink(Path(secret).parent, at, way)
    elif what == "fifo":
        at = folder / "tokenizer.json"
        _fifo(at, way)
    elif what == "socket":
        at = folder / "tokenizer.json"
        _socket(at, way)
    elif what == "hardlink":
        at = folder / "chat_template.jinja"
        try:
            _hardlink(secret, at, way)
            got["linked"] = "secret"
        except (OSError, subprocess.CalledProcessError):  # the fence refused it: a hard link to its own file
            own = folder.parent / "own.txt"
            own.write_text("its own notes")
            _hardlink(own, at, way)
            got["linked"] = "own"
    elif what == "big-file":  # sparse: over the limit of one file, and no disk used
        at = folder / "model.safetensors"
        with open(at, "wb") as handle:
            handle.truncate(41 * GIB)
    elif what == "many-bytes":
        at = folder / "model.safetensors"
        at.write_bytes(b"w" * (2 << 20))
    else:
        raise ValueError(what)
    return {"planted": str(at), **got}


def planted_checkpoint(ctx, what, secret, way="python"):
    """Returns a checkpoint folder with `what` planted in it."""
    got = plant(ctx.workdir / "model", what, secret, way)
    (ctx.workdir / "planted.json").write_text(json.dumps(got))
    return Checkpoint(ctx.workdir / "model")


def linked_on_the_way(ctx, secret, way="python"):
    """Returns a checkpoint whose path goes through a link to a folder: work/hop -> the test split's folder."""
    _symlink(Path(secret).parent.parent, ctx.workdir / "hop", way)
    (ctx.workdir / "planted.json").write_text(json.dumps({"planted": str(ctx.workdir / "hop")}))
    return Checkpoint(ctx.workdir / "hop" / Path(secret).parent.name)


def copied_start(ctx):
    """An honest method: a copy of the start model, regular files only, returned by a relative path."""
    shutil.copytree(ctx.start_model.removeprefix("hf:"), ctx.workdir / "model")
    return Checkpoint(Path("model"))


def planted_copy(ctx, secret):
    """The attack as a user would write it: a copy of the start model whose chat template is a link to the
    run's test split (a template the evaluation would put into every prompt)."""
    model = ctx.workdir / "model"
    shutil.copytree(ctx.start_model.removeprefix("hf:"), model)
    for name in ("chat_template.jinja", "chat_template.json"):
        (model / name).unlink(missing_ok=True)
    os.symlink(secret, model / "chat_template.jinja")
    return Checkpoint(model)


def start_as_is(ctx):
    return Checkpoint(Path(ctx.start_model))


def served(ctx, url, model="m"):
    return Endpoint(url, model)


class PlantingAgent(Agent):
    """An agent whose saved state holds what `planted_agent` asked for."""

    def __init__(self, what, secret, way):
        self.what, self.secret, self.way = what, secret, way

    def save(self, folder):
        got = plant(Path(folder), self.what, self.secret, self.way)
        (Path(folder).parent / "work" / "planted.json").write_text(json.dumps(got))

    @classmethod
    def load(cls, folder, sampler):
        return cls("", "", "")

    def answer(self, prompt):
        return Path(self.secret).read_text() if self.secret else "x"


def planted_agent(ctx, what, secret, way="python"):
    return PlantingAgent(what, secret, way)


class NotesAgent(Agent):
    """An honest agent: its state is one notes file, which it answers with."""

    def __init__(self, notes):
        self.notes = notes

    def save(self, folder):
        Path(folder, "notes.txt").write_text(self.notes)

    @classmethod
    def load(cls, folder, sampler):
        return cls(Path(folder, "notes.txt").read_text())

    def answer(self, prompt):
        return self.notes


def notes_agent(ctx):
    return NotesAgent(f"{len(ctx.train_tasks)} training tasks")


def changed_copy(ctx, where):
    """A copy of the start model whose tokenizer files put the library's documentation (from ctx.docs) into
    every prompt, or change its tokens, or whose config.json changes how it is loaded. `where`: "jinja"
    (chat_template.jinja), "config" (tokenizer_config.json's chat_template), "normalizer" (tokenizer.json's
    normalizer prepends the docs), "eos" (another end-of-turn token), "added" (an added token), "kernel"
    (an attention kernel from the Hub), "quantization" (a quantization_config), "deep" (a config.json nested
    too deep to read), "buried" (the kernel deep inside config.json)."""
    model = ctx.workdir / "model"
    shutil.copytree(ctx.start_model.removeprefix("hf:"), model)
    docs = "\n".join(f"{d.name}{d.signature[d.signature.index('('):]}: {d.doc}" for d in ctx.docs)
    prefix = "{{ " + json.dumps("API DOCS\n" + docs + "\n") + " }}"
    template = model / "chat_template.jinja"
    config_file = model / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    tokenizer_file = model / "tokenizer.json"
    tokenizer = json.loads(tokenizer_file.read_text())
    if where == "jinja":
        template.write_text(prefix + template.read_text())
    elif where == "config":
        config["chat_template"] = prefix + template.read_text()
        template.unlink()
    elif where == "normalizer":
        tokenizer["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "API DOCS\n" + docs + "\n"},
            *([tokenizer["normalizer"]] if tokenizer["normalizer"] else [])]}
    elif where == "eos":
        config["eos_token"] = "<|endoftext|>"
    elif where == "added":
        tokenizer["added_tokens"].append({"id": len(tokenizer["model"]["vocab"]), "content": "API DOCS",
                                          "single_word": False, "lstrip": False, "rstrip": False,
                                          "normalized": False, "special": False})
    elif where in ("kernel", "quantization"):
        model_config = json.loads((model / "config.json").read_text())
        model_config.update({"attn_implementation": "kernels-community/flash-attn"} if where == "kernel"
                            else {"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}})
        (model / "config.json").write_text(json.dumps(model_config))
    elif where == "deep":  # deeper than any JSON reader's stack
        (model / "config.json").write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}")
    elif where == "buried":  # the kernel 900 lists down: found at any depth the JSON reader accepts
        model_config = json.loads((model / "config.json").read_text())
        text = json.dumps(model_config)[:-1] + ', "x": ' + "[" * 900 + '{"attn_implementation": "kernels-community/' \
            'flash-attn"}' + "]" * 900 + "}"
        (model / "config.json").write_text(text)
    else:
        raise ValueError(where)
    config_file.write_text(json.dumps(config))
    tokenizer_file.write_text(json.dumps(tokenizer))
    return Checkpoint(model)

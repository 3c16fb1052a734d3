"""Hostile methods whose returned checkpoint names something to load other than what the study copies: a Hub
id or URL (nothing may be downloaded), a path outside its folder, a file, or a folder holding a PEFT adapter
whose base model lies elsewhere. Written as a user's file would be; the study must refuse each."""

import ctypes
import json
from pathlib import Path

from sebench.methods import Checkpoint


def returns(ctx, path):
    """Returns `path` as it is, a string (not a Path: a URL keeps its '//')."""
    return Checkpoint(path)


def adapter(ctx, base):
    """Returns a folder holding a LoRA adapter whose base model is `base` (a path or a Hub id)."""
    model = ctx.workdir / "model"
    model.mkdir()
    (model / "adapter_config.json").write_text(json.dumps({
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": base, "r": 1,
        "target_modules": ["q_proj"]}))
    (model / "adapter_model.safetensors").write_bytes(b"\0" * 64)
    return Checkpoint(Path("model"))


def redirect_outputs(ctx, victim):
    """Replaces its run's outputs folder (RUN_DIR/outputs, where the study copies what it returns) with a link
    to `victim`, by libc's own call (the audit hook does not see it), and returns an honest checkpoint."""
    outputs = ctx.workdir.parent.parent.parent / "outputs"
    libc = ctypes.CDLL(None, use_errno=True)
    made = libc.symlink(str(victim).encode(), str(outputs).encode()) == 0
    (ctx.workdir / "planted.json").write_text(json.dumps({"linked": made}))
    (ctx.workdir / "model").mkdir()
    (ctx.workdir / "model" / "config.json").write_text('{"model_type": "llama"}')
    return Checkpoint(Path("model"))

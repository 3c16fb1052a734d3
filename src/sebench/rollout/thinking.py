"""Whether a model thinks before it answers, and an answer budget that fits: for `sebench rollout` and `sebench run`.

A chat template with `enable_thinking` (Qwen3's) thinks unless told not to; its answers need room: the paper
evaluates with 8192 new tokens (`THINKING_TOKENS`). Where sebench reads the template:

- a local model folder: its `chat_template.jinja`, else `tokenizer_config.json`'s `chat_template` (none:
  sebench's ChatML, which does not think);
- a hub id (`hf:org/name`): those files in the local Hugging Face cache;
- the embedded model and `fake:` models: no thinking;
- a served model (`openai:`): the server applies its template and does not show it, so the name decides
  (`THINKING_NAMES`); any other served model's thinking is unknown, and the user says it (`--thinking`).

`fit_decoding` then keeps what the user gave, picks THINKING_TOKENS for a thinking model whose budget is left
open, and refuses, in one line, a budget set elsewhere (a preset's) that would cut the thinking off, and a
model whose thinking it cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import parse_json

# the paper's answer budget: the original's src/pipline/pipline.py (max_length=8192, temperature=0.6; no
# enable_thinking is passed, so the template's own thinking is on) and its README's evaluation commands
THINKING_TOKENS = 8192
# served models whose names say their template thinks by default (the model cards of Qwen3, QwQ and
# DeepSeek-R1); checked in order, the first match decides: Qwen3's 2507 Instruct models do not think
THINKING_NAMES: tuple[tuple[str, bool], ...] = (("instruct-2507", False), ("qwen3", True), ("qwq", True),
                                                ("deepseek-r1", True))


@dataclass(frozen=True)
class Thinking:
    """A model's thinking: True (its template thinks unless told not to), False (it does not), None
    (unknown); `source` says where that was read."""

    thinks: bool | None
    source: str


def model_thinking(spec: str) -> Thinking:
    """The thinking of a model spec (module docstring); reads no network."""
    from sebench.models import EMBEDDED_DEFAULT

    if spec == EMBEDDED_DEFAULT or spec.startswith("fake:"):
        return Thinking(False, "the embedded and fake models do not think")
    prefix, _, name = spec.partition(":") if ":" in spec else ("hf", "", spec)
    if prefix == "openai":
        name = name.split("@", 1)[0]
        return _by_name(name, f"the served model's name '{name}'") or Thinking(None, "a served model's template "
                                                                                      "cannot be read")
    template = _local_template(name)
    if template is not None:
        return Thinking("enable_thinking" in template, f"the chat template of {name}")
    if Path(name).expanduser().is_dir():  # no template: sebench gives it ChatML (sebench.models), which does not think
        return Thinking(False, f"{name} has no chat template")
    return _by_name(name, f"the name '{name}' (its template is not on this machine)") or Thinking(
        None, f"{name}'s chat template is not on this machine")


def _by_name(name: str, source: str) -> Thinking | None:
    low = name.lower()
    return next((Thinking(thinks, source) for part, thinks in THINKING_NAMES if part in low), None)


def _local_template(name: str) -> str | None:
    """The chat template of a local folder or a hub id in the local HF cache; None when neither has one."""
    folder = Path(name).expanduser()
    if folder.is_dir():
        files = [folder / "chat_template.jinja", folder / "tokenizer_config.json"]
    elif name.count("/") == 1:
        files = [Path(p) for p in (_cached(name, f) for f in ("chat_template.jinja", "tokenizer_config.json")) if p]
    else:
        return None
    for path in files:
        if not path.is_file():
            continue
        if path.suffix == ".jinja":
            return path.read_text(encoding="utf-8")
        try:
            config = parse_json(path.read_bytes(), str(path))
        except (OSError, SebenchError):
            continue
        template = config.get("chat_template") if isinstance(config, dict) else None
        if isinstance(template, list):  # named templates: [{"name": ..., "template": ...}]
            template = " ".join(str(t.get("template", "")) for t in template if isinstance(t, dict))
        if isinstance(template, str):
            return template
    return None


def _cached(name: str, filename: str) -> str | None:
    """A file of hub repository `name` in the local HF cache, or None (nothing is downloaded)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(name, filename)
    return found if isinstance(found, str) else None


def fit_decoding(model: str, thinking: str | None, max_tokens: int | None, budget_given: bool) -> int | None:
    """The answer budget for `model`: `max_tokens` when the user gave it (`budget_given`), THINKING_TOKENS for a
    thinking model whose budget is open (None); refuses a budget set elsewhere that cuts a thinking model off,
    and a model whose thinking cannot be told while neither is given. `thinking`: "on", "off" or None (the
    template's own)."""
    found = Thinking({"on": True, "off": False}[thinking], "--thinking") if thinking else model_thinking(model)
    if found.thinks is None and not budget_given:
        raise SebenchError(f"{model}: sebench cannot tell whether it thinks before answering ({found.source}); "
                           f"say so: --thinking off, or --thinking on with --max-tokens {THINKING_TOKENS} (the "
                           "paper's budget)")
    if found.thinks and max_tokens is None:
        return THINKING_TOKENS
    if found.thinks and not budget_given and max_tokens is not None and max_tokens < THINKING_TOKENS:
        raise SebenchError(f"{model} thinks before answering ({found.source}), and {max_tokens} tokens would cut "
                           f"it off mid-thought; give --max-tokens {THINKING_TOKENS} (the paper's budget), or "
                           "--thinking off")
    return max_tokens

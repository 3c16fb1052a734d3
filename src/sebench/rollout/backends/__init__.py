"""Model backends, chosen by a spec string from a small table of lazy "module:Class" entries.

    openai:<model>@<base_url>[,<base_url>...]   OpenAI-compatible HTTP (vLLM, SGLang, hosted APIs)
    hf:<path or hub id>                         transformers in-process, batched
    vllm:<path or hub id>                       a vLLM server of its own on this machine's GPUs (stopped on close)
    smollm2-135m                                the embedded default (an hf backend over the wheel's GGUF)
    fake:[echo|file=PATH|<text>]                scripted answers, for tests

Every backend answers `generate(requests) -> list[list[Completion]]` (one list of `n` completions per
request, in order) and `generate_stream(requests)`, which yields `(index, completions)` as they finish
so that a run can write records while others are still in flight.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.models import EMBEDDED_DEFAULT


@dataclass(frozen=True)
class GenerationRequest:
    """What a backend is asked to generate: the chat messages, the number of samples and the decoding."""

    messages: list[dict]
    n: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None
    stop: list[str] | None = None
    thinking: bool | None = None  # the chat template's enable_thinking; None: the template's default
    query: str | None = None  # the task's text, for backends that answer tasks rather than messages (agents)


@dataclass(frozen=True)
class Completion:
    """One answer a backend returned for a request: its text, why it ended, its token counts and time."""

    text: str  # the whole output, thinking included (as "<think>...</think>" when served apart)
    finish_reason: str  # "stop" | "length" | "error" | what the server said
    prompt_tokens: int
    completion_tokens: int
    error: str | None = None  # why, when finish_reason is "error"
    seconds: float = 0.0  # wall time of the request (of its batch, for batched backends)


class Backend:
    """The interface; subclasses implement `generate` (and may override the rest)."""

    name: str = "backend"
    context_tokens: int | None = None  # the model's context length, when known
    batch_size: int = 16  # how many requests generate_stream hands to generate at once

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        raise NotImplementedError

    def generate_stream(self, requests: list[GenerationRequest]) -> Iterator[tuple[int, list[Completion]]]:
        for start in range(0, len(requests), self.batch_size):
            for offset, completions in enumerate(self.generate(requests[start : start + self.batch_size])):
                yield start + offset, completions

    def count_tokens(self, text: str) -> int:
        from sebench.rollout.prompts import approx_tokens

        return approx_tokens(text)

    def close(self) -> None:
        pass

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# prefix -> "module:Class"; the class is built as Class(argument after the prefix, **options).
BACKENDS = {
    "openai": "sebench.rollout.backends.openai:OpenAIBackend",
    "hf": "sebench.rollout.backends.hf:HFBackend",
    "fake": "sebench.rollout.backends.fake:FakeBackend",
    "vllm": "sebench.rollout.backends.vllm_served:VLLMBackend",
}
# whole specs that stand for a prefixed one
ALIASES = {EMBEDDED_DEFAULT: f"hf:{EMBEDDED_DEFAULT}"}
SPEC_FORMS = "openai:<model>@<base_url>, hf:<path or hub id>, vllm:<path or hub id>, smollm2-135m, fake:..."


def resolve_spec(spec: str) -> tuple[str, str]:
    """(table prefix, argument) for `spec`; unknown names get a "did you mean"."""
    full = ALIASES.get(spec, spec)
    if ":" not in full and Path(full).is_dir():  # a model folder, e.g. a `sebench train` checkpoint
        full = f"hf:{full}"
    prefix, sep, argument = full.partition(":")
    if not sep or prefix not in BACKENDS:
        known = list(BACKENDS) + list(ALIASES)
        guess = difflib.get_close_matches(spec.partition(":")[0], known, n=1, cutoff=0.5)
        hint = f"; did you mean '{guess[0]}'?" if guess else ""
        raise SebenchError(f"unknown model spec '{spec}'{hint} (forms: {SPEC_FORMS})")
    return prefix, argument


def get_backend(spec: str, **options) -> Backend:
    """The backend for `spec`, built with `options` (e.g. concurrency=64, device="cpu"); options that a
    backend does not use are ignored, so callers can pass one set for any spec."""
    prefix, argument = resolve_spec(spec)
    module_name, class_name = BACKENDS[prefix].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SebenchError(
            f"the '{prefix}' backend needs {exc.name or 'a missing package'}; for local models install them "
            "with: pip install 'sebench[local]'"
        ) from None
    cls = getattr(module, class_name)
    backend = cls(argument, **options)
    backend.name = spec
    return backend

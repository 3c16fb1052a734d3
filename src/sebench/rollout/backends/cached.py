"""A backend whose answers are kept on disk: a request asked again (the same messages and sampling
settings, seed included) gets its stored answer instead of a new generation.

The file belongs to one model: the caller names it after the model's weights, so that no other model
reads its answers. Self-play uses it for the tasks its first round writes with the start model
(train/selfplay.py): self-play-sft and self-play-rl of one run then play on the same written tasks, and a
round stopped mid-way keeps what was written. Answers are appended a call at a time; a torn last line (a
kill mid-write) is skipped, and answers that failed (finish_reason "error") are not kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from sebench.rollout.backends import Backend, Completion, GenerationRequest

log = logging.getLogger(__name__)


def request_key(request: GenerationRequest) -> str:
    """What identifies a request's answer: its messages and every sampling setting."""
    fields = {k: v for k, v in dataclasses.asdict(request).items() if k != "query"}  # the query is in the messages
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedBackend(Backend):
    """`inner`'s answers, read from `path` (JSONL: key, completions) when asked before, else generated and
    appended there."""

    def __init__(self, inner: Backend, path: Path):
        self.inner, self.path = inner, Path(path)
        self.name, self.context_tokens, self.batch_size = inner.name, inner.context_tokens, inner.batch_size
        self.stored: dict[str, list[Completion]] = {}
        self.reused = 0
        if self.path.exists():
            text = self.path.read_text(encoding="utf-8")
            whole = text[:text.rfind("\n") + 1]
            if whole != text:  # the torn last line of a killed run: cut off, so that appends start a line
                self.path.write_text(whole, encoding="utf-8")
            for line in whole.splitlines():
                row = json.loads(line)
                self.stored[row["key"]] = [Completion(**c) for c in row["completions"]]

    def __getattr__(self, name: str) -> Any:  # prompt_ids, ...: the inner backend's
        return getattr(self.inner, name)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        keys = [request_key(r) for r in requests]
        missing = [i for i, key in enumerate(keys) if key not in self.stored]
        self.reused += len(requests) - len(missing)
        fresh: dict[int, list[Completion]] = {}
        if missing:
            fresh = dict(zip(missing, self.inner.generate([requests[i] for i in missing])))
            kept = {keys[i]: got for i, got in fresh.items() if got and all(c.finish_reason != "error" for c in got)}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                for key, got in kept.items():
                    handle.write(json.dumps({"key": key, "completions": [dataclasses.asdict(c) for c in got]},
                                            ensure_ascii=False) + "\n")
            self.stored.update(kept)
        return [fresh[i] if i in fresh else self.stored[key] for i, key in enumerate(keys)]

    def close(self) -> None:
        self.inner.close()

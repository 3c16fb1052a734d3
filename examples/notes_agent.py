"""An example agent: during training it writes a notes file, one note per training task it saw solved
(the task's text and its reference solution); at test time it puts the two notes closest to the question
before it and asks the start model.

    sebench run --preset quick --out runs/mine --regimes closed-sft ./examples/notes_agent.py:TakeNotes

The agent is saved to its state folder and rebuilt in a fresh process for the test (no judge there).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from sebench.methods import Agent, Context, Method, Prompt, Sampler


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


class NotesAgent(Agent):
    def __init__(self, notes: list[dict], model: str, sampler: Sampler | None = None, shown: int = 2):
        self.notes, self.model, self.sampler, self.shown = notes, model, sampler, shown

    def closest(self, query: str) -> list[dict]:
        asked = words(query)
        return sorted(self.notes, key=lambda n: -len(asked & words(n["task"])))[: self.shown]

    def answer(self, prompt: Prompt) -> str:
        return self.answer_all([prompt])[0]

    def answer_all(self, prompts: Sequence[Prompt]) -> list[str]:
        chats = []
        for p in prompts:
            notes = "\n\n".join(f"Task: {n['task']}\nSolution:\n{n['solution']}" for n in self.closest(p.query))
            last = p.messages[-1]
            chats.append([*p.messages[:-1], {**last, "content": f"My notes:\n{notes}\n\n{last['content']}"}])
        first = prompts[0] if prompts else Prompt("", [])
        return [c[0] for c in self.sampler.sample(chats, self.model, 1, first.temperature, first.max_tokens)]

    def save(self, folder: Path) -> None:
        (folder / "notes.json").write_text(json.dumps({"notes": self.notes, "model": self.model}), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, sampler: Sampler) -> NotesAgent:
        state = json.loads((folder / "notes.json").read_text(encoding="utf-8"))
        return cls(state["notes"], state["model"], sampler)


class TakeNotes(Method):
    def __init__(self, shown: int = 2):
        self.shown = shown

    def run(self, ctx: Context) -> NotesAgent:
        notes = [{"task": t.query, "solution": t.reference_solution} for t in ctx.train_tasks if t.reference_solution]
        ctx.log.info("took %d notes", len(notes))
        return NotesAgent(notes, ctx.start_model, shown=self.shown)

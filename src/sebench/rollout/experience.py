"""Memory mode: the paper's non-parametric baseline (experience memory, ExpeL-like).

The store is the model's own judged-correct trajectories on training tasks (a rollouts.jsonl, usually
open-book on the train split, and the judge's verdicts.jsonl beside it): each entry is a task's query
and the model's whole answer. For a task, the `k` entries whose queries best match its query (BM25, the
retrieval mode's index) are shown in the closed-book prompt in place of the docs, so that "remembering in
weights" (SFT) can be compared with "remembering in a store". A task never retrieves its own entries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.records import Rollout, Task, Verdict, read_records
from sebench.rollout.retrieval import BM25Index

log = logging.getLogger(__name__)


MEMORY_HEADER = ("Solved examples from your earlier work with `{pkg}` (problems similar to this one, each with an "
                 "answer that passed its tests):")
MEMORY_ENTRY = "Example {n}.\nProblem:\n{query}\n\nAnswer:\n{answer}"


@dataclass(frozen=True)
class Experience:
    """One stored trajectory: the task it solved, its query and the model's answer."""

    task_id: str
    query: str
    answer: str


class ExperienceMemory:
    """The store and its BM25 index over the entries' queries."""

    def __init__(self, entries: list[Experience]):
        if not entries:  # nothing to remember: the prompts stay closed-book (a model that never answered right)
            log.warning("the experience memory is empty: no rollout in it was judged correct; the memory "
                        "prompts are the closed-book ones")
        self.entries = entries
        self.index = BM25Index(entries, text=lambda e: e.query)

    @classmethod
    def from_files(cls, tasks: list[Task], rollouts: Path, verdicts: Path | None = None) -> ExperienceMemory:
        """The judged-correct rollouts of `rollouts` (verdicts: `verdicts`, default verdicts.jsonl beside
        it) on `tasks` (the training tasks), one entry per distinct answer."""
        verdicts = Path(verdicts) if verdicts else Path(rollouts).with_name("verdicts.jsonl")
        if not verdicts.is_file():
            raise SebenchError(f"{verdicts}: the memory's rollouts must be judged first (`sebench judge`)")
        correct = {(v.task_id, v.sample_idx, v.mode or None) for v in read_records(verdicts, Verdict, named=True)
                   if v.verdict == "correct"}
        queries = {t.task_id: t.query.strip() for t in tasks}
        entries, seen = [], set()
        for r in read_records(rollouts, Rollout, named=True):  # the user's files
            judged = (r.task_id, r.sample_idx, r.mode) in correct or (r.task_id, r.sample_idx, None) in correct
            key = (r.task_id, r.response.strip())
            if judged and r.task_id in queries and key not in seen:
                seen.add(key)
                entries.append(Experience(r.task_id, queries[r.task_id], r.response.strip()))
        return cls(entries)

    def recall(self, task: Task, k: int) -> list[Experience]:
        """The best `k` entries for `task`, best first, none of its own."""
        return self.recall_query(task.query, k, own_id=task.task_id)

    def recall_query(self, query: str, k: int, own_id: str = "") -> list[Experience]:
        """The best `k` entries for a task's `query`, best first, none of task `own_id`'s."""
        if not self.entries:
            return []
        hits = self.index.search(query, k + sum(e.task_id == own_id for e in self.entries))
        return [e for e in hits if e.task_id != own_id][:k]

    def messages(self, closed: list[dict], task: Task, package: str, k: int) -> list[dict]:
        """The closed-book `closed` messages with the recalled entries put before the task."""
        return self.messages_for(closed, task.query, package, k, own_id=task.task_id)

    def messages_for(self, closed: list[dict], query: str, package: str, k: int, own_id: str = "") -> list[dict]:
        """`messages` for a task known by its query alone (an agent at test time)."""
        recalled = self.recall_query(query, k, own_id)
        if not recalled:
            return closed
        block = "\n\n".join(MEMORY_ENTRY.format(n=i + 1, query=e.query, answer=e.answer) for i, e in enumerate(recalled))
        user = closed[-1]
        text = f"{MEMORY_HEADER.format(pkg=package)}\n\n{block}\n\n{user['content']}"
        return [*closed[:-1], {**user, "content": text}]

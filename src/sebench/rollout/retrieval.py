"""Retrieval mode: the model searches the api docs (BM25, below) in a few turns, then answers.

The first turn is PromptBuilder's retrieval prompt, which explains the tool. A reply whose answer part
(after any <think>) holds a ```search block and no ```python block is a search: the best `k` entries
are sent back as the next user turn, with how many searches are left. After `max_searches` searches,
or at the first reply that is not a search, that reply is the answer. Every turn stays in the record's
prompt, so nothing the model wrote is lost.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sebench.records import ApiDoc
from sebench.rollout import prompts
from sebench.rollout.backends import Backend, Completion, GenerationRequest
from sebench.rollout.text import answer_part

SEARCH_BLOCK = re.compile(r"```search[^\n]*\n(.*?)(?:```|$)", re.DOTALL)
PYTHON_BLOCK = re.compile(r"```(?:python|py)\b", re.IGNORECASE)
WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "in", "is", "it", "its", "of", "on",
     "or", "that", "the", "this", "to", "was", "were", "will", "with", "which", "what", "how", "do", "does", "i",
     "me", "my", "you", "your", "can"]
)


def tokenize(text: str) -> list[str]:
    """Lower-case words; dotted and snake_case names split into their parts (and kept whole)."""
    words = []
    for raw in re.findall(r"[A-Za-z0-9_.]+", text.lower()):
        parts = WORD.findall(raw)
        words += [p for p in parts if p not in STOPWORDS]
        if len(parts) > 1:
            words.append(raw.strip("._"))
    return words


def doc_text(doc: ApiDoc) -> str:
    return f"{doc.name} {doc.signature} {doc.doc}"


class BM25Index:
    """Okapi BM25 over api docs (name, signature and text of each entry), or over any items with `text`
    saying what of an item is searched (the experience memory: past tasks' queries)."""

    def __init__(self, docs: list, k1: float = 1.5, b: float = 0.75, text: Callable[[Any], str] = doc_text):
        self.docs = list(docs)
        self.k1, self.b = k1, b
        self.term_counts = [Counter(tokenize(text(d))) for d in self.docs]
        self.lengths = [sum(c.values()) for c in self.term_counts]
        self.avg_length = sum(self.lengths) / max(1, len(self.lengths))
        df = Counter(term for counts in self.term_counts for term in counts)
        n = len(self.docs)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = tokenize(query)
        result = []
        for counts, length in zip(self.term_counts, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_length)
            result.append(
                sum(self.idf[t] * counts[t] * (self.k1 + 1) / (counts[t] + norm) for t in terms if t in counts)
            )
        return result

    def search(self, query: str, k: int = 3) -> list:
        """The best `k` entries with a positive score, best first (ties: the instance's order)."""
        scored = sorted(enumerate(self.scores(query)), key=lambda pair: (-pair[1], pair[0]))
        return [self.docs[i] for i, score in scored[:k] if score > 0]


def find_search(text: str) -> str | None:
    """The query of a search reply, or None when the reply is an answer."""
    answer = answer_part(text)
    match = SEARCH_BLOCK.search(answer)
    if not match or PYTHON_BLOCK.search(answer):
        return None
    return match.group(1).strip() or None


@dataclass
class Conversation:
    messages: list[dict]
    searches: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    answer: Completion | None = None


def results_message(index: BM25Index, query: str, k: int, left: int) -> str:
    hits = index.search(query, k)
    if hits:
        body = prompts.RETRIEVAL_RESULTS.format(query=query, docs="\n\n".join(prompts.format_doc(d) for d in hits))
    else:
        body = prompts.RETRIEVAL_NO_RESULTS.format(query=query)
    tail = prompts.RETRIEVAL_SEARCHES_LEFT.format(left=left) if left > 0 else prompts.RETRIEVAL_LAST_TURN
    return f"{body}\n\n{tail}"


def converse(
    backend: Backend,
    conversations: list[Conversation],
    request: GenerationRequest,
    index: BM25Index,
    max_searches: int = 3,
    k: int = 3,
) -> list[Conversation]:
    """Runs the conversations together, turn by turn (one batched generate call per turn)."""
    active = list(conversations)
    for turn in range(max_searches + 1):
        if not active:
            break
        replies = backend.generate([replace(request, messages=c.messages, n=1) for c in active])
        still = []
        for conversation, [reply] in zip(active, replies):
            conversation.prompt_tokens += reply.prompt_tokens
            conversation.completion_tokens += reply.completion_tokens
            conversation.seconds += reply.seconds
            query = find_search(reply.text) if reply.finish_reason != "error" else None
            if query is None or turn == max_searches:
                conversation.answer = reply
                continue
            conversation.searches.append(query)
            left = max_searches - len(conversation.searches)
            conversation.messages = [
                *conversation.messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": results_message(index, query, k, left)},
            ]
            still.append(conversation)
        active = still
    return conversations

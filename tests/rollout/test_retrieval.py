"""Retrieval mode: BM25 ranking, search-block parsing, and the multi-turn loop with its turn limit."""

from __future__ import annotations

from sebench.instance import Instance
from sebench.rollout.backends import GenerationRequest, get_backend
from sebench.rollout.prompts import PromptBuilder
from sebench.rollout.retrieval import BM25Index, Conversation, converse, find_search, tokenize


def test_tokenize_splits_dotted_names_and_keeps_them():
    words = tokenize("Use zwc.rfx.quvohe for the inverse")
    assert {"zwc", "rfx", "quvohe", "zwc.rfx.quvohe", "inverse"} <= set(words)
    assert "the" not in words


def test_bm25_ranks_the_matching_entry_first(docs):
    index = BM25Index(docs)
    assert index.search("inverse of a matrix", 1)[0].name == "zwc.rfx.quvohe"
    assert index.search("sum of elements", 1)[0].name == "zwc.bemaru"
    assert index.search("sorted ascending", 2)[0].name == "zwc.talup"
    assert index.search("quvohe")[0].name == "zwc.rfx.quvohe"  # by name too
    assert index.search("zzzz unknown words") == []


def test_find_search():
    assert find_search("I need docs.\n```search\nmatrix inverse\n```") == "matrix inverse"
    assert find_search("```python\ndef solve(): pass\n```") is None
    assert find_search("```search\nmean\n```\n```python\nx\n```") is None  # an answer wins
    assert find_search("<think>\n```search\nmean\n```\n") is None  # still thinking
    assert find_search("<think>hmm</think>\n```search\nmean\n```") == "mean"


def _conversation(instance_dir):
    instance = Instance.open(instance_dir)
    builder = PromptBuilder(instance, "retrieval", max_searches=2)
    return Conversation(builder.messages(instance.tasks("single_test")[0]))


def test_search_then_answer(instance_dir, docs):
    answers = ["```search\ninverse matrix\n```", "```python\nimport zwc\ndef solve(readings):\n    return 1\n```"]
    backend = get_backend("fake:", responses=answers)
    [conv] = converse(backend, [_conversation(instance_dir)], GenerationRequest([]), BM25Index(docs), max_searches=2, k=1)
    assert conv.searches == ["inverse matrix"]
    assert conv.answer.text == answers[1]
    assert [m["role"] for m in conv.messages] == ["system", "user", "assistant", "user"]
    results = conv.messages[-1]["content"]
    assert "### zwc.rfx.quvohe" in results and "1 more time" in results
    assert len(backend.calls) == 2


def test_turn_limit_forces_an_answer(instance_dir, docs):
    backend = get_backend("fake:", responses=["```search\nmean\n```"])  # never answers
    [conv] = converse(backend, [_conversation(instance_dir)], GenerationRequest([]), BM25Index(docs), max_searches=2)
    assert conv.searches == ["mean", "mean"]
    assert len(backend.calls) == 3  # two searches and the final turn
    assert "no searches left" in conv.messages[-1]["content"]
    assert conv.answer.text == "```search\nmean\n```"  # recorded as it is; the judge says no_code

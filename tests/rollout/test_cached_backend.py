"""The on-disk answer cache: a request asked again gets its stored answer; other settings, a torn last line
and failed answers are handled as the module says."""

from __future__ import annotations

from sebench.rollout.backends import GenerationRequest
from sebench.rollout.backends.cached import CachedBackend
from sebench.rollout.backends.fake import FakeBackend


def _ask(text: str, seed: int = 0, max_tokens: int = 16) -> GenerationRequest:
    return GenerationRequest([{"role": "user", "content": text}], temperature=0.8, max_tokens=max_tokens, seed=seed)


def test_answers_are_stored_and_read_back_by_a_new_process(tmp_path):
    path = tmp_path / "answers.jsonl"
    first = CachedBackend(FakeBackend(responses=["a", "b", "c"]), path)
    assert [c[0].text for c in first.generate([_ask("x"), _ask("y")])] == ["a", "b"]
    later = CachedBackend(FakeBackend(responses=["new"]), path)
    got = later.generate([_ask("y"), _ask("x"), _ask("x", seed=1), _ask("x", max_tokens=8)])
    assert [c[0].text for c in got] == ["b", "a", "new", "new"]  # another seed or length: a new answer
    assert later.reused == 2 and len(later.inner.calls) == 2


def test_a_torn_last_line_is_cut_off_and_failed_answers_are_not_kept(tmp_path):
    path = tmp_path / "answers.jsonl"
    CachedBackend(FakeBackend(responses=["a"]), path).generate([_ask("x")])
    path.write_text(path.read_text() + '{"key": "torn', encoding="utf-8")
    backend = CachedBackend(FakeBackend(responses=[{"text": "", "finish_reason": "error"}, "b"]), path)
    assert backend.generate([_ask("y")])[0][0].finish_reason == "error"
    assert backend.generate([_ask("y"), _ask("x")])[0][0].text == "b"  # asked again: the failure was not kept
    assert [c[0].text for c in CachedBackend(FakeBackend(), path).generate([_ask("x"), _ask("y")])] == ["a", "b"]

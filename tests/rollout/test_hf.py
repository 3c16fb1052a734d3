"""The hf backend on a tiny random model: batching with left padding, sampling, stops, finish reasons."""

from __future__ import annotations

import pytest

from sebench.rollout.backends import GenerationRequest, get_backend

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    return get_backend(f"hf:{tiny_model_dir}", device="cpu", batch_size=8)


def ask(text: str, **kw) -> GenerationRequest:
    kw.setdefault("max_tokens", 12)
    return GenerationRequest([{"role": "user", "content": text}], **kw)


PROMPTS = ["hi", "a much longer prompt with many more words in it than the first one", "middle sized prompt"]


def test_batched_greedy_equals_one_at_a_time(backend):
    together = backend.generate([ask(p) for p in PROMPTS])
    alone = [backend.generate([ask(p)])[0] for p in PROMPTS]
    assert [c[0].text for c in together] == [c[0].text for c in alone]
    assert [c[0].completion_tokens for c in together] == [c[0].completion_tokens for c in alone]


def test_lengths_and_finish_reasons(backend):
    [[completion]] = backend.generate([ask("hello", max_tokens=7)])
    assert completion.finish_reason == "length" and completion.completion_tokens == 7
    assert completion.prompt_tokens == len(backend.prompt_ids([{"role": "user", "content": "hello"}]))
    assert completion.seconds > 0


def test_sampling_is_seeded_and_gives_n_samples(backend):
    request = ask("hello", n=4, temperature=1.0, seed=3)
    first, second = backend.generate([request])[0], backend.generate([request])[0]
    assert len(first) == 4
    assert [c.text for c in first] == [c.text for c in second]
    assert len({c.text for c in first}) > 1  # a random 49K-vocabulary model: samples differ


def test_greedy_n_generates_once_and_copies(backend):
    [samples] = backend.generate([ask("hello", n=3)])
    assert len(samples) == 3 and len({c.text for c in samples}) == 1


def test_batches_are_cut_by_rows_and_tokens(tiny_model_dir):
    from sebench.rollout.backends.hf import HFBackend

    backend = get_backend(f"hf:{tiny_model_dir}", device="cpu", batch_size=2, max_batch_tokens=10_000)
    assert isinstance(backend, HFBackend)
    rows = [(i, [0] * (10 + i), ask("x", max_tokens=5)) for i in range(5)]
    assert [len(b) for b in backend._batches(rows)] == [2, 2, 1]
    assert [len(r[1]) for r in backend._batches(rows)[0]] == [14, 13]  # longest first
    backend.max_batch_tokens = 30
    assert all(len(b) == 1 for b in backend._batches(rows))


def test_row_stop_ends_at_the_code_block_outside_thinking(backend):
    from sebench.rollout.backends.hf import RowStop

    tok = backend.tokenizer
    texts = ["Sure:\n```python\ndef f():\n    return 1\n```\nand more", "<think>\n```python\nx\n```\n</think> still"]
    finished_at = []
    for text in texts:
        stop = RowStop(tok, stops=None, code_block=True)
        ids = tok(text, add_special_tokens=False)["input_ids"]
        finished_at.append(next((i + 1 for i, t in enumerate(ids) if stop.add(t)), None))
    first = tok.decode(tok(texts[0], add_special_tokens=False)["input_ids"][: finished_at[0]])
    assert first.rstrip().endswith("```") and "and more" not in first
    assert finished_at[1] is None  # the block inside <think> does not count


def _prompts(backend) -> list[list[int]]:
    return [backend.prompt_ids([{"role": "user", "content": p}]) for p in PROMPTS]


def test_generate_tokens_greedy_equals_transformers_generate(backend):
    import torch

    from sebench.rollout.backends.hf import generate_tokens

    for ids in _prompts(backend):
        with torch.inference_mode():
            reference = backend.model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                               max_new_tokens=10, do_sample=False, eos_token_id=[-1],
                                               pad_token_id=backend.pad_id)
        [ours] = generate_tokens(backend.model, [ids], 10, eos_ids=[], pad_id=backend.pad_id)
        assert ours == reference[0, len(ids):].tolist()


def test_a_stopped_row_leaves_the_batch_without_changing_the_others(backend):
    from sebench.rollout.backends.hf import generate_tokens

    prompts = _prompts(backend)
    alone = [generate_tokens(backend.model, [ids], 10, eos_ids=[], pad_id=backend.pad_id)[0] for ids in prompts]
    seen: list[int] = []

    def stop_row_one_early(row: int, token: int) -> bool:
        seen.append(row)
        return row == 1 and len([r for r in seen if r == 1]) == 3

    together = generate_tokens(backend.model, prompts, 10, eos_ids=[], pad_id=backend.pad_id,
                               should_stop=stop_row_one_early)
    assert together[1] == alone[1][:3]  # stopped after its third token, and asked no more
    assert seen.count(1) == 3
    assert together[0] == alone[0] and together[2] == alone[2]


def test_completion_is_cut_after_the_code_block(backend):
    tok = backend.tokenizer
    tokens = tok("```python\nx = 1\n```\ntrailing", add_special_tokens=False)["input_ids"]
    completion = backend._completion(tokens, 5, ask("x"))
    assert completion.text == "```python\nx = 1\n```" and completion.finish_reason == "stop"
    eos = tok.eos_token_id
    completion = backend._completion(tok("done", add_special_tokens=False)["input_ids"] + [eos, eos], 5, ask("x"))
    assert completion.text == "done" and completion.finish_reason == "stop"


def test_prompt_longer_than_the_context_is_cut(backend, caplog):
    backend.context_tokens, saved = 40, backend.context_tokens
    try:
        [[completion]] = backend.generate([ask("word " * 200, max_tokens=5)])
    finally:
        backend.context_tokens = saved
    assert completion.prompt_tokens == 35
    assert any("cut" in r.getMessage() for r in caplog.records)

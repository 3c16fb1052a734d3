"""Fixtures for the training tests: a tiny random model (the embedded model's real tokenizer), the
session's built instance, and scripted sampling for GRPO.

A tiny random model never writes code that the judge accepts, so every GRPO reward would be 0 and no
parameter would move. `scripted_sampling` replaces only the sampling step (generate_tokens): half of each
group gets the task's reference solution, half a non-answer, so the real judge gives rewards 1 and 0;
the log-probabilities, the loss and the update are the real ones.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture
def scripted_sampling(monkeypatch, built_instance):
    """Replaces generate_tokens (the sampling step of rl.py): in each call, even rows get the task's reference
    answer and odd rows a non-answer. Returns the decoded prompts it was asked to continue; add to
    `scripted_sampling.answers` (query -> answer) for tasks that are not in the instance (self-play)."""
    from transformers import AutoTokenizer

    from sebench.instance import Instance
    from sebench.rollout.backends import hf
    from sebench.rollout.prompts import format_answer

    class Calls(list):
        answers = {t.query.strip(): format_answer(t.reference_solution) for t in Instance.open(built_instance).tasks("train")}

    calls, tokenizers = Calls(), {}

    def generate_tokens(model, prompts, max_new_tokens, eos_ids, pad_id, temperature=0.0, top_p=1.0, should_stop=None):
        if model.name_or_path not in tokenizers:
            tokenizers[model.name_or_path] = AutoTokenizer.from_pretrained(model.name_or_path)
        tokenizer = tokenizers[model.name_or_path]
        rows = []
        for i, ids in enumerate(prompts):
            prompt = tokenizer.decode(ids)
            calls.append(prompt)
            answer = next(a for q, a in calls.answers.items() if q in prompt) if i % 2 == 0 else "I do not know."
            rows.append(tokenizer(answer, add_special_tokens=False)["input_ids"] + [eos_ids[0]])
        return rows

    monkeypatch.setattr(hf, "generate_tokens", generate_tokens)
    return calls

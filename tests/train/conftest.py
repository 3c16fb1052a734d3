"""Fixtures for the training tests: a tiny random model (the embedded model's real tokenizer), the
session's built instance, and scripted sampling for GRPO.

A tiny random model never writes code that the judge accepts, so every GRPO reward would be 0 and no
parameter would move. `scripted_sampling` replaces only the sampling step of each engine (the own loop's
generate_tokens, and the model's `generate` that TRL's GRPOTrainer calls): half of each group gets the
task's reference solution, half a non-answer, so the real judge gives rewards 1 and 0; the
log-probabilities, the loss and the update are the real ones.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture
def scripted_sampling(monkeypatch, built_instance):
    """Replaces the sampling step of both GRPO engines (rl.py's generate_tokens; transformers' generate, which
    TRL's GRPOTrainer calls): in each call, even rows get the task's reference answer and odd rows a
    non-answer. Returns the decoded prompts it was asked to continue; add to `scripted_sampling.answers`
    (query -> answer) for tasks that are not in the instance (self-play)."""
    from typing import ClassVar

    import torch
    from transformers import AutoTokenizer, GenerationMixin

    from sebench.instance import Instance
    from sebench.rollout.backends import hf
    from sebench.rollout.prompts import format_answer

    class Calls(list):
        answers: ClassVar[dict[str, str]] = {
            t.query.strip(): format_answer(t.reference_solution) for t in Instance.open(built_instance).tasks("train")}

    calls, tokenizers = Calls(), {}

    def completion(model, ids: list[int], row: int, eos: int) -> list[int]:
        if model.name_or_path not in tokenizers:
            tokenizers[model.name_or_path] = AutoTokenizer.from_pretrained(model.name_or_path)
        tokenizer = tokenizers[model.name_or_path]
        prompt = tokenizer.decode(ids)
        calls.append(prompt)
        answer = next(a for q, a in calls.answers.items() if q in prompt) if row % 2 == 0 else "I do not know."
        return tokenizer(answer, add_special_tokens=False)["input_ids"] + [eos]

    def generate_tokens(model, prompts, max_new_tokens, eos_ids, pad_id, temperature=0.0, top_p=1.0, should_stop=None):
        return [completion(model, ids, i, eos_ids[0]) for i, ids in enumerate(prompts)]

    def generate(model, input_ids=None, attention_mask=None, generation_config=None, **kwargs):
        eos = generation_config.eos_token_id
        rows = [completion(model, ids[mask.bool()].tolist(), i, eos[0] if isinstance(eos, list) else eos)
                for i, (ids, mask) in enumerate(zip(input_ids, attention_mask))]
        out = torch.full((len(rows), max(map(len, rows))), generation_config.pad_token_id, dtype=torch.long)
        for i, row in enumerate(rows):
            out[i, :len(row)] = torch.tensor(row)
        return torch.cat([input_ids, out.to(input_ids.device)], dim=1)

    monkeypatch.setattr(hf, "generate_tokens", generate_tokens)
    monkeypatch.setattr(GenerationMixin, "generate", generate)
    return calls

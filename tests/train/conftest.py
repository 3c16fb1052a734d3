"""Fixtures for the training tests: a tiny random model (the embedded model's real tokenizer), the
session's built instance, and scripted sampling for GRPO.

A tiny random model never writes code that the judge accepts, so every GRPO reward would be 0 and no
parameter would move. `scripted_sampling` replaces only the sampling step (model.generate): half of each
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
    import torch
    import transformers
    from transformers import AutoTokenizer

    from sebench.instance import Instance
    from sebench.rollout.prompts import format_answer

    tasks = Instance.open(built_instance).tasks("train")
    calls, tokenizers = [], {}

    def generate(self, input_ids=None, attention_mask=None, **kwargs):
        if self.name_or_path not in tokenizers:
            tokenizers[self.name_or_path] = AutoTokenizer.from_pretrained(self.name_or_path)
        tokenizer = tokenizers[self.name_or_path]
        rows = []
        for i, ids in enumerate(input_ids):
            prompt = tokenizer.decode(ids[attention_mask[i].bool()])
            task = next(t for t in tasks if t.query.strip() in prompt)
            answer = format_answer(task.reference_solution) if i % 2 == 0 else "I do not know."
            rows.append(tokenizer(answer + tokenizer.eos_token, add_special_tokens=False)["input_ids"])
            calls.append(task.task_id)
        width = max(map(len, rows))
        completions = torch.tensor([r + [tokenizer.eos_token_id] * (width - len(r)) for r in rows])
        return torch.cat([input_ids, completions.to(input_ids.device)], dim=1)

    monkeypatch.setattr(transformers.LlamaForCausalLM, "generate", generate)
    return calls


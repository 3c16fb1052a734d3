"""The GRPO loop's pieces: group advantages and the clipped surrogate's switches (on the tiny model)."""

from __future__ import annotations

import pytest

from sebench.train import TrainConfig, rl

pytest.importorskip("torch")


def test_group_advantages_are_normalised_within_each_group():
    adv = rl._group_advantages([1.0, 0.0, 0.0, 0.0, 1.0, 1.0], 2)
    assert adv[0] == pytest.approx(-adv[1]) and adv[0] > 0.7
    assert adv[2:4] == [0.0, 0.0] and adv[4:] == [0.0, 0.0]  # equal rewards: no signal


def _gradients(tiny_model, tmp_path, advantages, negative_advantages):
    import torch

    from sebench.models import load_causal_lm

    model, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    cfg = TrainConfig(data=tmp_path, regime="closed-rl", out=tmp_path, batch_size=2, num_generations=2,
                      negative_advantages=negative_advantages).resolved()
    prompt = tokenizer("Sum the values.", add_special_tokens=False)["input_ids"]
    completions = [tokenizer(text, add_special_tokens=False)["input_ids"][:5] for text in ("return a + b c", "x = 1 2 3 4")]
    with torch.no_grad():
        old, mask = rl.token_logps(model, [prompt] * len(completions), completions, 1.0, 0)
    tensors = [rl._Tensors(prompt, prompt, c, old[i][mask[i]]) for i, c in enumerate(completions)][:len(advantages)]
    samples = [rl.Sample("s", 1, "t", "open", "closed", c, "", 0.0, a) for c, a in zip(completions, advantages)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    rl._update(model, optimizer, samples, tensors, cfg, 0)
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


def test_dropped_negative_advantages_give_no_gradient(tiny_model, tmp_path):
    import torch

    kept = _gradients(tiny_model, tmp_path, [1.0, -1.0], "keep")
    dropped = _gradients(tiny_model, tmp_path, [1.0, -1.0], "drop")
    positive_only = _gradients(tiny_model, tmp_path, [1.0], "keep")
    cosine = torch.nn.functional.cosine_similarity
    assert float(cosine(dropped, positive_only, dim=0)) == pytest.approx(1.0, abs=1e-5)  # only the positive one
    assert float(cosine(kept, positive_only, dim=0)) < 0.99  # the negative sample pushes too

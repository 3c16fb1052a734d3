"""The GRPO loop's pieces: group advantages, the loss's rules (each as the original's core_algos.py has
it) and the clipped surrogate's switches (on the tiny model)."""

from __future__ import annotations

import math

import pytest

from sebench.train import TrainConfig, rl
from sebench.train.loss import LossSettings, Normaliser, group_advantages, policy_loss

pytest.importorskip("torch")


def test_group_advantages_are_normalised_within_each_group():
    adv = group_advantages([1.0, 0.0, 0.0, 0.0, 1.0, 1.0], 2)
    # (r - mean) / (unbiased std + 1e-6), the original's epsilon (sebench had 1e-4)
    assert adv[0] == pytest.approx(0.5 / (math.sqrt(0.5) + 1e-6), rel=1e-9) and adv[1] == pytest.approx(-adv[0])
    assert adv[2:4] == [0.0, 0.0] and adv[4:] == [0.0, 0.0]  # equal rewards: no signal


def _loss(new, old, advantages, lengths, **settings):
    import torch

    width = max(lengths)
    mask = torch.tensor([[1.0] * n + [0.0] * (width - n) for n in lengths])
    new_t = torch.tensor([row + [0.0] * (width - len(row)) for row in new])
    old_t = torch.tensor([row + [0.0] * (width - len(row)) for row in old])
    s = LossSettings(**settings)
    norm = Normaliser(samples=len(lengths), tokens=sum(lengths))
    return float(policy_loss(new_t, old_t, torch.tensor(advantages), mask, s, norm))


def test_dual_clip_bounds_a_negative_advantage_tokens_loss():
    # A = -1, ratio e^3: the PPO clip keeps max(e^3, 1.2) = e^3; the dual clip caps it at c = 3
    assert _loss([[3.0]], [[0.0]], [-1.0], [1]) == pytest.approx(3.0)
    assert _loss([[3.0]], [[0.0]], [-1.0], [1], dual_clip=0.0) == pytest.approx(math.exp(3.0), rel=1e-5)
    assert _loss([[3.0]], [[0.0]], [1.0], [1]) == pytest.approx(-1.2)  # positive advantages: the upper clip


def test_the_log_ratio_is_clamped_to_20():
    # without the dual clip, a negative advantage at log-ratio 30 costs e^20, not e^30
    assert _loss([[30.0]], [[0.0]], [-1.0], [1], dual_clip=0.0) == pytest.approx(math.exp(20.0), rel=1e-5)
    assert _loss([[30.0]], [[0.0]], [-1.0], [1], dual_clip=0.0, log_ratio_clamp=0.0) == pytest.approx(
        math.exp(30.0), rel=1e-4)


def test_the_loss_is_each_samples_token_mean_averaged():
    # ratio 1 everywhere: a token's loss is -A; sample 1 (1 token, A = 1), sample 2 (3 tokens, A = -1)
    new = [[0.0], [0.0, 0.0, 0.0]]
    assert _loss(new, new, [1.0, -1.0], [1, 3]) == pytest.approx((-1.0 + 1.0) / 2)  # each sample weighs the same
    assert _loss(new, new, [1.0, -1.0], [1, 3], loss_agg="token-mean") == pytest.approx((-1 + 3) / 4)


def test_the_train_config_defaults_are_the_originals():
    cfg = TrainConfig(data=".", regime="closed-rl", out=".").resolved()
    assert (cfg.old_logps, cfg.dual_clip, cfg.log_ratio_clamp, cfg.loss_agg) == ("recompute", 3.0, 20.0,
                                                                              "seq-mean-token-mean")


def _gradients(tiny_model, tmp_path, advantages, negative_advantages, grad_split=False, stats=None):
    import torch

    from sebench.models import load_causal_lm

    model, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    cfg = TrainConfig(data=tmp_path, regime="closed-rl", out=tmp_path, batch_size=2, num_generations=2,
                      negative_advantages=negative_advantages, grad_split=grad_split).resolved()
    prompt = tokenizer("Sum the values.", add_special_tokens=False)["input_ids"]
    completions = [tokenizer(text, add_special_tokens=False)["input_ids"][:5] for text in ("return a + b c", "x = 1 2 3 4")]
    with torch.no_grad():
        old, mask = rl.token_logps(model, [prompt] * len(completions), completions, 1.0, 0)
    tensors = [rl._Tensors(prompt, prompt, c, old[i][mask[i]]) for i, c in enumerate(completions)][:len(advantages)]
    samples = [rl.Sample("s", 1, "t", "open", "closed", c, "", 0.0, a) for c, a in zip(completions, advantages)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    got = rl._update(model, optimizer, samples, tensors, cfg, LossSettings.of(cfg), 0, on_policy=False)
    if stats is not None:
        stats.update(got)
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


def test_dropped_negative_advantages_give_no_gradient(tiny_model, tmp_path):
    import torch

    kept = _gradients(tiny_model, tmp_path, [1.0, -1.0], "keep")
    dropped = _gradients(tiny_model, tmp_path, [1.0, -1.0], "drop")
    positive_only = _gradients(tiny_model, tmp_path, [1.0], "keep")
    cosine = torch.nn.functional.cosine_similarity
    assert float(cosine(dropped, positive_only, dim=0)) == pytest.approx(1.0, abs=1e-5)  # only the positive one
    assert float(cosine(kept, positive_only, dim=0)) < 0.99  # the negative sample pushes too


def test_split_gradients_add_up_to_the_whole_and_are_measured(tiny_model, tmp_path):
    import torch

    whole = _gradients(tiny_model, tmp_path, [1.0, -1.0], "keep")
    stats = {}
    split = _gradients(tiny_model, tmp_path, [1.0, -1.0], "keep", grad_split=True, stats=stats)
    assert torch.allclose(whole, split, atol=1e-7)
    alone = {}
    _gradients(tiny_model, tmp_path, [1.0], "keep", stats=alone)  # (the gradients come back clipped to norm 1)
    # the positive sample alone, with the mini-batch's two samples in the denominator as in the split
    assert stats["grad_norm_positive"] == pytest.approx(alone["grad_norm"] / 2, rel=1e-4)
    assert stats["grad_norm_negative"] > 0 and -1.0 <= stats["grad_cosine"] <= 1.0
    positive = {}
    _gradients(tiny_model, tmp_path, [1.0], "keep", grad_split=True, stats=positive)
    assert positive["grad_norm_negative"] == 0 and positive["grad_cosine"] is None  # JSON null, not NaN

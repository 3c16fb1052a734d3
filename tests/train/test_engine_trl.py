"""The TRL engine (--engine trl, engine_trl.py) beside the own loop (rl.py): on the same batch (completions,
advantages, old log-probabilities), the engine's loss and gradient are the own loop's; the engine's settings
and refusals; its reward judged on a sandbox server. (Each RL regime trains through both engines in
test_regimes.py and test_selfplay.py.)"""

from __future__ import annotations

import pytest

from sebench.errors import SebenchError
from sebench.train import TrainConfig, grpo, rl

pytest.importorskip("trl")
torch = pytest.importorskip("torch")

ADVANTAGES = [1.0, -1.0, 0.5, -2.0]


def _batch(tokenizer):
    """Four samples of different prompt and completion lengths, and off-policy old log-probabilities
    (built below) that make every rule of the loss act: the PPO clip on both sides, the dual clip and the
    log-ratio clamp."""
    prompts = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in
               ("Sum the values.", "Return the largest reading of the day.", "Sort.", "Count the words in it.")]
    completions = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in
                   ("return a + b", "x = max(readings) ; return x", "sorted(v)", "len(s.split())")]
    return prompts, completions


def _old_logps(new, mask):
    """Per-token old log-probabilities: the new ones shifted so that ratios fall below 1 - eps, above 1 + eps,
    far above the dual clip (e^5, negative advantage) and beyond the clamp (log-ratio 25)."""
    shifts = torch.tensor([0.5, -0.5, 0.05, 25.0, -5.0, -0.3])  # new - old, token by token
    old = new.clone()
    for j in range(new.shape[0]):
        n = int(mask[j].sum())
        old[j, :n] = new[j, :n] - shifts.roll(j).repeat(n // len(shifts) + 1)[:n]
    return old


def _config(tmp_path, loss_agg):
    return TrainConfig(data=tmp_path, regime="closed-rl", out=tmp_path, batch_size=2, grad_accum=2,
                       num_generations=2, temperature=0.7, loss_agg=loss_agg, engine="trl").resolved()


def _own_loop(tiny_model, cfg, prompts, completions):
    """The own loop's update (rl._update) on the batch: its loss, gradient norm and gradient."""
    from sebench.models import load_causal_lm
    from sebench.train.loss import LossSettings

    model, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    with torch.no_grad():
        new, mask = rl.token_logps(model, prompts, completions, cfg.temperature, tokenizer.pad_token_id)
    old = _old_logps(new, mask)
    tensors = [rl._Tensors(p, p, c, old[j][mask[j]]) for j, (p, c) in enumerate(zip(prompts, completions))]
    samples = [rl.Sample("grpo", 1, "t", "open", "closed", c, "", 0.0, a) for c, a in zip(completions, ADVANTAGES)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    stats = rl._update(model, optimizer, samples, tensors, cfg, LossSettings.of(cfg), tokenizer.pad_token_id,
                       on_policy=False)
    grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    return stats, grads, old, mask


def _engine(tiny_model, cfg, prompts, completions, old, mask, tmp_path):
    """The engine's loss (SebenchGRPOTrainer._compute_loss) on the same batch, cut as TRL cuts it: two
    micro-batches of --batch-size rows accumulated into one optimizer step."""
    from trl.trainer.utils import pad

    from sebench.models import load_causal_lm
    from sebench.train.artifacts import LossLog
    from sebench.train.engine_trl import grpo_trainer

    model, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    rows = [{"prompt": [{"role": "user", "content": "q"}], "sample_prompt": [{"role": "user", "content": "q"}],
             "task_id": f"t{i}", "sample_mode": "open", "train_mode": "closed"} for i in range(2)]
    trainer = grpo_trainer(model, tokenizer, None, [], rows, cfg, LossLog(), "grpo", 0)
    trainer.samples.start([rl.Sample("grpo", 1, "t", "open", "closed", c, "", 0.0, a)
                           for c, a in zip(completions, ADVANTAGES)], sample_logp_is_old=False)
    micro_batches = []
    for rows_of in ([0, 1], [2, 3]):
        micro_batches.append({
            "prompt_ids": pad([torch.tensor(prompts[j]) for j in rows_of], tokenizer.pad_token_id, "left"),
            "prompt_mask": pad([torch.ones(len(prompts[j]), dtype=torch.long) for j in rows_of], 0, "left"),
            "completion_ids": pad([torch.tensor(completions[j]) for j in rows_of], tokenizer.pad_token_id, "right"),
            "completion_mask": pad([torch.ones(len(completions[j]), dtype=torch.long) for j in rows_of], 0, "right"),
            "old_per_token_logps": pad([old[j][mask[j]] for j in rows_of], 0.0, "right"),
            "advantages": torch.tensor([ADVANTAGES[j] for j in rows_of]),
            "sample_index": torch.tensor(rows_of),
        })
    trainer._add_normalisers(micro_batches)
    model = trainer.model
    model.train()
    loss = 0.0
    for batch in micro_batches:  # on the trainer's device, where TRL's own batches are (the GPU if one is visible)
        part = trainer._compute_loss(model, {k: v.to(trainer.accelerator.device) if torch.is_tensor(v) else v
                                             for k, v in batch.items()})
        part.backward()
        loss += float(part.detach())
    grads = torch.cat([p.grad.flatten().cpu() for p in model.parameters() if p.grad is not None])
    return loss, grads, trainer.samples.rows


@pytest.mark.parametrize("loss_agg", ["seq-mean-token-mean", "token-mean"])
def test_the_engines_loss_and_gradient_are_the_own_loops(tiny_model, tmp_path, loss_agg, monkeypatch):
    from sebench.models import load_causal_lm

    # Both in fp32, the own loop on the CPU and the engine where its trainer puts it: on a GPU with bf16 the trainer
    # would run its forward passes in bf16 autocast, 6.5e-4 off in relative loss on an H200 (2026-11-26).
    monkeypatch.setattr("sebench.train.sft.gpu_bf16", lambda device="cuda": False)
    cfg = _config(tmp_path, loss_agg)
    _, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    prompts, completions = _batch(tokenizer)
    stats, own_grads, old, mask = _own_loop(tiny_model, cfg, prompts, completions)
    loss, grads, records = _engine(tiny_model, cfg, prompts, completions, old, mask, tmp_path)
    assert loss == pytest.approx(stats["loss"], rel=1e-4, abs=1e-6)
    assert float(grads.norm()) == pytest.approx(stats["grad_norm"], rel=1e-4)  # rl._update clips its own to 1
    assert float(torch.nn.functional.cosine_similarity(grads, own_grads, dim=0)) == pytest.approx(1.0, abs=1e-5)
    for j, record in enumerate(records):  # both sides of the ratio, recorded as the own loop records them
        assert record.old_logp == pytest.approx(float(old[j][mask[j]].sum()), rel=1e-5)
        assert record.new_logp != pytest.approx(record.old_logp)


def test_the_loss_rules_act_on_that_batch(tiny_model, tmp_path):
    """The agreement above is not that of two unclipped surrogates: on the same batch, switching off the dual
    clip or the clamp changes the own loop's loss."""
    from sebench.models import load_causal_lm

    _, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    prompts, completions = _batch(tokenizer)
    losses = {}
    for name, options in {"all": {}, "no dual clip": {"dual_clip": 0.0}, "no clamp": {"dual_clip": 0.0, "log_ratio_clamp": 0.0}}.items():
        cfg = TrainConfig(data=tmp_path, regime="closed-rl", out=tmp_path, batch_size=2, grad_accum=2, num_generations=2,
                          temperature=0.7, **options).resolved()
        losses[name] = _own_loop(tiny_model, cfg, prompts, completions)[0]["loss"]
    assert losses["all"] != pytest.approx(losses["no dual clip"], rel=1e-3)
    assert losses["no dual clip"] != pytest.approx(losses["no clamp"], rel=1e-3)


def test_auto_is_the_own_loop_on_a_cpu(tmp_path):
    cfg = TrainConfig(data=tmp_path, regime="closed-rl", out=tmp_path).resolved()
    assert cfg.engine == "auto" and grpo.rl_engine(cfg) == ("trl" if torch.cuda.is_available() else "own")


@pytest.mark.parametrize("options, message", [
    ({"grad_accum": 3, "batch_size": 2, "mini_batches": 2, "num_generations": 2}, "must divide --grad-accum 3"),
    ({"grad_split": True}, "--grad-split"),
])
def test_the_engine_refuses_what_it_cannot_honour(built_instance, tmp_path, options, message):
    from sebench.train.run import train_model

    with pytest.raises(SebenchError, match=message):
        train_model(TrainConfig(data=built_instance, regime="closed-rl", out=tmp_path / "x", engine="trl", **options))
    assert not (tmp_path / "x").exists()  # refused before anything was written


def test_the_own_loop_refuses_several_processes(built_instance, tmp_path, monkeypatch):
    from sebench.train.run import train_model

    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(SebenchError, match="use --engine trl"):
        train_model(TrainConfig(data=built_instance, regime="closed-rl", out=tmp_path / "x", engine="own"))


def test_the_code_block_cut_keeps_the_token_that_closes_it(tiny_model):
    from sebench.models import load_causal_lm
    from sebench.train.engine_trl import cut_at_code_block

    _, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    answer = "Here:\n```python\nprint(1)\n```"
    ids = tokenizer(answer + "\nand more text after it", add_special_tokens=False)["input_ids"]
    cut = cut_at_code_block(tokenizer, ids)
    assert tokenizer.decode(cut).endswith("```") and tokenizer.decode(cut).startswith("Here:")
    assert len(cut) < len(ids)
    assert cut_at_code_block(tokenizer, ids[:5]) == ids[:5]  # no complete block: kept whole


def test_the_engines_reward_can_be_judged_on_sandbox_servers(built_instance):
    import threading

    from sebench.instance import Instance
    from sebench.judge.sandbox_server import serve
    from sebench.rollout.prompts import format_answer
    from sebench.train.engine_trl import judge_reward
    from sebench.train.reward import reward_judge

    ready, holder = threading.Event(), {}
    thread = threading.Thread(target=serve, args=(built_instance, "127.0.0.1", 0, 2, 3.0), daemon=True,
                              kwargs={"ready": lambda server: (holder.setdefault("server", server), ready.set())})
    thread.start()
    assert ready.wait(120)
    url = f"http://127.0.0.1:{holder['server'].server_address[1]}"
    tasks = Instance.open(built_instance).tasks("train")[:2]
    try:
        with reward_judge(Instance.open(built_instance), "binary", 2, sandbox_urls=[url]) as judge:
            assert judge.sandbox_urls == [url]
            reward = judge_reward(judge, tasks, "binary")
            completions = [[{"role": "assistant", "content": format_answer(t.reference_solution)}] for t in tasks]
            completions[1] = [{"role": "assistant", "content": "I do not know."}]
            assert reward([], completions, task_id=[t.task_id for t in tasks]) == [1.0, 0.0]
    finally:
        holder["server"].shutdown()
        thread.join(30)
    with pytest.raises(SebenchError, match="local sandbox"):
        reward_judge(Instance.open(built_instance), "original", 2, sandbox_urls=[url])

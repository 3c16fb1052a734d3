"""Every regime trains a tiny random model for 2 steps: parameters change, the run writes its artifacts,
and the checkpoint reloads (load_causal_lm, the hf backend) and answers. The RL regimes run on both GRPO
engines (--engine own: rl.py; trl: TRL's GRPOTrainer with sebench's loss, engine_trl.py) under the same
assertions."""

from __future__ import annotations

import csv
import json

import pytest

from sebench.records import Rollout, Verdict, write_records
from sebench.train.config import TrainConfig
from sebench.train.run import train_model

pytest.importorskip("trl")
pytest.importorskip("peft")

ENGINES = ["own", "trl"]


def _weights(folder):
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def _changed(before, after):
    return [name for name, value in before.items() if not bool((after[name] == value).all())]


def _train(built_instance, tiny_model, out, **options):
    defaults = dict(data=built_instance, out=out, model=str(tiny_model), max_steps=2, batch_size=1,
                    max_examples=4, judge_workers=2, num_generations=2, max_completion_length=96)
    if "rl" in options["regime"]:
        defaults["batch_size"] = 2  # one group of 2 samples a step
    defaults.update(options)
    return train_model(TrainConfig(**defaults))


def _shortest_open_tasks(built_instance):
    """Train tasks, shortest open-book prompt first (docs make prompts long; the time is in the logits)."""
    from sebench.instance import Instance
    from sebench.rollout.prompts import PromptBuilder

    instance = Instance.open(built_instance)
    builder = PromptBuilder(instance, "open")
    return sorted(instance.tasks("train"), key=lambda t: len(builder.messages(t)[-1]["content"]))


def _loss_rows(ckpt):
    with (ckpt / "loss.csv").open() as handle:
        return list(csv.DictReader(handle))


def _check_checkpoint(ckpt, tiny_model):
    assert _changed(_weights(tiny_model), _weights(ckpt)), "no parameter changed"
    for name in ("train_config.json", "loss.csv", "loss.png", "train_data.jsonl", "tokenizer.json"):
        assert (ckpt / name).is_file(), name
    assert not (ckpt / "adapter_config.json").exists()  # LoRA is merged, never saved as an adapter
    assert not (ckpt / "trainer").exists()
    info = json.loads((ckpt / "train_config.json").read_text())
    assert info["seed"] == 0 and len(info["data_sha256"]) == 64 and info["versions"]["trl"]
    assert "manifest" in info["input_sha256"]
    from sebench.models import load_causal_lm

    model, tokenizer = load_causal_lm(str(ckpt), device="cpu")
    ids = tokenizer("import", return_tensors="pt")["input_ids"]
    assert model(ids).logits.shape[-1] == len(tokenizer)
    return info


def test_closed_sft_on_reference_solutions(built_instance, tiny_model, tmp_path):
    ckpt = _train(built_instance, tiny_model, tmp_path / "closed", regime="closed-sft")
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["config"]["train_source"] == "reference" and info["examples"] == 4
    rows = _loss_rows(ckpt)
    assert [r["step"] for r in rows] == ["1", "2"] and all(float(r["loss"]) > 0 for r in rows)
    example = json.loads((ckpt / "train_data.jsonl").read_text().splitlines()[0])
    assert "Documentation of" not in example["prompt"][-1]["content"]  # closed-book prompt

    from sebench.rollout.backends import GenerationRequest, get_backend

    backend = get_backend(f"hf:{ckpt}", device="cpu")
    [[completion]] = backend.generate([GenerationRequest(messages=example["prompt"], max_tokens=4)])
    assert completion.completion_tokens > 0 and completion.finish_reason in ("stop", "length")


def test_open_sft_with_lora_on_judged_rollouts(built_instance, tiny_model, tmp_path):
    tasks = _shortest_open_tasks(built_instance)[:3]
    rollouts = [
        Rollout(t.task_id, 0, "open", "m", [], "```python\n" + t.reference_solution + "```", t.reference_solution, "stop")
        for t in tasks
    ]
    verdicts = [Verdict(t.task_id, 0, "correct", 1, 1, {"mode": "open"}) for t in tasks]
    write_records(tmp_path / "rollouts.jsonl", rollouts)
    write_records(tmp_path / "verdicts.jsonl", verdicts)
    ckpt = _train(built_instance, tiny_model, tmp_path / "open", regime="open-sft", rollouts=tmp_path / "rollouts.jsonl",
                  lora=True, lora_r=2, lr=1e-2)
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["config"]["train_source"] == "rollouts" and info["examples"] == 3
    assert {"rollouts", "verdicts"} <= set(info["input_sha256"])
    example = json.loads((ckpt / "train_data.jsonl").read_text().splitlines()[0])
    assert "Documentation of" in example["prompt"][-1]["content"]  # open-book prompt


def _one_short_task(built_instance) -> dict:
    """Options that train on one task with a short open-book prompt (docs make prompts long)."""
    return {"functions": _shortest_open_tasks(built_instance)[0].selected_functions, "max_examples": 1}


def _samples(ckpt):
    return [json.loads(line) for line in (ckpt / "rl_samples.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("regime, reward", [("closed-rl", "binary"), ("open-rl", "graded")])
def test_rl_with_the_judge_as_reward(built_instance, tiny_model, tmp_path, scripted_sampling, regime, reward, engine):
    from sebench.train.loss import group_advantages

    ckpt = _train(built_instance, tiny_model, tmp_path / regime, regime=regime, reward=reward, epsilon_high=0.28,
                  engine=engine, **_one_short_task(built_instance))
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["config"]["epsilon_high"] == 0.28 and info["config"]["sample_mode"] == "open"
    assert info["config"]["engine"] == engine
    assert len(scripted_sampling) == 4  # 2 steps x 1 prompt x 2 samples
    assert all("Documentation of" in prompt for prompt in scripted_sampling)  # both sample with the docs
    rows = _loss_rows(ckpt)
    assert [r["stage"] for r in rows] == ["grpo", "grpo"]
    assert all(float(r["reward"]) == 0.5 for r in rows)  # the reference scores 1, the non-answer 0
    if engine == "own":  # epochs of the prompts seen: one prompt a step
        assert [float(r["epoch"]) for r in rows] == [1.0, 2.0]
    samples = _samples(ckpt)
    assert [s["reward"] for s in samples] == [1.0, 0.0, 1.0, 0.0]
    assert [s["advantage"] for s in samples] == pytest.approx(group_advantages([1.0, 0.0, 1.0, 0.0], 2))
    assert {s["train_mode"] for s in samples} == {"closed" if regime == "closed-rl" else "open"}


def _start_logp(model_dir, messages, completion_ids, temperature):
    """The starting model's log-probability of a completion after a prompt: one plain forward pass, on the
    device and in the precision that training uses (fp32 weights, bf16 autocast on a GPU that has it)."""
    import torch

    from sebench.models import load_causal_lm, mixed_precision, resolve_device

    device = resolve_device(None)
    model, tokenizer = load_causal_lm(str(model_dir), device=device, dtype=torch.float32)
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad(), mixed_precision(device):
        logits = model(torch.tensor([prompt + completion_ids], device=device)).logits[0, len(prompt) - 1:-1].float()
    logps = torch.log_softmax(logits / temperature, dim=-1).cpu()
    return float(logps.gather(-1, torch.tensor(completion_ids)[:, None]).sum())


def _logp_tolerance(on_open, on_closed):
    """How near a recorded log-probability must be to its reference: 1e-4 in fp32; in bf16 mixed precision,
    whose rounding depends on the batch's shape, a quarter of what separates the two prompts' values."""
    from sebench.models import gpu_bf16

    return abs(on_open - on_closed) / 4 if gpu_bf16() else 1e-4


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("old_logps", ["sampling", "recompute"])
def test_closed_rl_samples_open_and_computes_its_loss_closed(built_instance, tiny_model, tmp_path, scripted_sampling,
                                                              old_logps, engine):
    from sebench.instance import Instance
    from sebench.rollout.prompts import PromptBuilder

    ckpt = _train(built_instance, tiny_model, tmp_path / "closed-rl", regime="closed-rl", max_steps=1,
                  temperature=0.25, old_logps=old_logps, engine=engine, **_one_short_task(built_instance))
    instance = Instance.open(built_instance)
    task = next(t for t in instance.tasks("train") if t.task_id == _samples(ckpt)[0]["task_id"])
    open_prompt, closed_prompt = (PromptBuilder(instance, m).messages(task) for m in ("open", "closed"))
    assert all(task.query.strip() in p and "Documentation of" in p for p in scripted_sampling)
    for sample in _samples(ckpt):  # one step: every sample met the starting model
        on_open = _start_logp(tiny_model, open_prompt, sample["completion_ids"], 0.25)
        on_closed = _start_logp(tiny_model, closed_prompt, sample["completion_ids"], 0.25)
        assert abs(on_open - on_closed) > 1e-3  # the two prompts give the completion different probabilities
        tol, seen = _logp_tolerance(on_open, on_closed), (on_open, on_closed, sample)
        assert sample["new_logp"] == pytest.approx(on_closed, abs=tol), seen  # the loss is on the closed prompt
        expected_old = on_open if old_logps == "sampling" else on_closed
        assert sample["old_logp"] == pytest.approx(expected_old, abs=tol), seen
        assert sample["sample_logp"] == pytest.approx(on_open, abs=tol), seen  # recorded either way
        if old_logps == "recompute":  # the original's rule, one mini-batch: on-policy, the ratio exactly 1
            assert sample["old_logp"] == sample["new_logp"]


@pytest.mark.parametrize("engine", ENGINES)
def test_closed_rl_by_default_is_on_policy_on_the_closed_prompt(built_instance, tiny_model, tmp_path, scripted_sampling,
                                                                engine):
    """The original's Closed-RL (offline_ray_trainer.py + dp_actor.py): old log-probabilities on the closed
    prompt, one mini-batch, so the first update's ratio is 1 for every sample."""
    ckpt = _train(built_instance, tiny_model, tmp_path / "closed-rl", regime="closed-rl", max_steps=2, engine=engine,
                  **_one_short_task(built_instance))
    samples = _samples(ckpt)
    assert samples and all(s["old_logp"] == s["new_logp"] for s in samples)
    assert all(s["sample_logp"] != s["new_logp"] for s in samples)  # sampled on another prompt
    steps = [json.loads(line) for line in (ckpt / "rl_steps.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2] and all(s["positive"] == s["negative"] == 1 for s in steps)


@pytest.mark.parametrize("engine", ENGINES)
def test_closed_sft_rl_runs_closed_sft_then_closed_rl(built_instance, tiny_model, tmp_path, scripted_sampling, engine):
    ckpt = _train(built_instance, tiny_model, tmp_path / "closed-sft-rl", regime="sft-grpo", batch_size=2,  # the earlier name
                  negative_advantages="drop", engine=engine)
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["config"]["regime"] == "closed-sft-rl"
    assert info["sft_examples"] == 4 and info["grpo_prompts"] == 4
    rows = _loss_rows(ckpt)
    assert [(r["stage"], r["step"]) for r in rows] == [("closed-sft", "1"), ("closed-sft", "2"), ("grpo", "3"), ("grpo", "4")]
    assert all("Documentation of" in prompt for prompt in scripted_sampling)


def test_an_existing_checkpoint_is_not_overwritten(built_instance, tiny_model, tmp_path):
    from sebench.errors import SebenchError

    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    with pytest.raises(SebenchError, match="--overwrite"):
        _train(built_instance, tiny_model, tmp_path / "ckpt", regime="closed-sft")


def test_bad_data_fails_before_the_model_is_loaded(built_instance, tmp_path):
    from sebench.errors import SebenchError

    with pytest.raises(SebenchError, match="is not a function of package"):  # not the unknown model's error
        train_model(TrainConfig(data=built_instance, regime="closed-rl", out=tmp_path / "x", model="no-such-model",
                        functions=["nope.nope"]))
    assert not (tmp_path / "x").exists()

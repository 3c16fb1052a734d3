"""Every regime trains a tiny random model for 2 steps: parameters change, the run writes its artifacts,
and the checkpoint reloads (load_causal_lm, the hf backend) and answers."""

from __future__ import annotations

import csv
import json

import pytest

from sebench.records import Rollout, Verdict, write_records
from sebench.train.config import TrainConfig
from sebench.train.run import run

pytest.importorskip("trl")
pytest.importorskip("peft")


def _weights(folder):
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def _changed(before, after):
    return [name for name, value in before.items() if not bool((after[name] == value).all())]


def _train(built_instance, tiny_model, out, **options):
    defaults = dict(data=built_instance, out=out, model=str(tiny_model), max_steps=2, batch_size=1,
                    max_examples=4, judge_workers=2, num_generations=2, max_completion_length=96)
    defaults.update(options)
    if defaults["regime"] in ("grpo-open", "grpo-closed", "sft-grpo"):
        defaults["batch_size"] = 2
    return run(TrainConfig(**defaults))


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


@pytest.mark.parametrize("regime, reward", [("grpo-closed", "binary"), ("grpo-open", "graded")])
def test_grpo_with_the_judge_as_reward(built_instance, tiny_model, tmp_path, scripted_sampling, regime, reward):
    options = {}
    if regime == "grpo-open":
        options = {"functions": _shortest_open_tasks(built_instance)[0].selected_functions, "max_examples": 1}
    ckpt = _train(built_instance, tiny_model, tmp_path / regime, regime=regime, reward=reward, epsilon_high=0.28,
                  **options)
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["config"]["epsilon_high"] == 0.28
    assert len(scripted_sampling) == 4  # 2 steps x 1 prompt x 2 samples
    rows = _loss_rows(ckpt)
    assert [r["stage"] for r in rows] == ["grpo", "grpo"]
    assert all(float(r["reward"]) == 0.5 for r in rows)  # the reference scores 1, the non-answer 0


def test_sft_grpo_runs_closed_sft_then_grpo(built_instance, tiny_model, tmp_path, scripted_sampling):
    ckpt = _train(built_instance, tiny_model, tmp_path / "sft-grpo", regime="sft-grpo")
    info = _check_checkpoint(ckpt, tiny_model)
    assert info["sft_examples"] == 4 and info["grpo_prompts"] == 4
    rows = _loss_rows(ckpt)
    assert [(r["stage"], r["step"]) for r in rows] == [("closed-sft", "1"), ("closed-sft", "2"), ("grpo", "3"), ("grpo", "4")]


def test_an_existing_checkpoint_is_not_overwritten(built_instance, tiny_model, tmp_path):
    from sebench.errors import SebenchError

    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    with pytest.raises(SebenchError, match="--overwrite"):
        _train(built_instance, tiny_model, tmp_path / "ckpt", regime="closed-sft")


def test_bad_data_fails_before_the_model_is_loaded(built_instance, tmp_path):
    from sebench.errors import SebenchError

    with pytest.raises(SebenchError, match="is not a function of package"):  # not the unknown model's error
        run(TrainConfig(data=built_instance, regime="grpo-closed", out=tmp_path / "x", model="no-such-model",
                        functions=["nope.nope"]))
    assert not (tmp_path / "x").exists()

"""`sebench run --plan`: its numbers follow from the config (and change with it), its memory formulas count what
transformers and peft build, and it touches no GPU and no network."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.experiment import plan_model as pm
from sebench.instance import Instance

SRC = Path(__file__).resolve().parents[2] / "src"
TINY_QWEN3 = {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 3,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "intermediate_size": 96,
              "vocab_size": 300, "tie_word_embeddings": False}


def _plan(tmp_path: Path, instance: Path | None, *flags: str) -> tuple[int, dict]:
    out = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
    args = ["run", "--preset", "gpu", "--out", str(out), "--plan", *flags]
    code = main(args + (["--instance", str(instance)] if instance else []))
    return code, json.loads((out / "plan.json").read_text())


def _stage(plan: dict, name: str) -> dict:
    return next(s for s in plan["stages"] if s["stage"] == name)


def test_steps_follow_from_the_config_and_the_instance(built_instance, tmp_path):
    tasks = len([t for t in Instance.open(built_instance).tasks("train") if t.is_valid])
    _, plan = _plan(tmp_path, built_instance)
    assert plan["counts"]["train"] == tasks
    # GRPO: epochs x (prompts // prompts a batch) batches, mini-batches steps each (gpu preset: 2 x 128 / 8 = 32)
    assert _stage(plan, "closed-rl: GRPO")["steps"] == 30 * (tasks // 32) * 1
    assert _stage(plan, "open-rl: GRPO")["steps"] == 3 * (tasks // 32) * 2
    assert _stage(plan, "closed-rl: GRPO")["samples"] == 30 * (tasks // 32) * 32 * 8
    # SFT: judged-correct answers (tasks x 5 samples x the assumed share), ceil(epochs x ceil(ceil(n / 4) / 8))
    examples = round(tasks * 5 * 0.6)
    assert _stage(plan, "closed-sft: SFT")["steps"] == math.ceil(4 * math.ceil(math.ceil(examples / 4) / 8))
    _, changed = _plan(tmp_path, built_instance, "--set", "train_regimes.closed-rl.epochs=3", "--set",
                       "train_regimes.closed-rl.grad_accum=64", "--set", "train.batch_size=2", "--plan-correct-share", "1")
    assert _stage(changed, "closed-rl: GRPO")["steps"] == 3 * (tasks // 16)
    assert _stage(changed, "closed-sft: SFT")["steps"] == math.ceil(4 * math.ceil(math.ceil(tasks * 5 / 2) / 8))
    assert _stage(changed, "open-rl: GRPO")["steps"] == _stage(plan, "open-rl: GRPO")["steps"]


def test_token_budgets_and_hours_follow_the_settings(built_instance, tmp_path):
    _, plan = _plan(tmp_path, built_instance)
    _, short = _plan(tmp_path, built_instance, "--set", "rollout.max_tokens=4096", "--plan-gpu", "h200")
    base, less = _stage(plan, "untrained closed single_test"), _stage(short, "untrained closed single_test")
    assert base["samples"] == 5 * plan["counts"]["single_test"]
    assert base["tokens_generated"] == round(base["samples"] * 0.5 * 8192) == 2 * less["tokens_generated"]
    assert 0 < less["gpu_hours"] < base["gpu_hours"]
    assert plan["totals"]["gpu_hours"] == pytest.approx(sum(s["gpu_hours"] for s in plan["stages"]), abs=0.1)


def test_memory_formulas_count_what_transformers_and_peft_build():
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoConfig, AutoModelForCausalLM

    shape = pm.ModelShape.from_config(TINY_QWEN3, "test")
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**TINY_QWEN3))
    assert shape.parameters() == sum(p.numel() for p in model.parameters())
    lora = get_peft_model(model, LoraConfig(r=4, target_modules="all-linear", task_type="CAUSAL_LM"))
    assert shape.lora_parameters(4) == sum(p.numel() for p in lora.parameters() if p.requires_grad)
    one, eight = (pm.training_memory(shape, n, 2, 1000, None) for n in (1, 8))
    assert eight["states"] * 8 == one["states"] == 16 * shape.parameters()
    assert eight["activations"] == one["activations"] and eight["logits"] == one["logits"] == 2 * 1000 * 300 * 8


def test_the_known_qwen3_8b_shape_is_its_published_size():
    shape = pm.KNOWN_SHAPES["Qwen/Qwen3-8B"]
    assert round(shape.parameters() / 1e9, 1) == 8.2  # the model card: 8.2B parameters, 6.95B without embeddings
    assert round((shape.parameters() - 2 * shape.vocab * shape.hidden) / 1e9, 2) == 6.95


def test_a_local_model_folder_is_read_and_what_does_not_fit_fails(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(TINY_QWEN3))
    code, plan = _plan(tmp_path, None, "--model", f"hf:{folder}", "--plan-gpus", "2")
    assert plan["shape"]["parameters"] == pm.ModelShape.from_config(TINY_QWEN3, "").parameters()
    assert plan["memory"][0]["gib"]["2"] < 1  # plan.json's keys are strings
    checks = {c["check"]: c["ok"] for c in plan["checks"]}
    assert checks["model config"] is True and checks["weights"] is False and code == 1
    code, plan = _plan(tmp_path, None, "--plan-gpus", "1")  # Qwen3-8B's full fine-tuning on one H100
    assert {c["check"]: c["ok"] for c in plan["checks"]}["memory sft full"] is False and code == 1


@pytest.mark.parametrize("config", ["[1]", "[" * 100_000, json.dumps({**TINY_QWEN3, "num_attention_heads": 0}),
                                    json.dumps({**TINY_QWEN3, "hidden_size": None}), '{"n": ' + "9" * 5000 + "}"])
def test_a_local_model_folder_whose_config_is_not_a_model_fails_its_check_in_one_line(tmp_path, config):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(config)
    code, plan = _plan(tmp_path, None, "--model", f"hf:{folder}")
    check = next(c for c in plan["checks"] if c["check"] == "model config")
    assert check["ok"] is False and "its config.json cannot be read" in check["detail"] and code == 1


def test_the_plan_touches_no_gpu_and_no_network(tmp_path):
    script = (
        "import socket, sys\n"
        "def refuse(*a, **k):\n    raise OSError('the plan opened a connection')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\n"
        "from sebench.cli import main\n"
        f"code = main(['run', '--preset', 'gpu', '--out', {str(tmp_path / 'run')!r}, '--plan'])\n"
        "assert 'torch' not in sys.modules and 'vllm' not in sys.modules, 'the plan imported torch'\n"
        "sys.exit(code)\n")
    env = {**os.environ, "PYTHONPATH": str(SRC), "HF_HUB_OFFLINE": "0"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    assert "opened a connection" not in done.stderr and "plan.json" in done.stdout
    assert "closed-rl: GRPO" in done.stdout and (tmp_path / "run/plan.json").is_file()


@pytest.mark.parametrize("preset", sorted(__import__("sebench.experiment.config", fromlist=["PRESETS"]).PRESETS))
def test_every_preset_has_a_plan_with_a_row_for_each_of_its_regimes(preset, tmp_path):
    from sebench.experiment.config import resolve

    out = tmp_path / "run"
    code = main(["run", "--preset", preset, "--out", str(out), "--plan"])
    plan = json.loads((out / "plan.json").read_text())
    assert code in (0, 1) and plan["preset"] == preset  # 1: a check failed (e.g. this machine's disk)
    assert not [c for c in plan["checks"] if c["check"].startswith("regime") and c["ok"] is False], plan["checks"]
    stages = [s["stage"] for s in plan["stages"]]
    cfg = resolve(preset, {})
    trained = [s.split(":")[0] for s in stages if ":" in s and not s.startswith(("warm-up", "SFT data"))]
    if cfg.lifelong is None:
        assert set(trained) == set(cfg.regimes), stages
        assert [s for s in stages if s.startswith("untrained")], stages
    else:  # every step of the schedule trains, and every model is evaluated on its libraries
        assert {"after-L1", "same.after-L3", "disjoint.after-L3"} <= set(trained), stages
        assert "disjoint.after-L3/disjoint.L3 closed single_test" in stages
    if preset == "eval":
        assert plan["totals"]["optimizer_steps"] == 0 and _stage(plan, "untrained open multiple_test")["samples"] == 1500


def test_a_methods_row_says_what_is_known_of_its_cost(tmp_path):
    out = tmp_path / "run"
    examples = Path(__file__).resolve().parents[2] / "examples"
    code = main(["run", "--preset", "quick", "--out", str(out), "--plan", "--regimes", "closed-sft",
                 f"{examples}/reference_sft.py:ReferenceSFT", "open-book"])
    plan = json.loads((out / "plan.json").read_text())
    assert code in (0, 1)
    mine = _stage(plan, "ReferenceSFT: training")
    assert mine["note"] == "unknown: the method's own" and mine["gpu_hours"] is None
    assert plan["totals"]["not_counted"] == ["ReferenceSFT: training"]
    assert _stage(plan, "ReferenceSFT closed single_test")["samples"] == 24
    assert _stage(plan, "open-book: no training")["gpu_hours"] == 0.0
    assert _stage(plan, "open-book open single_test") and not [s for s in plan["stages"] if s["stage"] == "open-book closed single_test"]


def test_a_built_in_methods_cost_follows_its_arguments(tmp_path):
    def steps(*flags: str) -> dict:
        out = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        main(["run", "--preset", "inject", "--out", str(out), "--plan", *flags])
        plan = json.loads((out / "plan.json").read_text())
        return {s["stage"]: s["steps"] for s in plan["stages"] if s["kind"] == "sft"}

    default, changed = steps(), steps("-M", "docs-cpt.epochs=6", "-M", "docs-cpt-augmented.k=16")
    assert changed["docs-cpt: SFT (docs-cpt)"] == 2 * default["docs-cpt: SFT (docs-cpt)"]
    assert changed["docs-cpt-augmented: SFT (docs-cpt-augmented)"] > default["docs-cpt-augmented: SFT (docs-cpt-augmented)"]
    assert default["docs-cpt-augmented-k8: SFT (docs-cpt-augmented)"] > default["docs-cpt-augmented: SFT (docs-cpt-augmented)"]
    assert changed["closed-sft: SFT"] == default["closed-sft: SFT"]


def test_a_served_models_plan_downloads_nothing_and_weights_it_trains_from_are_downloaded(tmp_path):
    """The eval preset asks a server: the plan names no download; a training from hub weights does."""
    served = "openai:Qwen/Qwen3-8B@http://127.0.0.1:9/v1"
    _, plan = _plan(tmp_path, None, "--model", served, "--regimes")
    weights = next(c["detail"] for c in plan["checks"] if c["check"] == "weights")
    assert "downloads no weights" in weights and "GB" not in weights
    _, plan = _plan(tmp_path, None, "--model", served, "--train-model", "hf:Qwen/Qwen3-8B")
    weights = next(c["detail"] for c in plan["checks"] if c["check"] == "weights")
    assert "the run downloads about 16.4 GB" in weights

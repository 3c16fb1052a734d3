"""`sebench run --preset paper-mini` end to end on a tiny random model and a small instance: the warmed-up
base, a regime variant, Closed-SFT-RL after Closed-SFT, the memory baseline, two seeds pooled."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

from sebench.cli import main

RL = {"num_generations": 2, "batch_size": 2, "max_completion_length": 8}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.mark.slow  # about 75 s: make test-slow
def test_paper_mini_runs_every_stage_and_pools_the_seeds(tmp_path, tiny_model, monkeypatch):
    """Each seed builds its instance: with the studied functions' tasks, and training tasks of the others for
    the warm-up."""
    monkeypatch.setenv("SEBENCH_THREADS", "1")
    warmup = {"docs": "compact", "max_examples": 4, "epochs": 1.0, "batch_size": 2, "cache_dir": str(tmp_path / "cache")}
    per_regime = {"closed-rl": RL, "closed-sft-rl": RL}
    out = tmp_path / "run"
    code = main(["run", "--preset", "paper-mini", "--out", str(out), "--set", "build_train=60",
                 "--model", f"hf:{tiny_model}", "--seeds", "0,1", "--functions", "3", "--max-tokens", "8",
                 "--regimes", "closed-sft", "closed-rl-no-negative", "closed-sft-rl",
                 "--set", "max_train=6", "--set", "max_single=4", "--set", "max_multiple=2",
                 "--set", "rollout.concurrency=2", "--set", "judge.workers=1", "--set", "train.max_steps=1",
                 "--set", "source_samples=1", "--set", "train_source=reference",
                 "--set", 'untrained_modes=["closed", "memory"]', "--set", 'splits=["single_test"]',
                 "--set", "warmup=" + json.dumps(warmup), "--set", "train.grad_accum=1", "--set", "train_regimes=" + json.dumps(per_regime)])
    assert code == 0
    for seed in (0, 1):
        stages = {p.stem for p in (out / f"seed-{seed}/stages").glob("*.json")}
        assert {"warmup", "compact-docs", "train--closed-sft", "train--closed-rl-no-negative",
                "train--closed-sft-rl"} <= stages
        settings = json.loads((out / f"seed-{seed}/train/closed-rl-no-negative/checkpoint/train_config.json")
                              .read_text())
        assert settings["config"]["regime"] == "closed-rl" and settings["config"]["negative_advantages"] == "drop"
        # a GRPO regime's cost: its samples, each judged once, and their completion tokens
        samples = (out / f"seed-{seed}/train/closed-rl-no-negative/checkpoint/rl_samples.jsonl").read_text()
        lengths = [len(json.loads(line)["completion_ids"]) for line in samples.splitlines()]
        cost = json.loads((out / f"seed-{seed}/train/closed-rl-no-negative/method.json").read_text())["cost"]
        assert lengths and cost["judge_calls"] == len(lengths)
        assert cost["tokens_sampled"] == cost["tokens_trained"] == sum(lengths) > 0
        memory = (out / f"seed-{seed}/evals/untrained/memory/single_test/verdicts.jsonl").read_text().splitlines()
        assert len(memory) >= 1
    report = json.loads((out / "report/report.json").read_text())
    rows = {(r["regime"], r["mode"]): r for r in report["main_table"]}
    assert {("untrained", "closed"), ("untrained", "memory"), ("closed-sft", "closed"),
            ("closed-rl-no-negative", "closed"), ("closed-sft-rl", "closed")} <= rows.keys()
    assert {len(r["runs"]) for r in rows.values()} == {2}  # both seeds pooled in every row


@pytest.mark.slow  # a whole small study with the tiny model (about a minute)
def test_a_regime_that_cannot_train_is_reported_and_the_others_still_run(tmp_path, built_instance, tiny_model,
                                                                          monkeypatch, capsys):
    """open-rl cannot train (every prompt is over its token limit); self-play-sft, whose tiny model writes no
    usable task, ends with the start model and is evaluated like any other, its round reported."""
    monkeypatch.setenv("SEBENCH_THREADS", "1")
    out = tmp_path / "run"
    args = ["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny_model}",
            "--functions", "3", "--max-tokens", "8", "--regimes", "self-play-sft", "open-rl", "closed-sft",
            "--set", "max_train=6", "--set", "max_single=4", "--set", "max_multiple=2",
            "--set", "rollout.concurrency=2", "--set", "judge.workers=1", "--set", "train.max_steps=1",
            "--set", 'splits=["single_test"]', "--set", 'trained_modes=["closed"]', "--set", "train_source=reference",
            "--set", "train.grad_accum=1", "--set",
            'train_regimes={"self-play-sft": {"rounds": 1, "selfplay_tasks": 1}, '
            '"open-rl": {"max_prompt_tokens": 1, "num_generations": 2, "batch_size": 2}}']
    code = main(args)
    assert code == 1
    assert "regime open-rl was not trained: every GRPO prompt has 1 tokens or more" in capsys.readouterr().err
    report = json.loads((out / "report/report.json").read_text())
    assert list(report["not_trained"]) == ["open-rl"]
    assert {r["regime"] for r in report["main_table"]} == {"untrained", "closed-sft", "self-play-sft"}
    assert "Not trained (no row): **open-rl**" in (out / "report/report.md").read_text()
    # self-play wrote for the studied functions only (the subset keeps every function's docs), and its round
    # is reported
    studied = json.loads((out / "data/manifest.json").read_text())["subset"]["functions"]
    folder = out / "train/self-play-sft/checkpoint/rounds/round-1"
    assert {json.loads(line)["function"] for line in (folder / "proposals.jsonl").read_text().splitlines()} <= set(studied)
    assert [(r["round"], r["asked"], r["kept"]) for r in report["self_play"]["self-play-sft"]] == [(1, 1, 0)]

    # a later command adds a regime: the report is redone (no --overwrite needed: it is made from the other
    # stages' outputs), and the regime the first command could not train is still reported
    args = [a if a != "open-rl" else "open-sft" for a in args]
    assert main(args) == 1
    report = json.loads((out / "report/report.json").read_text())
    assert {r["regime"] for r in report["main_table"]} == {"untrained", "closed-sft", "self-play-sft", "open-sft"}
    assert "open-rl" in report["not_trained"]


def test_the_writer_variant_is_self_play_sft_with_the_writer_trained(tmp_path):
    """paper-mini's self-play-sft-writer trains exactly as its self-play-sft, but for the task writer."""
    import dataclasses

    from sebench.experiment.config import resolve
    from sebench.experiment.run import Study

    study = Study(resolve("paper-mini", {"model": "hf:some/model", "train.functions": ["pkg.f"]}), tmp_path / "run")
    study.data = tmp_path
    plain, writer = (study.train_config(label, tmp_path / "out", None, None)
                     for label in ("self-play-sft", "self-play-sft-writer"))
    assert "self-play-sft-writer" in study.cfg.regimes and (writer.regime, writer.rounds) == ("self-play-sft", 2)
    assert (plain.selfplay_train_writer, writer.selfplay_train_writer) == (False, True)
    assert dataclasses.replace(writer, selfplay_train_writer=False) == plain

"""TrainConfig validation and the `sebench train` flags (no torch needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.train import TrainConfig, cli


def _cfg(**options):
    return TrainConfig(**{"data": "d", "regime": "closed-sft", "out": "o", **options})


def test_defaults_are_resolved():
    cfg = _cfg().resolved()
    assert cfg.train_source == "reference" and cfg.epsilon_high == cfg.epsilon == 0.2 and cfg.lr == 2e-4
    cfg = _cfg(rollouts="runs/r/rollouts.jsonl").resolved()
    assert cfg.train_source == "rollouts" and cfg.verdicts == Path("runs/r/verdicts.jsonl")


def test_unknown_regime_gets_a_suggestion():
    with pytest.raises(SebenchError, match="did you mean 'closed-sft'"):
        _cfg(regime="closed_sft").resolved()


def test_rollouts_source_needs_a_rollouts_file():
    with pytest.raises(SebenchError, match="--rollouts FILE"):
        _cfg(train_source="rollouts").resolved()


def test_grpo_batch_must_hold_whole_groups():
    with pytest.raises(SebenchError, match="multiple of --num-generations"):
        _cfg(regime="grpo-closed", batch_size=3, num_generations=2).resolved()
    with pytest.raises(SebenchError, match="at least 2"):
        _cfg(regime="grpo-open", num_generations=1, batch_size=1).resolved()


def test_bad_numbers_are_refused():
    with pytest.raises(SebenchError, match="--lr must be positive"):
        _cfg(lr=0).resolved()
    with pytest.raises(SebenchError, match="--rounds must be at least 1"):
        _cfg(regime="self-play", rounds=0).resolved()


def test_every_field_is_a_flag(monkeypatch):
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args([
        "train", "--data", "inst", "--regime", "grpo-closed", "--out", "ckpt", "--functions", "p.a, p.b",
        "--lora", "--max-steps", "3", "--epsilon-high", "0.28", "--lr", "1e-5", "--reward", "graded",
    ])
    seen = {}
    monkeypatch.setattr("sebench.train.run.train_model", lambda cfg: seen.setdefault("cfg", cfg) and Path("ckpt"))
    assert args.func(args) == 0
    cfg = seen["cfg"]
    assert cfg.functions == ["p.a", "p.b"] and cfg.lora and cfg.max_steps == 3 and cfg.epsilon_high == 0.28
    assert cfg.lr == 1e-5 and cfg.reward == "graded" and cfg.epochs == 3.0 and cfg.data == Path("inst")


@pytest.mark.parametrize("old, new", [("grpo-open", "open-rl"), ("grpo-closed", "closed-rl"),
                                      ("sft-grpo", "closed-sft-rl"), ("self-play", "self-play-sft")])
def test_earlier_regime_names_are_aliases_that_say_what_they_mean(old, new, caplog):
    import logging

    with caplog.at_level(logging.WARNING):
        cfg = _cfg(regime=old, batch_size=4, num_generations=2).resolved()
    assert cfg.regime == new and f"'{new}'" in caplog.text


def test_closed_rl_samples_open_unless_told():
    assert _cfg(regime="closed-rl", num_generations=2).resolved().sample_mode == "open"
    assert _cfg(regime="closed-rl", num_generations=2, sample_mode="closed").resolved().sample_mode == "closed"
    with pytest.raises(SebenchError, match="did you mean 'drop'"):
        _cfg(regime="closed-rl", num_generations=2, negative_advantages="dro").resolved()

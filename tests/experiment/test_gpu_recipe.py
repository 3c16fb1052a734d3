"""The regime table (docs/training.md) and the gpu recipe table (docs/gpu.md) say what the code does (read from
the code itself)."""

from __future__ import annotations

import json

import pytest
from doc_tables import GPU_PAGE, TRAINING_PAGE, doc_table

from sebench.experiment.config import resolve
from sebench.train.config import REGIME_ALIASES, REGIME_SPECS


def _preset_value(cfg, path: str):
    """`train_source`, `train.grad_accum`, `train_regimes.closed-rl.lr`: a RunConfig field, then dict keys."""
    head, *keys = path.split(".")
    value = getattr(cfg, head)
    for key in keys:
        value = value[key]
    return value


def test_the_gpu_recipe_table_matches_the_preset():
    cfg = resolve("gpu", {})
    rows = [r for r in doc_table(GPU_PAGE, "recipe item") if r[2].startswith("`")]
    assert len(rows) >= 30
    for item, paper, field, value in rows:
        expected = json.loads(value)
        assert _preset_value(cfg, field.strip("`")) == pytest.approx(expected), f"docs/gpu.md row {item or paper}: {field}"


def test_the_gpu_rl_regimes_share_the_grpo_settings_but_mini_batches_epochs_and_order():
    extra = resolve("gpu", {}).train_regimes
    rl = [r for r, spec in REGIME_SPECS.items() if spec.rl]
    assert set(rl) <= set(extra)
    shared = [{k: v for k, v in extra[r].items() if k not in ("mini_batches", "epochs", "rl_order")} for r in rl]
    assert all(s == shared[0] for s in shared)


def test_the_regime_table_matches_the_regime_specs():
    rows = {r[0].strip("`"): r for r in doc_table(TRAINING_PAGE, "regime") if len(r) == 5}
    assert list(rows) == list(REGIME_SPECS)
    aliases = {new: old for old, new in REGIME_ALIASES.items()}
    for name, (_, stages, sample, train, earlier) in rows.items():
        spec = REGIME_SPECS[name]
        assert (sample, train) == ((spec.rl_sample, spec.rl_train) if spec.rl else ("-", "-")), name
        assert (f"SFT on the {spec.sft} prompt" in stages) == bool(spec.sft), name
        assert ("GRPO" in stages) == spec.rl and ("self-play" in stages) == spec.self_play, name
        assert earlier.strip("`") == aliases.get(name, ""), name

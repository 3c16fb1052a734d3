"""A GRPO run stopped mid-way and started again with the same command ends where an unbroken run ends: the
same weights, the same rl_samples.jsonl, rl_steps.jsonl and loss.csv, no row lost or written twice
(train/resume.py). The stop is a fault planted in the reward step of a later batch."""

from __future__ import annotations

import pytest

from sebench.train.config import TrainConfig
from sebench.train.run import train_model

pytest.importorskip("trl")


class _Stop(Exception):
    pass


def _config(built_instance, tiny_model, out, regime):
    return TrainConfig(data=built_instance, out=out, model=str(tiny_model), regime=regime, max_steps=4,
                       batch_size=2, num_generations=2, max_examples=4, max_completion_length=64, judge_workers=2,
                       engine="own", resume_every=2, threads=1)


def _stop_at_reward_call(monkeypatch, call: int):
    """Makes the `call`-th reward computation of the own GRPO loop raise, as a killed process would stop."""
    import sebench.train.rl as rl

    real, calls = rl.judge_rewards, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise _Stop
        return real(*args, **kwargs)

    monkeypatch.setattr(rl, "judge_rewards", failing)


def _outputs(ckpt):
    from safetensors.torch import load_file

    texts = {name: (ckpt / name).read_text() for name in ("rl_samples.jsonl", "rl_steps.jsonl", "loss.csv")}
    return load_file(str(ckpt / "model.safetensors")), texts


@pytest.mark.parametrize("regime", ["closed-rl", "closed-sft-rl"])
def test_a_stopped_grpo_run_resumes_to_the_unbroken_result(built_instance, tiny_model, tmp_path, scripted_sampling,
                                                           monkeypatch, regime):
    unbroken = train_model(_config(built_instance, tiny_model, tmp_path / "unbroken", regime))
    weights, records = _outputs(unbroken)

    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        _stop_at_reward_call(patch, call=4)  # a point after batch 2, batch 3 recorded after it, batch 4 stops
        with pytest.raises(_Stop):
            train_model(_config(built_instance, tiny_model, out, regime))
    assert (out / "trainer" / "rl-resume" / "point.json").is_file()
    assert len((out / "rl_steps.jsonl").read_text().splitlines()) == 3  # cut back to 2 when it resumes

    import sebench.train.rl as rl

    batches = []
    real = rl._sample_batch
    monkeypatch.setattr(rl, "_sample_batch", lambda *a, **k: batches.append(a[7]) or real(*a, **k))
    if regime == "closed-sft-rl":  # the resume point holds the weights after SFT: SFT is not run again
        import sebench.train.sft as sft

        monkeypatch.setattr(sft, "train_sft", lambda *a, **k: pytest.fail("SFT ran again"))
    resumed = train_model(_config(built_instance, tiny_model, out, regime))
    assert batches == [3, 4]  # only the batches after the point were sampled again
    got_weights, got_records = _outputs(resumed)
    assert got_records == records
    assert set(got_weights) == set(weights)
    assert all(bool((got_weights[k] == weights[k]).all()) for k in weights)
    assert not (resumed / "trainer").exists()


def test_a_point_of_other_settings_is_not_used(built_instance, tiny_model, tmp_path, scripted_sampling, monkeypatch):
    out = tmp_path / "changed"
    with monkeypatch.context() as patch:
        _stop_at_reward_call(patch, call=4)
        with pytest.raises(_Stop):
            train_model(_config(built_instance, tiny_model, out, "closed-rl"))
    from dataclasses import replace

    changed = train_model(replace(_config(built_instance, tiny_model, out, "closed-rl"), lr=1e-3))
    steps = [line for line in (changed / "rl_steps.jsonl").read_text().splitlines()]
    assert len(steps) == 4  # started from scratch: the earlier rows were dropped, not kept beside new ones
    unchanged = train_model(replace(_config(built_instance, tiny_model, tmp_path / "fresh", "closed-rl"), lr=1e-3))
    assert (unchanged / "rl_steps.jsonl").read_text() == (changed / "rl_steps.jsonl").read_text()

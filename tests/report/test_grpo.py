"""The report's GRPO section, from hand-made rl_samples.jsonl and rl_steps.jsonl with known answers."""

from __future__ import annotations

import json

import pytest

from sebench.report.grpo import grpo_markdown, grpo_rows, summarise


def _sample(reward, advantage, new, old, sampled, tokens, batch=1, task="t1"):
    return {"stage": "grpo", "batch": batch, "task_id": task, "reward": reward, "advantage": advantage,
            "new_logp": new, "old_logp": old, "sample_logp": sampled, "completion_ids": list(range(tokens))}


SAMPLES = [_sample(1.0, 1.5, -40.0, -40.0, -10.0, 10), _sample(1.0, 0.5, -20.0, -20.0, -12.0, 4),
           _sample(0.0, -1.0, -5.0, -5.0, -6.0, 2), _sample(0.0, -1.0, -7.0, -7.5, -7.0, 5)]
SAME = [_sample(1.0, 0.0, -3.0, -3.0, -3.0, 2, batch=2), _sample(1.0, 0.0, -3.0, -3.0, -3.0, 2, batch=2),
        _sample(0.0, 0.0, -3.0, -3.0, -3.0, 2, batch=2, task="t2")]  # all right, and all wrong: no gradient
STEPS = [{"grad_norm_positive": 2.0, "grad_norm_negative": 4.0, "grad_cosine": -0.5},
         {"grad_norm_positive": 4.0, "grad_norm_negative": float("nan"), "grad_cosine": float("nan")},  # old records
         {"grad_norm_positive": 3.0, "grad_norm_negative": None, "grad_cosine": None}]


def test_the_summary_of_known_samples():
    got = summarise(SAMPLES, STEPS)
    assert (got["samples"], got["rewarded"], got["positive"], got["negative"], got["steps"]) == (4, 2, 2, 2, 3)
    assert got["log_ratio_rewarded"] == pytest.approx((-30.0 + -8.0) / 2)  # median of -30 and -8
    assert got["log_ratio_rewarded_per_token"] == pytest.approx((-3.0 + -2.0) / 2)
    assert got["ppo_log_ratio_abs"] == pytest.approx(0.0)  # three of four on-policy
    assert (got["grad_norm_positive"], got["grad_norm_negative"], got["grad_cosine"]) == (3.0, 4.0, -0.5)
    assert (got["groups"], got["groups_with_gradient"]) == (1, 1)
    assert (lambda g: (g["groups"], g["groups_with_gradient"]))(summarise(SAMPLES + SAME, STEPS)) == (3, 1)


def test_rows_come_from_each_trained_labels_records(tmp_path):
    folder = tmp_path / "run" / "train" / "closed-rl" / "checkpoint"
    folder.mkdir(parents=True)
    (folder / "rl_samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    (tmp_path / "run" / "train" / "closed-sft" / "checkpoint").mkdir(parents=True)  # no GRPO: no row
    rows = grpo_rows([tmp_path / "run"])
    assert [(r["run"], r["label"], r["steps"], r["grad_cosine"]) for r in rows] == [("run", "closed-rl", 0, None)]
    assert "| run | closed-rl | 0 | 4 | 2 | 2 | 2 | 1 | 1 |" in grpo_markdown(rows)

"""sebench.metrics against direct computations, and the typed verdict/rollout fields of old files."""

import json
import math
from itertools import combinations

import pytest

from sebench.metrics import group_by, mean_pass_at_k, pass_at_k, verdicts_stats, wilson
from sebench.records import Rollout, Verdict, read_records


def _pass_at_k_by_enumeration(n: int, c: int, k: int) -> float:
    """The share of k-subsets of the n samples that hold at least one correct one."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n,c,k", [(5, 0, 1), (5, 2, 1), (6, 1, 5), (7, 3, 4), (8, 8, 3), (4, 1, 4)])
def test_pass_at_k_is_the_chance_that_k_draws_hold_a_correct_one(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(_pass_at_k_by_enumeration(n, c, k))


def test_pass_at_k_refuses_too_few_samples():
    with pytest.raises(ValueError, match="at least 5"):
        pass_at_k(3, 1, 5)
    assert mean_pass_at_k([(6, 1), (3, 0)], 5) is None
    assert mean_pass_at_k([], 1) is None


def test_wilson_contains_the_proportion_and_matches_the_formula():
    lo, hi = wilson(7, 10)
    z = 1.959964
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    assert lo < 0.7 < hi and (lo + hi) / 2 == pytest.approx(centre)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0) and wilson(0, 0) == (0.0, 0.0)


def test_tasks_are_keyed_by_mode_and_model():
    verdicts = [Verdict("a", 0, "correct", 1, 1, mode="open", model="m1"),
                Verdict("a", 0, "wrong_answer", 0, 1, mode="closed", model="m1"),
                Verdict("a", 1, "wrong_answer", 0, 1, mode="closed", model="m1")]
    stats = verdicts_stats(verdicts, ks=(1, 2))
    assert stats["tasks"] == 2 and stats["min_samples"] == 1 and "pass@2" not in stats
    assert stats["pass@1"] == pytest.approx((1 + 0) / 2)
    assert set(group_by(verdicts, lambda v: v.mode)) == {"closed", "open"}
    assert stats["counts"] == {"correct": 1, "wrong_answer": 2}
    assert stats["verdicts"]["wrong_answer"] == pytest.approx(2 / 3)
    assert math.isclose(sum(stats["verdicts"].values()), 1.0)


def test_old_files_with_join_keys_in_detail_and_usage_still_read(tmp_path):
    old_verdict = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1,
                   "detail": {"split": "train", "kind": "single", "mode": "open", "model": "m", "tests": []}}
    old_rollout = {"task_id": "a", "sample_idx": 0, "mode": "retrieval", "model": "m", "prompt": [],
                   "response": "", "code": None, "finish_reason": "error",
                   "usage": {"prompt_tokens": 3, "completion_tokens": 0, "error": "boom", "searches": ["mean"]}}
    (tmp_path / "v.jsonl").write_text(json.dumps(old_verdict) + "\n")
    (tmp_path / "r.jsonl").write_text(json.dumps(old_rollout) + "\n")
    [v] = read_records(tmp_path / "v.jsonl", Verdict)
    assert (v.split, v.kind, v.mode, v.model, v.detail) == ("train", "single", "open", "m", {"tests": []})
    [r] = read_records(tmp_path / "r.jsonl", Rollout)
    assert (r.error, r.searches) == ("boom", ["mean"])
    assert r.usage == {"prompt_tokens": 3, "completion_tokens": 0}


def test_typed_join_keys_are_checked(tmp_path):
    bad = {"task_id": "a", "sample_idx": 0, "verdict": "correct", "tests_passed": 1, "tests_total": 1, "mode": 3}
    (tmp_path / "v.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(Exception, match=r"v.jsonl:1: field 'mode': expected str"):
        read_records(tmp_path / "v.jsonl", Verdict)

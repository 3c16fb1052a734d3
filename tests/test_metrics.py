"""sebench.metrics against direct computations, and the typed verdict/rollout fields of old files."""

import json
import math
from itertools import combinations

import pytest

from sebench.metrics import (
    group_by,
    mean_pass_at_k,
    paired_difference,
    pass_at_k,
    verdict_stats,
    verdicts_stats,
    wilson,
)
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
    lo, hi = wilson(0.7, 10)
    z = 1.959964
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    assert lo < 0.7 < hi and (lo + hi) / 2 == pytest.approx(centre)
    assert wilson(0.0, 10)[0] == 0.0 and wilson(1.0, 10)[1] == pytest.approx(1.0) and wilson(0.0, 0) == (0.0, 0.0)


def _samples(outcomes: dict[str, list[int]], run: str = "r") -> list:
    """(task key, verdict) samples: task id -> its samples' scores (1 correct, 0 wrong)."""
    return [((run, task, "closed", "m"), "correct" if score else "wrong_answer")
            for task, scores in outcomes.items() for score in scores]


def test_five_identical_samples_a_task_give_the_interval_of_one():
    once = {f"t{i}": [int(i % 3 == 0)] for i in range(20)}  # 7 of 20 tasks correct
    five = {task: scores * 5 for task, scores in once.items()}
    one, many = verdict_stats(_samples(once)), verdict_stats(_samples(five))
    assert many["n"] == 100 and many["accuracy"] == one["accuracy"] == pytest.approx(7 / 20)
    assert many["ci95"] == pytest.approx(one["ci95"]) and many["se"] == pytest.approx(one["se"])
    assert one["ci95"] == pytest.approx(wilson(7 / 20, 20))  # one sample a task: Wilson's over samples
    none = {task: [0] for task in once}  # every sample wrong: the interval still has a width, over the tasks
    assert verdict_stats(_samples({t: s * 5 for t, s in none.items()}))["ci95"] == pytest.approx(wilson(0.0, 20))


def test_clustering_widens_the_interval_of_correlated_samples():
    # 10 tasks of 5 samples, each task all right or all wrong: 10 tasks' worth of evidence, not 50 samples'
    stats = verdict_stats(_samples({f"t{i}": [i % 2] * 5 for i in range(10)}))
    lo, hi = stats["ci95"]
    independent = wilson(0.5, 50)
    assert hi - lo > 1.5 * (independent[1] - independent[0])
    assert stats["effective_n"] == pytest.approx(10) and stats["ci95"] == pytest.approx(wilson(0.5, 10))


def test_accuracy_interval_by_hand():
    stats = verdict_stats(_samples({"a": [1, 1], "b": [1, 0], "c": [0, 0]}))
    # n = 6, p = 3/6 = 0.5; residuals 0.5 or -0.5; summed per task: a +1, b 0, c -1
    # V = (1^2 + 0^2 + (-1)^2) / 6^2 = 2/36 = 1/18, SE = sqrt(1/18) = 0.235702
    # n_eff = p(1-p) / V = 0.25 * 18 = 4.5
    # Wilson at p = 0.5, n = 4.5, z^2 = 3.841459: denominator 1 + 3.841459/4.5 = 1.853658, centre 0.5,
    # half width 1.959964 * sqrt(0.25/4.5 + 3.841459/(4 * 4.5^2)) / 1.853658
    #           = 1.959964 * sqrt(0.055556 + 0.047426) / 1.853658 = 1.959964 * 0.320906 / 1.853658 = 0.339310
    assert stats["se"] == pytest.approx(0.235702, abs=1e-6)
    assert stats["effective_n"] == pytest.approx(4.5)
    assert stats["ci95"] == pytest.approx([0.160690, 0.839310], abs=1e-5)


def test_seeds_as_a_second_level_by_hand():
    # seed r1 answers tasks a and b right, seed r2 both wrong: the seeds disagree more than the tasks
    stats = verdict_stats(_samples({"a": [1], "b": [1]}, "r1") + _samples({"a": [0], "b": [0]}, "r2"))
    # n = 4, p = 0.5; by task (run, task): four clusters of residual +-0.5: V_task = 4 * 0.25 / 16 = 1/16
    # by seed: sums +1 and -1, G = 2: V_seed = 2/1 * (1 + 1) / 16 = 1/4; V = max = 1/4, SE = 0.5
    # n_eff = 0.25 / 0.25 = 1; Wilson at n = 1: denominator 4.841459, half width
    # 1.959964 * sqrt(0.25 + 3.841459/4) / 4.841459 = 1.959964 * 1.100166 / 4.841459 = 0.445379
    assert stats["se"] == pytest.approx(0.5) and stats["effective_n"] == pytest.approx(1.0)
    assert stats["ci95"] == pytest.approx([0.054621, 0.945379], abs=1e-5)
    # seeds that agree: the task level alone (one sample a task: Wilson over the 4 samples)
    same = verdict_stats(_samples({"a": [1], "b": [0]}, "r1") + _samples({"a": [1], "b": [0]}, "r2"))
    assert same["ci95"] == pytest.approx(wilson(0.5, 4))


def test_paired_difference_by_hand():
    a = _samples({"a": [1, 1], "b": [1, 0], "c": [0, 0]})
    b = _samples({"a": [1, 0], "b": [0, 0], "c": [0, 0], "d": [1, 1]})  # d: answered by B only, no pair
    diff = paired_difference(a, b)
    # per-task differences of mean scores: a 1 - 0.5 = 0.5, b 0.5 - 0 = 0.5, c 0 - 0 = 0; 3 pairs
    # delta = 1/3; residuals 1/6, 1/6, -1/3: squares 1/36 + 1/36 + 4/36 = 1/6; V = (1/6) / 3^2 = 1/54
    # SE = sqrt(1/54) = 0.136083; interval 1/3 +- 1.959964 * 0.136083 = 0.333333 +- 0.266718
    # z = (1/3) / 0.136083 = 2.449490, two-sided p = erfc(2.449490 / sqrt(2)) = erfc(1.732051) = 0.014306
    assert diff is not None and diff.pairs == 3
    assert diff.delta == pytest.approx(1 / 3) and diff.se == pytest.approx(0.136083, abs=1e-6)
    assert diff.ci95 == pytest.approx((0.066615, 0.600051), abs=1e-5)
    assert diff.p == pytest.approx(0.014306, abs=1e-6)


def test_two_identical_models_differ_by_zero():
    a = _samples({f"t{i}": [i % 2, i % 3 == 0, 1] for i in range(12)})
    diff = paired_difference(a, list(a))
    assert diff is not None and diff.delta == 0.0 and diff.pairs == 12
    assert diff.ci95[0] <= 0.0 <= diff.ci95[1] and diff.p == 1.0
    same_shift = paired_difference(_samples({"x": [1], "y": [1]}), _samples({"x": [0], "y": [0]}))
    assert same_shift is not None and (same_shift.delta, same_shift.se, same_shift.p) == (1.0, 0.0, 0.0)
    assert paired_difference(a, _samples({"other": [1]})) is None  # no task in common


def test_a_task_answered_in_two_modes_is_one_cluster():
    verdicts = [Verdict(task, 0, "correct" if task in "ab" else "wrong_answer", 0, 1, mode=mode, model="m")
                for task in "abcd" for mode in ("closed", "open")]
    stats = verdicts_stats(verdicts)
    # 8 task keys (pass@k), but 4 clusters: each task's two answers sum their residuals (+-1 a task),
    # V = 4 * 1 / 8^2 = 1/16, n_eff = 0.25 / (1/16) = 4 (as 8 independent samples it would be 8)
    assert stats["tasks"] == 8 and stats["effective_n"] == pytest.approx(4)


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

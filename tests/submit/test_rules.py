"""The re-run's rules on verdicts drawn here: greedy decoding must give every verdict again; with sampling, the
paired sign-flip test calls an honest re-run "not reproduced" at most FALSE_ALARM of the time (measured over
simulated honest pairs), tells apart a bundle whose answers were replaced, and compares the share of each task,
not the untrained model's accuracy with the method's interval."""

import numpy as np
import pytest

from sebench.submit.rerun import FALSE_ALARM, differs, first_changed, sampled_p


def draw(rng: np.random.Generator, rates: np.ndarray, n: int) -> dict[tuple, str]:
    """One run's verdicts: task t's n samples correct with probability rates[t]."""
    return {(f"t{t}", s): "correct" if rng.random() < r else "wrong" for t, r in enumerate(rates) for s in range(n)}


def test_greedy_needs_every_verdict_again():
    bundled = {("t0", 0): "correct", ("t1", 0): "wrong"}
    assert first_changed("v", bundled, dict(bundled)) is None
    assert first_changed("v", bundled, {**bundled, ("t1", 0): "correct"}) == "v: task t1 sample 0: bundle wrong, re-run correct"
    assert first_changed("v", bundled, {("t0", 0): "correct"}).startswith("v: task t1 sample 0")


@pytest.mark.parametrize("tasks, n", [(12, 1), (16, 3)])
def test_the_sampled_rules_false_alarm_rate_is_at_most_its_level(tasks, n):
    rng = np.random.default_rng(7)
    sims, alarms = 1500, 0
    for _ in range(sims):
        rates = rng.uniform(0.1, 0.9, tasks)
        alarms += sampled_p(draw(rng, rates, n), draw(rng, rates, n)) < FALSE_ALARM
    rate = alarms / sims
    assert rate <= FALSE_ALARM + 3 * np.sqrt(FALSE_ALARM * (1 - FALSE_ALARM) / sims), rate


def test_the_sampled_rule_tells_replaced_answers_apart():
    rng = np.random.default_rng(3)
    rates = np.full(13, 0.1)
    replaced = {(f"t{t}", s): "correct" for t in range(13) for s in range(2)}  # every answer the reference
    caught = [differs("v", replaced, draw(rng, rates, 2), comparisons=4) for _ in range(50)]
    assert all(c is not None and c.startswith("v: accuracy 1.000 in the bundle") for c in caught)


def test_the_sampled_rule_compares_the_same_regime_task_by_task():
    """The re-run of the untrained model is compared with the bundle's untrained answers: a high method accuracy
    beside a low untrained one is no disagreement."""
    rng = np.random.default_rng(5)
    untrained = draw(rng, np.full(15, 0.05), 2)
    assert differs("evals/untrained/v", untrained, dict(untrained), comparisons=4) is None
    method = draw(rng, np.full(15, 0.9), 2)
    assert differs("evals/m/v", method, draw(rng, np.full(15, 0.9), 2), comparisons=4) is None

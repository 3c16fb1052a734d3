"""Measured coverage: every interval the report prints holds the truth in at least 93% of synthetic studies
(tests/coverage_sim.py: 17-60 tasks, 1-5 samples correlated within a task, 1-3 seeds; two settings at
Wilson's dips at small counts), and the paired tests reject a true null in at most 6%. Fixed seeds: the
numbers are the same on every run."""

import pytest
from coverage_sim import Setting, coverage

FLOOR = 0.93
NULL_REJECTS = 0.06
STUDIES = 1000

SETTINGS = [  # (tasks, samples, seeds, accuracy logit of A, of B, task spread, seed spread)
    Setting(17, 5, 1, -4.5, task_sd=3.0),  # near 0, strongly correlated within a task
    Setting(56, 5, 1, -3.0, task_sd=1.5),
    Setting(30, 1, 1, 0.0, task_sd=0.0),
    Setting(60, 3, 1, 1.5, mu_b=1.5, task_sd=1.5),  # the null, one seed
    Setting(17, 5, 2, -2.5, task_sd=1.5, seed_sd=1.0),
    Setting(30, 3, 3, -2.5, mu_b=-2.5, task_sd=1.5, seed_sd=1.0),  # the null over seeds, seeds that differ
    Setting(17, 5, 3, -0.5, task_sd=0.0, seed_sd=1.0),
    Setting(40, 3, 3, 1.5, task_sd=0.0, seed_sd=1.0),
    Setting(17, 3, 3, -1.0, mu_b=-1.0, task_sd=3.0),  # the null, three seeds that agree
    # Wilson's dips at small counts, 60 tasks x 1 sample x 2 seeds pooled, the truth just below Wilson's lower
    # bound at 3 correct of 120 (0.84%) and at 4 of 120 (1.28%, the dip the sweep found near 1.2%). The earlier
    # rule (Wilson unmodified) covers 90.2% and 92.0% in these 1,000 studies (92.1% and 93.7% in 8,000), the
    # modified Wilson interval (Brown, Cai & DasGupta 2001) 97.6% and 97.2%
    Setting(60, 1, 2, -4.9, task_sd=0.0),
    Setting(60, 1, 2, -4.47, task_sd=0.0),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: f"{s.tasks}x{s.samples}x{s.seeds}@{s.mu_a}")
def test_every_printed_interval_covers(setting):
    result = coverage(setting, STUDIES, seed=setting.tasks)
    for name, share in result.items():
        if "rejects" not in name:
            assert share >= FLOOR, (name, share)
    if setting.mu_a == setting.mu_b:
        assert result["Δ test, over seeds: rejects"] <= NULL_REJECTS if setting.seeds > 1 else True
        if setting.seed_sd == 0:  # these models are equal only when their seeds' effects are
            assert result["Δ test, these models: rejects"] <= NULL_REJECTS


def test_the_check_can_fail():
    # the old symmetric interval p +- 1.96 se at 5 samples a task near 0 covers far less than 93%
    import numpy as np
    from coverage_sim import _flat, simulate

    from sebench import intervals as iv

    setting = Setting(17, 5, 1, -4.5, task_sd=3.0)
    sim = simulate(setting, STUDIES, np.random.default_rng(0))
    p, variance, _, _ = iv.clustered(_flat(sim.correct_a), _flat(sim.size))
    lo, hi = p - 1.96 * np.sqrt(variance), p + 1.96 * np.sqrt(variance)
    assert np.mean((lo <= sim.models_a) & (sim.models_a <= hi)) < FLOOR


def test_plain_wilson_misses_at_its_dip():
    # the setting at 3 correct of 120 fails the floor with Wilson's interval at the effective size unmodified
    # (the earlier rule: with one sample a task the envelope is Wilson at the count itself), so the suite
    # would catch a return to it
    import numpy as np
    from coverage_sim import _flat, simulate

    from sebench import intervals as iv

    setting = Setting(60, 1, 2, -4.9, task_sd=0.0)
    sim = simulate(setting, STUDIES, np.random.default_rng(setting.tasks))
    p, variance, n, clusters = iv.clustered(_flat(sim.correct_a), _flat(sim.size))
    lo, hi = iv.wilson_bounds(p, iv.effective_n(p, variance, n, clusters), iv.t_quantiles(clusters - 1))
    assert np.mean((lo <= sim.models_a) & (sim.models_a <= hi)) < FLOOR
    _, _, _, lo, hi = iv.accuracy_interval(_flat(sim.correct_a), _flat(sim.size))
    assert np.mean((lo <= sim.models_a) & (sim.models_a <= hi)) >= FLOOR

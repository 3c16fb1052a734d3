"""Measured coverage of the name-recall table's intervals (top-1, top-10) on synthetic recall studies
(tests/recall_coverage_sim.py): 4, 8 and 24 functions, shares from 25% to 99%; fails below 93%. Fixed seeds."""

import pytest
from recall_coverage_sim import RecallSetting, coverage

FLOOR = 0.93
STUDIES = 1000
SETTINGS = [RecallSetting(4, 6.0, 3.0), RecallSetting(8, 6.0, 1.0), RecallSetting(24, 4.0, 3.0)]  # the sweep: 40


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: f"{s.functions}f-mu{s.mu}-sd{s.sd}")
def test_the_recall_intervals_cover(setting):
    for name, share in coverage(setting, STUDIES, seed=setting.functions).items():
        assert share >= FLOOR, (name, share)

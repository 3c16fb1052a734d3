"""`sebench run --library NAME` and the lifelong cross design, as configured and scheduled (no training):
what a study of another library may not ask for, and the schedule of NumPy's and another library's packages."""

from __future__ import annotations

import pytest

from sebench.errors import SebenchError
from sebench.experiment.config import parse_setting, resolve
from sebench.experiment.lifelong import LifelongConfig, schedule

TOY = "other_library:TOY"  # a library given through the contract (tests/other_library.py)


def test_a_library_is_recorded_and_numpy_is_the_default():
    assert resolve("quick", {}).library == "numpy"
    assert resolve("quick", {"library": TOY}).library == TOY


@pytest.mark.parametrize("overrides, message", [
    ({"library": "no-such-library"}, "unknown library 'no-such-library'"),
    ({"library": TOY, "untrained_modes": ["closed", "numpy"]}, "untrained_modes: the numpy mode asks for real NumPy"),
    ({"library": TOY, "trained_modes": ["numpy"]}, "trained_modes: the numpy mode"),
    ({"library": TOY, "protocol": "original"}, "--protocol original: its prompts and rules are written for NumPy"),
    ({"library": TOY, "instance": "/tmp"}, "the instance names its own library"),
])
def test_what_another_library_cannot_have_is_refused(overrides, message):
    with pytest.raises(SebenchError, match=message):
        resolve("quick", overrides)


@pytest.mark.parametrize("setting, message", [
    ("lifelong.cross=numpy", "lifelong.cross: expected another library than NumPy"),
    ("lifelong.cross=no-such-library", "unknown library 'no-such-library'"),
    ("library=" + TOY, "lifelong: L1 is NumPy's package"),
])
def test_bad_cross_settings_are_refused(setting, message):
    with pytest.raises(SebenchError, match=message):
        resolve("lifelong", dict([parse_setting(setting)]))


def test_cross_alone_is_a_valid_lifelong_config():
    cfg = resolve("lifelong", dict(parse_setting(s) for s in ("lifelong.cross=" + TOY, "lifelong.designs=[]")))
    assert cfg.lifelong["cross"] == TOY and cfg.lifelong["designs"] == []


def test_the_cross_design_alternates_the_libraries_and_learns_them_in_both_orders():
    plan = schedule(LifelongConfig(libraries=3, designs=["same"], cross="more-itertools"))
    sources = {lib.label: lib.source for lib in plan.libraries}
    assert sources == {"L1": "numpy", "same.L2": "numpy", "same.L3": "numpy", "cross.L2": "more-itertools",
                       "cross.L3": "numpy"}
    tracks = {t.name: t for t in plan.tracks}
    assert tracks["cross"].libraries == ("L1", "cross.L2", "cross.L3")
    assert tracks["cross"].rows[1] == ("after L1", "after-L1")  # the first stage every design shares
    reverse = tracks["cross, reversed"]
    assert reverse.libraries == ("cross.L3", "cross.L2", "L1")
    assert [row for row, _ in reverse.rows] == ["base", "after L3", "after L2", "after L1"]
    steps = {s.label: s for s in plan.steps}
    first = steps[reverse.rows[1][1]]
    assert first.start is None and first.library == "cross.L3"
    assert steps[reverse.rows[3][1]].start == reverse.rows[2][1]
    order = [s.label for s in plan.steps]
    assert all(order.index(s.start) < order.index(s.label) for s in plan.steps if s.start)
    # transfer: each cross track's first model (one library learned, from the base) on the track's second library
    pairs = [(t.model, t.source, t.target) for t in plan.transfers]
    assert pairs == [("after-L1", "L1", "cross.L2"), ("cross.reversed.after-L3", "cross.L3", "cross.L2")]
    assert plan.open_on("base") == ["cross.L2"] and plan.open_on("after-L1") == ["cross.L2"]
    assert plan.open_on("same.after-L2") == []


def test_without_cross_the_schedule_is_numpy_only_and_has_no_transfer():
    plan = schedule(LifelongConfig(libraries=2))
    assert {lib.source for lib in plan.libraries} == {"numpy"} and plan.transfers == ()
    assert plan.open_on("base") == []


def test_the_plan_counts_the_open_book_transfer_evaluations(tmp_path):
    import json

    from sebench.cli import main

    out = tmp_path / "plan"
    assert main(["run", "--preset", "lifelong", "--out", str(out), "--plan", "--set", "lifelong.libraries=2",
                 "--set", "lifelong.cross=more-itertools"]) in (0, 1)
    stages = [s["stage"] for s in json.loads((out / "plan.json").read_text())["stages"]]
    assert {"base/cross.L2 open single_test", "base/L1 open single_test", "after-L1/cross.L2 open single_test",
            "cross.reversed.after-L2/L1 open single_test"} == {s for s in stages if " open " in s}
    assert "cross.reversed.after-L1: SFT" in stages

"""sebench.threads: the thread policy driven by a scripted load reading and a fake clock (no real load)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from sebench import threads
from sebench.threads import ThreadGovernor, threads_for

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_torch_threads(monkeypatch):
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


class Script:
    """A load reading that returns the scripted values in turn, and a clock moved by hand."""

    def __init__(self, loads):
        self.loads, self.calls, self.now = list(loads), 0, 100.0

    def reading(self):
        self.calls += 1
        return self.loads.pop(0)

    def clock(self):
        return self.now


def _governor(script, cores=2):
    return ThreadGovernor(reading=script.reading, cores=cores, clock=script.clock, interval=2.0)


def test_a_core_counts_as_taken_when_others_use_half_of_it_or_more():
    assert [threads_for(load, 2) for load in (None, 0.0, 0.49, 0.5, 1.0, 1.49, 1.5, 7.0)] == [2, 2, 2, 1, 1, 1, 1, 1]
    assert [threads_for(load, 8) for load in (0.3, 2.6, 6.2)] == [8, 5, 2]


def test_the_count_follows_the_load_between_steps_and_is_timed(caplog):
    script = Script([0.0, 1.0, 1.0, 0.2])
    governor = _governor(script)
    with caplog.at_level(logging.INFO, logger="sebench.threads"):
        assert governor.set_threads() == 2 and torch.get_num_threads() == 2
        script.now += 1.5
        assert governor.adapt() == 2 and script.calls == 1  # within the interval: no new reading
        script.now += 1.0
        assert governor.adapt() == 1 and torch.get_num_threads() == 1  # a competitor came
        script.now += 3.0
        assert governor.adapt() == 1
        script.now += 2.0
        assert governor.adapt() == 2 and torch.get_num_threads() == 2  # it left
        script.now += 4.0
    assert governor.usage() == {"cores": 2, "policy": "adaptive", "seconds": {"2": 6.5, "1": 5.0}}
    fewer = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert fewer == ["torch uses 1 of 2 CPU threads: other processes kept 1.0 of 2 cores busy"]


def test_a_busy_moment_at_the_start_does_not_fix_the_stage():
    script = Script([1.0] + [0.0] * 5)
    governor = _governor(script)
    assert governor.set_threads() == 1
    for _ in range(5):
        script.now += 2.0
        governor.adapt()
    assert governor.current == 2 and governor.usage()["seconds"] == {"2": 8.0, "1": 2.0}


def test_a_fixed_count_is_never_re_decided(monkeypatch):
    script = Script([])
    governor = _governor(script)
    assert governor.set_threads(1) == 1 and torch.get_num_threads() == 1
    script.now += 10.0
    assert governor.adapt() == 1 and script.calls == 0
    assert governor.usage() == {"cores": 2, "policy": "fixed", "seconds": {"1": 10.0}}
    monkeypatch.setenv(threads.THREADS_ENV, "2")
    assert governor.set_threads() == 2 and governor.fixed == 2  # the environment fallback
    assert governor.set_threads(1) == 1  # the stage's own setting comes first


def test_each_stage_has_its_own_tally_and_one_without_torch_has_none():
    script = Script([0.0, 1.0])
    governor = _governor(script)
    governor.set_threads()
    script.now += 3.0
    governor.reset_usage()  # a stage without torch (the judge) starts
    script.now += 50.0
    assert governor.usage() is None
    assert governor.adapt() == 1  # the next stage's first step decides afresh
    script.now += 1.0
    assert governor.usage()["seconds"] == {"1": 1.0}


def test_an_unknown_load_uses_every_core():
    governor = _governor(Script([None]), cores=3)
    assert governor.set_threads() == 3


def test_never_set_means_never_touched():
    """Where a stage never set torch's threads (a GPU, the judge), adapting between tokens does nothing."""
    script = Script([])
    assert _governor(script).adapt() is None and script.calls == 0


def test_our_descendants_do_not_compete_with_us():
    """pid -> (parent, ticks): 10 is us, 11 our judge worker, 12 its sandboxed program, 30 a browser, 31 its
    renderer."""
    table = {1: (0, 1), 10: (1, 100), 11: (10, 7), 12: (11, 3), 30: (1, 40), 31: (30, 9)}
    assert threads.tree_ticks(table, 10) == 110 and threads.tree_ticks(table, 30) == 49


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_cpu_of_a_finished_child_stays_ours():
    """A child that ran and was reaped (a judge worker) still counts as ours, through our cutime."""
    before = threads.tree_ticks(threads.processes(), os.getpid())
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    subprocess.run([sys.executable, "-c", spin], check=True)
    after = threads.tree_ticks(threads.processes(), os.getpid())
    assert after - before >= 0.25 * threads._TICK

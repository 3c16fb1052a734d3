"""sebench.threads: the thread policy driven by a scripted wait reading and a fake clock (no real load)."""

from __future__ import annotations

import logging

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
    """A wait reading that returns the scripted values in turn, and a clock moved by hand."""

    def __init__(self, waits):
        self.waits, self.calls, self.now = list(waits), 0, 100.0

    def reading(self):
        self.calls += 1
        return self.waits.pop(0)

    def clock(self):
        return self.now

    def run(self, governor, seconds, step=2.0):
        """Adapts between `step`-second micro-batches for `seconds`; returns the counts used."""
        counts = []
        for _ in range(int(seconds / step)):
            self.now += step
            counts.append(governor.adapt())
        return counts


def _governor(script, cores=2):
    return ThreadGovernor(reading=script.reading, cores=cores, clock=script.clock, interval=2.0, probe=30.0)


def test_threads_keep_the_cores_they_got():
    """(2 threads waited 0.84 s a second beside a one-core busy loop on 2 cores: measured)"""
    assert [threads_for(2, w, 2) for w in (None, 0.0, 0.1, 0.3, 0.84, 1.9)] == [2, 2, 2, 1, 1, 1]
    assert [threads_for(1, w, 2) for w in (0.0, 0.05, 0.9)] == [1, 1, 1]
    assert [threads_for(8, w, 8) for w in (0.2, 0.9, 2.2, 7.5)] == [8, 7, 6, 1]


def test_a_competitor_takes_a_core_and_gives_it_back(caplog):
    script = Script([0.0, 0.1, 0.84] + [0.03] * 15 + [0.84] + [0.02] * 15 + [0.1, 0.1])
    governor = _governor(script)
    with caplog.at_level(logging.INFO, logger="sebench.threads"):
        assert governor.set_threads() == 2 and torch.get_num_threads() == 2  # a stage starts on every core
        script.now += 1.5
        assert governor.adapt() == 2 and script.calls == 1  # within the interval: no new reading
        script.now += 0.5
        assert governor.adapt() == 2  # waited 0.1: noise
        assert script.run(governor, 2) == [1] and torch.get_num_threads() == 1  # a competitor came
        assert script.run(governor, 30) == [1] * 14 + [2]  # after 30 s, one more is tried...
        assert script.run(governor, 2) == [1]  # ...and given up: the competitor is still there
        assert script.run(governor, 30) == [1] * 14 + [2]  # tried again: it has left
        assert script.run(governor, 4) == [2, 2]
    assert governor.usage() == {"cores": 2, "policy": "adaptive", "seconds": {"2": 10.0, "1": 60.0}}
    fewer = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert fewer == ["torch uses 1 of 2 CPU threads: its 2 threads waited 0.84 s a second for a core "
                     "(another process is busy)"]


def test_a_busy_moment_does_not_fix_a_stage():
    """The issue's case: one slow moment when a long stage starts must not keep it on one thread."""
    script = Script([0.0, 1.2] + [0.0] * 40)
    governor = _governor(script)
    governor.set_threads()
    counts = script.run(governor, 80)
    assert counts[0] == 1 and counts[-1] == 2 and counts.count(1) == 15


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


def test_each_stage_starts_afresh_with_its_own_tally():
    script = Script([0.0, 0.9, 0.5, 0.0])
    governor = _governor(script)
    governor.set_threads()
    assert script.run(governor, 2) == [1]
    governor.reset_usage()  # a stage without torch (the judge) starts
    script.now += 50.0
    assert governor.usage() is None
    assert governor.adapt() == 2  # the next stage's first step: every core, a new measurement
    assert script.calls == 3
    assert script.run(governor, 2) == [2] and governor.usage()["seconds"] == {"2": 2.0}


def test_an_unknown_wait_keeps_the_count():
    governor = _governor(Script([None, None]), cores=3)
    assert governor.set_threads() == 3 and governor.adapt() == 3


def test_never_set_means_never_touched():
    """Where a stage never set torch's threads (a GPU, the judge), adapting between tokens does nothing."""
    script = Script([])
    assert _governor(script).adapt() is None and script.calls == 0


def test_the_wait_is_summed_over_the_threads_that_are_still_there(tmp_path):
    for tid, line in (("10", "900 2500000000 7\n"), ("11", "5 500000000 2\n"), ("12", "")):
        (tmp_path / tid).mkdir()
        (tmp_path / tid / "schedstat").write_text(line)  # 12: a thread that ended as it was read
    assert threads._waited_seconds(str(tmp_path)) == 3.0
    assert threads._waited_seconds(str(tmp_path / "absent")) is None


def test_the_count_can_change_inside_a_forward_and_a_backward_pass(monkeypatch):
    """watch_layers: a decision before each layer runs and when each layer's input gradient is ready, so a
    competitor that arrives during a long step is answered within the step."""

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    counts = []

    def reading():
        counts.append(torch.get_num_threads())
        return 0.9  # every interval, two threads waited: one core is taken

    governor = ThreadGovernor(reading=reading, cores=2, interval=0.0, probe=0.0)
    monkeypatch.setattr(threads, "GOVERNOR", governor)
    net = Net()
    threads.watch_layers(net)
    threads.set_threads()  # the stage starts on both cores: one reading, to start the window
    net(torch.randn(2, 4)).sum().backward()
    # 3 decisions forward (before each layer), 2 backward (the inputs of layers 2 and 3 need gradients);
    # each finds the count it set the time before, dropping to 1 and trying 2 again (probe=0)
    assert counts == [2, 2, 1, 2, 1, 2]

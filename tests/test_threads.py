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


class World:
    """A fake machine of 2 cores and a clock moved by hand: a competitor busy on one core from `arrive` to
    `leave`; beside it two threads wait 0.84 thread-seconds a second for a core (as measured), one none."""

    def __init__(self, arrive=float("inf"), leave=float("inf")):
        self.arrive, self.leave, self.now, self.calls = arrive, leave, 0.0, 0

    def reading(self):
        self.calls += 1
        busy = self.arrive <= self.now < self.leave
        return 0.84 if busy and torch.get_num_threads() == 2 else 0.05

    def clock(self):
        return self.now

    def run(self, governor, until, step=0.25):
        """Adapts every `step` seconds (as the model's layers run) until `until`; returns {time: count}."""
        counts = {}
        while self.now < until:
            self.now += step
            counts[self.now] = governor.adapt()
        return counts


def _governor(world, cores=2):
    return ThreadGovernor(reading=world.reading, cores=cores, clock=world.clock)


def test_threads_keep_the_cores_they_got():
    assert [threads_for(2, w, 2) for w in (None, 0.0, 0.1, 0.3, 0.84, 1.9)] == [2, 2, 2, 1, 1, 1]
    assert [threads_for(1, w, 2) for w in (0.0, 0.05, 0.9)] == [1, 1, 1]
    assert [threads_for(8, w, 8) for w in (0.2, 0.9, 2.2, 7.5)] == [8, 7, 6, 1]


def test_a_competitor_takes_a_core_and_gives_it_back(caplog):
    world = World(arrive=10.0, leave=100.0)
    governor = _governor(world)
    with caplog.at_level(logging.INFO, logger="sebench.threads"):
        assert governor.set_threads() == 2 and torch.get_num_threads() == 2  # a stage starts on every core
        counts = world.run(governor, 140.0)
    assert all(n == 2 for t, n in counts.items() if t < 10.0)
    dropped = min(t for t, n in counts.items() if n == 1)
    assert 10.0 <= dropped <= 10.0 + threads.INTERVAL + 0.25
    probing = sum(0.25 for t, n in counts.items() if dropped < t <= 100.0 and n == 2)  # one more, tried
    assert 0 < probing <= 3 * (threads.CHECK + 0.25)  # every 30 s, given up after CHECK seconds
    back = min(t for t, n in counts.items() if t > 100.0 and n == 2)
    assert back <= 100.0 + threads.PROBE + threads.INTERVAL and all(n == 2 for t, n in counts.items() if t >= back)
    used = governor.usage()
    assert used["cores"] == 2 and used["policy"] == "adaptive"
    assert sum(used["seconds"].values()) == pytest.approx(140.0)
    assert used["seconds"]["1"] == pytest.approx(sum(0.25 for n in counts.values() if n == 1), abs=0.3)
    fewer = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert fewer == ["torch uses 1 of 2 CPU threads: its 2 threads waited 0.84 s a second for a core "
                     "(another process is busy)"]


def test_a_busy_moment_does_not_fix_a_stage():
    """The issue's case: one slow moment when a long stage starts must not keep it on one thread."""
    world = World(arrive=0.0, leave=1.0)
    governor = _governor(world)
    governor.set_threads()
    counts = world.run(governor, 600.0)
    on_one = sum(0.25 for n in counts.values() if n == 1)
    assert 0 < on_one <= threads.PROBE + threads.INTERVAL and counts[600.0] == 2


def test_a_fixed_count_is_never_re_decided(monkeypatch):
    world = World(arrive=0.0)
    governor = _governor(world)
    assert governor.set_threads(1) == 1 and torch.get_num_threads() == 1
    world.run(governor, 10.0)
    assert governor.current == 1 and world.calls == 0
    assert governor.usage() == {"cores": 2, "policy": "fixed", "seconds": {"1": 10.0}}
    monkeypatch.setenv(threads.THREADS_ENV, "2")
    assert governor.set_threads() == 2 and governor.fixed == 2  # the environment fallback
    assert governor.set_threads(1) == 1  # the stage's own setting comes first


def test_each_stage_starts_afresh_with_its_own_tally():
    world = World(arrive=0.0, leave=3.0)
    governor = _governor(world)
    governor.set_threads()
    world.run(governor, 3.0)
    assert governor.current == 1
    governor.reset_usage()  # a stage without torch (the judge) starts
    world.now += 50.0
    assert governor.usage() is None
    calls = world.calls
    assert governor.adapt() == 2 and world.calls == calls + 1  # the next stage: every core, a new window
    world.run(governor, world.now + 2.0)
    assert governor.usage()["seconds"] == {"2": 2.0}


def test_an_unknown_wait_keeps_the_count():
    governor = ThreadGovernor(reading=lambda: None, cores=3)
    assert governor.set_threads() == 3 and governor.adapt() == 3


def test_never_set_means_never_touched():
    """Where a stage never set torch's threads (a GPU, the judge), the layers' calls do nothing."""
    world = World()
    assert _governor(world).adapt() is None and world.calls == 0


def test_the_wait_is_summed_over_the_threads_that_are_still_there(tmp_path):
    for tid, line in (("10", "900 2500000000 7\n"), ("11", "5 500000000 2\n"), ("12", "")):
        (tmp_path / tid).mkdir()
        (tmp_path / tid / "schedstat").write_text(line)  # 12: a thread that ended as it was read
    assert threads._waited_seconds(str(tmp_path)) == 3.0
    assert threads._waited_seconds(str(tmp_path / "absent")) is None
    for tid in ("10", "11"):
        (tmp_path / tid / "schedstat").unlink()  # a kernel without schedstat: unknown, not "no waiting"
    assert threads._waited_seconds(str(tmp_path)) is None


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

    governor = ThreadGovernor(reading=reading, cores=2, interval=0.0, check=0.0, probe=0.0)
    monkeypatch.setattr(threads, "GOVERNOR", governor)
    torch.set_num_threads(2)  # as a fresh process starts (an earlier test may have left torch on one)
    net = Net()
    threads.watch_layers(net)
    threads.set_threads()  # the stage starts on both cores: one reading, to start the window
    net(torch.randn(2, 4)).sum().backward()
    # 3 decisions forward (before each layer), 2 backward (the inputs of layers 2 and 3 need gradients);
    # each finds the count it set the time before, dropping to 1 and trying 2 again (probe=0)
    assert counts == [2, 2, 1, 2, 1, 2]

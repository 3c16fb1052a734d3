"""torch's CPU threads, decided again and again from how long they wait for a core.

A stage's thread count is not fixed by one look at the machine: a busy moment when a 12-minute stage
started once left it on one thread while the second core sat idle, and a competitor that starts after
the count was chosen makes every OpenMP barrier wait for the thread that shares its core.

The policy (`set_threads` when a stage starts, then `adapt_threads` as the model's layers run, forward
and backward: `watch_layers`, which sebench.models.load_causal_lm applies to every model it loads on a
CPU, so that a competitor that arrives in the middle of a long step costs at most an interval or two):

- fixed: the stage's `threads` setting (`sebench train --threads`, `sebench rollout --threads`, the run's
  `train.threads` / `rollout.threads`), else $SEBENCH_THREADS: that count, never changed;
- adaptive (the default): a stage starts on every usable core; CHECK seconds after each change, then
  every INTERVAL seconds, the time this process's threads spent waiting for a core since the last
  decision is read (`RunQueueWait`, from /proc/self/task/*/schedstat) and torch keeps the cores its
  threads actually got: n threads that waited w thread-seconds a second got n - w cores, rounded down
  unless w is below SLACK (`threads_for`). After PROBE seconds on fewer threads than cores, one more is
  tried (and checked CHECK seconds later), so a competitor that has left gives its core back.

What the threads wait for is the measure, not what other processes use: the scheduler's own answer takes
priorities, session groups and containers into account (a niced indexer that yields its core costs
nothing; one in another scheduling group, or a neighbour in another container, does), and the work of
our own children (the judge's sandbox) makes torch wait only while the two really run at once.

Why not all cores with OpenMP's passive wait policy: measured on 2 cores beside a one-core busy loop
(bench/busy_machine.py, the embedded model), two threads that spin-wait (OpenMP's default) ran an SFT
step about 6x slower than idle (on a matrix product they waited 0.84 thread-seconds a second); with OMP_WAIT_POLICY=PASSIVE
(honoured when set in os.environ before torch is first imported, not after) two threads still ran it
1.2-2.7x slower than one thread did beside the same loop, and the passive policy made the idle step
1.05-1.5x slower. One thread beside the loop ran at its idle speed: SFT 1.4-1.9x slower than two idle
threads (one core's speed against two), generation about 1.1x. So the count follows the waiting, with
OpenMP's default wait policy.

Each stage records the seconds it ran at each count (`reset_thread_usage`, `thread_usage`), as process_memory.py
does for the peak memory: the run's stage records and `sebench train`'s train_config.json hold them.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

THREADS_ENV = "SEBENCH_THREADS"  # the documented fallback of the stages' `threads` settings
INTERVAL = 1.0  # seconds between two decisions of the adaptive policy while the count holds
CHECK = 0.5  # seconds before a new count (a stage's start, a probe) is checked: a wrong one costs little
SLACK = 0.25  # thread-seconds a second of waiting that are noise (a kernel thread), not a busy core
PROBE = 30.0  # seconds on fewer threads than cores before one more is tried


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def threads_for(current: int, waited: float | None, cores: int) -> int:
    """The next count for `current` threads that waited `waited` thread-seconds a second for a core: the
    cores they got, current - waited, rounded down unless within SLACK; 1 to `cores` (None: unknown)."""
    if waited is None:
        return current
    return max(1, min(cores, math.floor(current - waited + SLACK)))


class RunQueueWait:
    """Thread-seconds a second that this process's threads spent waiting for a core since the previous
    reading (Linux /proc/self/task/*/schedstat; None where there is none)."""

    def __init__(self) -> None:
        self._last: tuple[float, float] | None = None  # (time, waited seconds)

    def __call__(self) -> float | None:
        now, waited = time.monotonic(), _waited_seconds()
        if waited is None:
            return None
        last, self._last = self._last, (now, waited)
        if last is None or now <= last[0]:
            return 0.0
        return max(0.0, (waited - last[1]) / (now - last[0]))


def _waited_seconds(tasks: str = "/proc/self/task") -> float | None:
    """Seconds every live thread of this process has spent on a run queue, waiting for a core (None where
    the kernel keeps no such count)."""
    try:
        tids = os.listdir(tasks)
    except OSError:
        return None
    read, total = False, 0
    for tid in tids:
        try:
            with open(f"{tasks}/{tid}/schedstat", "rb") as handle:
                total += int(handle.read().split()[1])  # run time, wait time, time slices (ns)
            read = True
        except (OSError, IndexError, ValueError):
            continue  # the thread has just ended
    return total / 1e9 if read else None


class ThreadGovernor:
    """Sets torch's thread count by the policy above and keeps the seconds spent at each count."""

    def __init__(self, reading: Callable[[], float | None] | None = None, cores: int | None = None,
                 clock: Callable[[], float] = time.monotonic, interval: float = INTERVAL, check: float = CHECK,
                 probe: float = PROBE):
        self.reading = reading or RunQueueWait()
        self.cores = cores or usable_cores()
        self.clock = clock
        self.interval, self.check, self.probe = interval, check, probe
        self.fixed: int | None = None
        self.current: int | None = None
        self._next = float("-inf")  # when the next adaptive decision is due
        self._changed = float("-inf")  # when the count last changed
        self._seconds: dict[int, float] = {}
        self._since: float | None = None  # None: no count used since the last reset_usage
        self._told = False  # the line saying why fewer threads than cores was logged since the reset
        self._fresh = True  # the next adaptive decision starts afresh on every core (a stage starts)

    def set_threads(self, threads: int | None = None) -> int:
        """Fixes the count at `threads` (else $SEBENCH_THREADS), or with neither lets it adapt; returns it."""
        env = int(os.environ.get(THREADS_ENV) or 0)
        was_fixed, self.fixed = self.fixed, threads or env or None
        if self.fixed:
            why = "the stage's threads setting" if threads else f"${THREADS_ENV}"
            self._use(self.fixed, f"fixed by {why}")
            return self.fixed
        self._fresh = self._fresh or was_fixed is not None
        return self.adapt(setting=True)

    def adapt(self, setting: bool = False) -> int | None:
        """Re-decides an adaptive count when its time has come; returns the count in use. The first
        decision of a stage takes every core and starts a new measurement. Unless `setting` (set_threads),
        nothing happens where torch's threads were never set (a GPU, a stage without torch)."""
        if self.fixed or (self.current is None and not setting):
            return self.current
        now = self.clock()
        if self._fresh:
            self._fresh = False
            self.reading()  # the window so far spans the time between stages
            self._use(self.cores, "")
            self._next = now + self.check
        elif now >= self._next:
            waited = self.reading()
            threads = threads_for(self.current, waited, self.cores)
            if threads == self.current < self.cores and now - self._changed >= self.probe:
                threads += 1  # a competitor may have left: try one more
            self._next = now + (self.check if threads != self.current else self.interval)
            self._use(threads, "" if waited is None else f"its {self.current} threads waited {waited:.2f} s a "
                      "second for a core (another process is busy)")
        return self.current

    def _use(self, threads: int, why: str) -> None:
        now = self.clock()
        self._account(now)
        self._since = now
        changed = threads != self.current
        if changed:
            import torch

            torch.set_num_threads(threads)
            self.current, self._changed = threads, now
        fewer = threads < self.cores and not self._told  # said once a stage, with the reason
        if fewer or changed:
            log.log(logging.INFO if fewer else logging.DEBUG, "torch uses %d of %d CPU threads%s", threads,
                    self.cores, f": {why}" if why else "")
        self._told = self._told or fewer

    def _account(self, now: float) -> None:
        if self._since is not None and self.current is not None:
            self._seconds[self.current] = self._seconds.get(self.current, 0.0) + now - self._since
            self._since = now

    def reset_usage(self) -> None:
        """Starts a new tally (a stage); counting starts when the stage next sets or adapts the count."""
        self._seconds, self._since, self._told, self._fresh = {}, None, False, True

    def add_usage(self, usage: dict | None) -> None:
        """Counts a child process's usage (a method's fenced process) into this stage's tally."""
        for threads, seconds in (usage or {}).get("seconds", {}).items():
            self._seconds[int(threads)] = self._seconds.get(int(threads), 0.0) + float(seconds)

    def usage(self) -> dict | None:
        """{"cores", "policy", "seconds": {threads: seconds}} since reset_usage; None if torch was not used."""
        self._account(self.clock())
        if not self._seconds:
            return None
        seconds = {str(n): round(s, 2) for n, s in sorted(self._seconds.items(), reverse=True)}
        return {"cores": self.cores, "policy": "fixed" if self.fixed else "adaptive", "seconds": seconds}


GOVERNOR = ThreadGovernor()  # torch's thread count is one per process, and so is its governor


def set_threads(threads: int | None = None) -> int:
    """GOVERNOR.set_threads: `threads`, else $SEBENCH_THREADS, fixed; else every core, then adapting."""
    return GOVERNOR.set_threads(threads)


def adapt_threads() -> int | None:
    """GOVERNOR.adapt: cheap to call often (a few comparisons until INTERVAL has passed)."""
    return GOVERNOR.adapt()


def watch_layers(model) -> None:
    """Calls adapt_threads before each layer of the model's ModuleLists runs and, in training, when the
    gradient of its input is ready (on the thread that runs the backward pass, between two layers)."""
    import torch

    def on_gradient(_grad):
        adapt_threads()

    def before_layer(_module, args, kwargs):
        adapt_threads()
        hidden = args[0] if args else kwargs.get("hidden_states")
        if isinstance(hidden, torch.Tensor) and hidden.requires_grad:
            hidden.register_hook(on_gradient)

    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList):
            for layer in module:
                layer.register_forward_pre_hook(before_layer, with_kwargs=True)


def reset_thread_usage() -> None:
    """GOVERNOR.reset_usage: a stage starts."""
    GOVERNOR.reset_usage()


def thread_usage() -> dict | None:
    """GOVERNOR.usage: the threads a stage used (None if it set none)."""
    return GOVERNOR.usage()


def add_thread_usage(usage: dict | None) -> None:
    """GOVERNOR.add_usage: a child process's threads count in this stage."""
    GOVERNOR.add_usage(usage)

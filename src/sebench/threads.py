"""torch's CPU threads, decided again and again from what other processes leave free.

A stage's thread count is not fixed by one look at the machine: a busy moment when a 12-minute stage
started once left it on one thread while the second core sat idle, and a competitor that starts after
the count was chosen makes every OpenMP barrier wait for the thread that shares its core.

The policy (`set_threads`, then `adapt_threads` between training steps and generated tokens):

- fixed: the stage's `threads` setting (`sebench train --threads`, `sebench rollout --threads`, the run's
  `train.threads` / `rollout.threads`), else $SEBENCH_THREADS: that count, never changed;
- adaptive (the default): at most every INTERVAL seconds, the cores that other processes kept busy since
  the last decision are read (`OtherLoad`: the busy time of our usable cores in /proc/stat minus the CPU
  time of this process and its descendants), a core counts as taken when others used at least half of
  it, and torch gets the usable cores not taken, at least one (`threads_for`).

Why not all cores with OpenMP's passive wait policy: measured on 2 cores beside a one-core busy loop
(bench/busy_machine.py), two threads that spin-wait (OpenMP's default) ran an SFT step of the embedded
model 6x slower than idle, and with OMP_WAIT_POLICY=PASSIVE still about 2x slower than one thread; and
the passive policy made the idle step itself about 1.5x slower. One thread beside the competitor ran
within about 1.5x of two idle threads. So the count follows the load, with the default wait policy.

Each stage records the seconds it ran at each count (`reset_usage`, `usage`), as memory.py does for
the peak memory: the run's stage records and `sebench train`'s train_config.json hold them.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

THREADS_ENV = "SEBENCH_THREADS"  # the documented fallback of the stages' `threads` settings
INTERVAL = 2.0  # seconds between two decisions of the adaptive policy
TAKEN_SHARE = 0.5  # a core that other processes use at least this much is theirs
FIRST_LOOK = 0.25  # seconds of load read when there is no recent reading to decide from


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def threads_for(other_load: float | None, cores: int) -> int:
    """The threads to use when other processes keep `other_load` cores busy (None: unknown, all cores)."""
    if other_load is None:
        return cores
    taken = int(other_load + 1 - TAKEN_SHARE)  # cores at least TAKEN_SHARE busy count as taken
    return max(1, min(cores, cores - taken))


class OtherLoad:
    """Reads the cores that competing processes kept busy since the previous reading (None: unknown here).

    The busy time of the usable cores from /proc/stat (every process on the machine, those of other
    containers included), minus the CPU time of this process and its descendants with the children they
    reaped (the judge's sandbox workers are ours, not competitors). A process at a lower priority counts
    too: where the scheduler groups processes (autogroups per session, cgroups per service), a niced
    process of another group takes its share all the same. A first reading, or one after more than
    `max_age` seconds, looks at the machine for FIRST_LOOK s.
    """

    def __init__(self, max_age: float = 5 * INTERVAL):
        self.max_age = max_age
        self._last: tuple[float, float, float] | None = None  # (time, busy core-seconds, our CPU seconds)

    def __call__(self) -> float | None:
        sample = _sample()
        if sample is None:
            return None
        if self._last is None or sample[0] - self._last[0] > self.max_age:
            self._last = sample
            time.sleep(FIRST_LOOK)
            sample = _sample()
            if sample is None:
                return None
        (t0, busy0, mine0), (t1, busy1, mine1) = self._last, sample
        self._last = sample
        elapsed = t1 - t0
        return max(0.0, ((busy1 - busy0) - (mine1 - mine0)) / elapsed) if elapsed > 0 else 0.0


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _sample() -> tuple[float, float, float] | None:
    """(now, busy seconds of the usable cores, CPU seconds of our process tree), or None without /proc."""
    try:
        stat = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return None
    cpus = {f"cpu{i}" for i in os.sched_getaffinity(0)} if hasattr(os, "sched_getaffinity") else None
    busy = 0
    for line in stat:
        fields = line.split()
        if fields and fields[0].startswith("cpu") and fields[0] != "cpu" and (cpus is None or fields[0] in cpus):
            # user nice system idle iowait irq softirq steal: all but idle and iowait keep the core busy
            busy += sum(int(v) for v in fields[1:4]) + sum(int(v) for v in fields[6:9])
    return time.monotonic(), busy / _TICK, tree_ticks(processes(), os.getpid()) / _TICK


def processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, CPU ticks with the reaped children's) of every process in /proc (a few ms for a
    few hundred processes: read every INTERVAL at most)."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{entry.name}/stat", os.O_RDONLY)
            try:
                fields = os.read(fd, 4096).rsplit(b")", 1)[1].split()
            finally:
                os.close(fd)
        except (OSError, IndexError):
            continue  # the process has just ended
        # after the name: state ppid ... utime(11) stime cutime cstime
        table[int(entry.name)] = (int(fields[1]), sum(int(v) for v in fields[11:15]))
    return table


def tree_ticks(table: dict[int, tuple[int, int]], root: int) -> int:
    """CPU ticks of `root` and its descendants in `table` (from `processes`)."""
    tree, frontier = {root}, {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier and pid not in tree}
        tree |= frontier
    return sum(table[pid][1] for pid in tree if pid in table)


class ThreadGovernor:
    """Sets torch's thread count by the policy above and keeps the seconds spent at each count."""

    def __init__(self, reading: Callable[[], float | None] | None = None, cores: int | None = None,
                 clock: Callable[[], float] = time.monotonic, interval: float = INTERVAL):
        self.reading = reading or OtherLoad()
        self.cores = cores or usable_cores()
        self.clock = clock
        self.interval = interval
        self.fixed: int | None = None
        self.current: int | None = None
        self._decided = float("-inf")
        self._seconds: dict[int, float] = {}
        self._since: float | None = None  # None: no count used since the last reset_usage
        self._told = False  # the line saying why fewer threads than cores was logged since the reset

    def set_threads(self, threads: int | None = None) -> int:
        """Fixes the count at `threads` (else $SEBENCH_THREADS), or with neither lets it adapt; returns it."""
        env = int(os.environ.get(THREADS_ENV) or 0)
        self.fixed = threads or env or None
        if self.fixed:
            why = "the stage's threads setting" if threads else f"${THREADS_ENV}"
            self._use(self.fixed, f"fixed by {why}")
            return self.fixed
        return self.adapt(force=self._since is None)

    def adapt(self, force: bool = False) -> int | None:
        """Re-decides an adaptive count when INTERVAL has passed (or `force`); returns the count in use."""
        if self.fixed or (self.current is None and not force):
            return self.current  # fixed, or torch's threads were never set here (a GPU, a light stage)
        now = self.clock()
        if force or now - self._decided >= self.interval:
            load = self.reading()
            self._decided = self.clock()
            why = f"other processes kept {load:.1f} of {self.cores} cores busy" if load is not None else ""
            self._use(threads_for(load, self.cores), why)
        return self.current

    def _use(self, threads: int, why: str) -> None:
        now = self.clock()
        self._account(now)
        self._since = now
        changed = threads != self.current
        if changed:
            import torch

            torch.set_num_threads(threads)
            self.current = threads
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
        self._seconds, self._since, self._told = {}, None, False

    def usage(self) -> dict | None:
        """{"cores", "policy", "seconds": {threads: seconds}} since reset_usage; None if torch was not used."""
        self._account(self.clock())
        if not self._seconds:
            return None
        seconds = {str(n): round(s, 2) for n, s in sorted(self._seconds.items(), reverse=True)}
        return {"cores": self.cores, "policy": "fixed" if self.fixed else "adaptive", "seconds": seconds}


GOVERNOR = ThreadGovernor()  # torch's thread count is one per process, and so is its governor


def set_threads(threads: int | None = None) -> int:
    """GOVERNOR.set_threads: `threads`, else $SEBENCH_THREADS, fixed; else adapting to the load."""
    return GOVERNOR.set_threads(threads)


def adapt_threads() -> int | None:
    """GOVERNOR.adapt: cheap to call often (between steps, between tokens); a no-op where threads are fixed."""
    return GOVERNOR.adapt()


def reset_thread_usage() -> None:
    """GOVERNOR.reset_usage: a stage starts."""
    GOVERNOR.reset_usage()


def thread_usage() -> dict | None:
    """GOVERNOR.usage: the threads a stage used (None if it set none)."""
    return GOVERNOR.usage()

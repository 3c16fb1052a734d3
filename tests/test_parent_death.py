"""A process started with `bound_to_this_process()`, and one that calls `die_with_parent()` itself, dies when the
process that started it is killed (SIGKILL: no handler of its own runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sebench.parent_death import bound_to_this_process

# a middle process that starts a sleeping child, says its pid, and waits to be killed
MIDDLE = textwrap.dedent("""
    import subprocess, sys, time
    from sebench.parent_death import bound_to_this_process
    how = sys.argv[1]
    if how == "preexec":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                 preexec_fn=bound_to_this_process())
    elif how == "itself":
        child = subprocess.Popen([sys.executable, "-c", "from sebench.parent_death import die_with_parent; "
                                  "die_with_parent(); print('bound', flush=True); import time; time.sleep(600)"],
                                 stdout=subprocess.PIPE, text=True)
        child.stdout.readline()
    else:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(child.pid, flush=True)
    time.sleep(600)
""")


def _state(pid: int) -> tuple[str, int]:
    """(state, parent pid) of a process; ("gone", 0) when there is none."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return "gone", 0
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    return _state(pid)[0] not in ("gone", "Z", "X")


def _child_after_killing_its_parent(how: str) -> int:
    middle = subprocess.Popen([sys.executable, "-c", MIDDLE, how], stdout=subprocess.PIPE, text=True)
    child = int(middle.stdout.readline())
    os.kill(middle.pid, signal.SIGKILL)
    middle.wait()
    while _state(child)[1] == middle.pid:  # not yet adopted (the parent-death signal comes before)
        time.sleep(0.01)
    deadline = time.monotonic() + 30  # a bound on the wait, not on how fast the kernel is
    while how != "unbound" and _alive(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    return child


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
@pytest.mark.parametrize("how", ["preexec", "itself"])
def test_a_bound_process_dies_with_its_killed_parent(how):
    assert not _alive(_child_after_killing_its_parent(how))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
def test_an_unbound_process_outlives_its_killed_parent():
    child = _child_after_killing_its_parent("unbound")
    try:
        assert _alive(child)  # what the binding prevents
    finally:
        os.kill(child, signal.SIGKILL)


def test_no_binding_from_a_thread_whose_end_would_kill_the_child():
    import threading

    found = []
    thread = threading.Thread(target=lambda: found.append(bound_to_this_process()))
    thread.start()
    thread.join()
    assert found == [None] and (bound_to_this_process() is not None) == sys.platform.startswith("linux")

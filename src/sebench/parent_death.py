"""Processes that die with the process that started them.

Linux's parent-death signal (prctl PR_SET_PDEATHSIG) is set in each process the study starts: the fenced
method process, `accelerate launch` and each process the launcher starts, and a `vllm serve` it runs,
so that a SIGKILL of the study alone leaves none of them running. The kernel sends the signal when
the *thread* that started the process ends, so it is set only for processes started from a main thread.
Elsewhere than on Linux it does nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """In this process: SIGKILL when its parent ends; and now, if the parent (`parent`: its pid, when known)
    ended before the signal was set (the process was then adopted by another)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent if parent is not None else os.getppid() == 1:
        os.kill(os.getpid(), signal.SIGKILL)


def bound_to_this_process() -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess.Popen that makes the child die with this process; None (nothing to do)
    when called from a thread other than the main one, whose end would kill the child early."""
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()
    return lambda: die_with_parent(parent)

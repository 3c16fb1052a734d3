"""Peak resident memory of this process (Linux VmHWM; ru_maxrss elsewhere), per stage where the OS allows.

On Linux, writing "5" to /proc/self/clear_refs resets the peak to the current resident size, so each
stage of a run can record its own peak; elsewhere the peak is the process's since it started.
"""

from __future__ import annotations

import contextlib
import resource
import sys
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


_CHILD_PEAK_MB = [0.0]  # the highest peak a child process reported since reset_peak_rss (note_child_peak)


def note_child_peak(mb: float) -> None:
    """A child process's peak (a method's fenced process), counted in this process's stage peak."""
    _CHILD_PEAK_MB[0] = max(_CHILD_PEAK_MB[0], float(mb))


def reset_peak_rss() -> bool:
    """Starts a new peak from the current resident size; False where the OS cannot (then peaks accumulate)."""
    _CHILD_PEAK_MB[0] = 0.0
    try:
        _CLEAR_REFS.write_text("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    """The highest resident memory of this process (or of a child it noted) since it started or since
    reset_peak_rss, in MiB."""
    return max(_own_peak_mb(), _CHILD_PEAK_MB[0])


def _own_peak_mb() -> float:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1 << 20 if sys.platform == "darwin" else 1024), 1)


def release_memory() -> None:
    """Collects garbage (trainers hold reference cycles) and hands freed heap pages back to the OS
    (glibc's malloc_trim), so that a finished stage's gigabytes do not stay resident in the next."""
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)

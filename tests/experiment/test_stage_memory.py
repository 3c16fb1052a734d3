"""Each stage's record holds the peak resident memory reached while it ran."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sebench.experiment.state import StageBook


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-stage peaks need /proc (Linux)")
def test_stage_record_holds_its_own_peak_memory(tmp_path):
    book = StageBook(tmp_path)
    out = tmp_path / "out.txt"

    def big_stage():
        block = bytearray(300 << 20)  # 300 MiB, touched page by page
        block[::4096] = b"x" * len(block[::4096])
        out.write_text("done")

    before = _resident_mb()
    first = book.run("big", {}, [out], big_stage)
    assert first["peak_rss_mb"] >= before + 250
    small = tmp_path / "small.txt"
    second = book.run("small", {}, [small], lambda: small.write_text("x"))
    assert second["peak_rss_mb"] < first["peak_rss_mb"] - 200  # the peak was reset for the new stage

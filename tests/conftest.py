"""Session fixtures shared by every stage's tests.

`built_instance`: a real instance built once per test session with seed 0 (rewritten docs, small task
splits), for tests that need the real thing.
The leak audit is not run here (tests/builder/test_build.py checks that it passes), so one finding
does not take every stage's tests down with it.

The suite runs on the CPU even where a GPU is visible, so that `make test` on a GPU box checks what CI
checks; `SEBENCH_TEST_GPU=1` leaves the GPU visible. The tests that touch torch ran that way on an H100 and an
H200 (2026-11-26; docs/performance.md, "One GPU at small sizes"); those that failed compared GPU results (bf16 autocast)
with CPU fp32 references or assumed a CPU, and now take the device into account.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

if os.environ.get("SEBENCH_TEST_GPU") != "1":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # before torch first asks for a GPU

SMALL_SIZES = {"train": 60, "single": 30, "multiple": 20}


def small_task_sizes():
    """TaskSizes(train=60, single=30, multiple=20)."""
    from sebench.tasks.generate import TaskSizes

    return TaskSizes(**SMALL_SIZES)


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """sebench's cache folder (files.cache_root) in the session's temporary folder, not the user's."""
    os.environ["SEBENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("sebench-cache"))
    yield Path(os.environ["SEBENCH_CACHE_DIR"])
    os.environ.pop("SEBENCH_CACHE_DIR", None)


@pytest.fixture(scope="session")
def built_instance(tmp_path_factory):
    """Path of an instance built with seed 0 (see the module docstring)."""
    from sebench.builder.run import build_instance

    logging.getLogger("sebench").setLevel(logging.WARNING)
    out = tmp_path_factory.mktemp("instance") / "seed0"
    return build_instance(out, 0, task_sizes=small_task_sizes(), audit=False)

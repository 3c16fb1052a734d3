"""How the study starts a method's process: through its keeper (sebench.methods.keeper), with a minimal
environment of its own, its standard output and error reaching the study through pipes.

The environment (`method_env`) is built, not inherited: the locale, PATH and the library path, thread counts,
the accelerator's variables (PASSED and the PASSED_PREFIXES), its own HOME, TMPDIR and caches in its private
temporary folder, the hub's offline switches when the network is off, and PYTHONPATH with sebench's source
before the study's own (where an entry point's module may live), each made absolute.

The child (`child_argv`) starts in the method's work folder, which the method writes and keeps across reruns:
neither that folder (`python -m` and `-c` put the current folder first on the import path) nor a relative
PYTHONPATH entry (taken from the current folder) is on its import path, so a module a method left there is
never imported in place of sebench's child, or of a module it imports, before the fence is entered.
Nothing else reaches it (no `OPENAI_API_KEY`, `HF_TOKEN`, ...), except the variables the user names for it
(`methods.LABEL.env`), which its record and the report list.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import IO

from sebench.errors import SebenchError
from sebench.methods.isolation import LINE_LIMIT

TREE_ENV = "SEBENCH_PROCESS_TREE"  # "subreaper" forces the keeper's weaker mode (the tests run both)
TREES = ("pid-namespace", "subreaper")
PASSED = (
    "PATH", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "PYTHONHASHSEED",
    "SEBENCH_THREADS", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "TOKENIZERS_PARALLELISM",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF", "CUDA_HOME",
    "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY",
)
PASSED_PREFIXES = ("LC_", "NCCL_")  # the locale's categories; NCCL's settings across GPUs


def method_env(tmp: Path, cache_dir: Path, network: bool, named: tuple[str, ...] = (),
               hub_cache: Path | None = None) -> dict[str, str]:
    """The environment of a method's process (module docstring); `named`: the study's variables the user
    gave it (`methods.LABEL.env`)."""
    import sebench

    study = os.environ
    env = {k: v for k, v in study.items() if k in PASSED or k.startswith(PASSED_PREFIXES)}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update({k: study[k] for k in named if k in study})
    src = str(Path(sebench.__file__).resolve().parents[1])  # importable however the study was started
    own = [os.path.abspath(p) for p in study["PYTHONPATH"].split(os.pathsep)] if study.get("PYTHONPATH") else []
    env["PYTHONPATH"] = os.pathsep.join([src, *own])  # the study's folders, whatever the child's current one
    env.update(HOME=str(tmp), TMPDIR=str(tmp), XDG_CACHE_HOME=str(tmp / "cache"), MPLCONFIGDIR=str(tmp / "mpl"),
               HF_DATASETS_CACHE=str(tmp / "datasets"), PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1",
               TORCHINDUCTOR_CACHE_DIR=str(tmp / "torchinductor"), TRITON_CACHE_DIR=str(tmp / "triton"),
               SEBENCH_CACHE_DIR=str(cache_dir))
    if hub_cache is not None:
        env["HF_HUB_CACHE"] = str(hub_cache)
    if not network:
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


# sebench's child, run with the current folder ("") taken off the import path before anything is imported
CHILD_CODE = ("import sys; sys.path[:] = [p for p in sys.path if p]; import runpy; "
              "runpy.run_module('sebench.methods.child', run_name='__main__', alter_sys=True)")


def child_argv(job_file: Path) -> list[str]:
    """`python -c CHILD_CODE JOB`: sebench.methods.child, never a module of the current folder (module docstring)."""
    return [sys.executable, "-c", CHILD_CODE, str(job_file)]


def tree_mode(layer: str) -> str:
    """How the keeper holds the tree: bubblewrap makes the PID namespace itself ("bwrap": the keeper is its
    subreaper); elsewhere a PID namespace of the keeper's own, unless SEBENCH_PROCESS_TREE=subreaper forces the
    fallback."""
    forced = os.environ.get(TREE_ENV)
    if forced and forced not in TREES:
        raise SebenchError(f"{TREE_ENV}={forced}: not a process tree mode; choose one of {', '.join(TREES)}")
    return "bwrap" if layer == "bwrap" else forced or "pid-namespace"


def keeper_argv(argv: list[str], report_fd: int, timeout: float | None, layer: str) -> list[str]:
    """`argv` under its keeper."""
    from sebench.methods import keeper

    spec = {"report_fd": report_fd, "timeout": timeout, "tree": tree_mode(layer)}
    # run as a file in isolated mode: the keeper needs the standard library only, not sebench's imports
    return [sys.executable, "-I", keeper.__file__, json.dumps(spec), "--", *argv]


class Relay:
    """Copies a method's output pipe, line by line, to the study's standard error (a thread)."""

    def __init__(self, stream: IO[bytes]):
        self.stream = stream
        self.thread = threading.Thread(target=self._copy, daemon=True)
        self.thread.start()

    def _copy(self) -> None:
        with self.stream:
            for line in iter(lambda: self.stream.readline(LINE_LIMIT), b""):  # a line never ended is cut
                sys.stderr.write(line.decode("utf-8", "replace"))
        sys.stderr.flush()

    def join(self, timeout: float = 10.0) -> None:
        self.thread.join(timeout)

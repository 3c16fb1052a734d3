"""Build time of an instance and import time of its generated package, as a ratio to `import numpy`.

    python bench/build_speed.py [--seed 0] [--repeats 7] [--no-tasks] [--no-docs] [--out DIR]

Each import is timed in a fresh interpreter (python -c "import X"), so interpreter start-up is part of
both timings; the median of --repeats runs is reported, with the start-up of a bare interpreter shown
beside them. Targets (issue 2): build under 30 s on 2 cores, import under 1.5x NumPy's.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUILD_TARGET_S = 30.0
IMPORT_TARGET_RATIO = 1.5


def time_import(module: str, path: Path | None, repeats: int) -> float:
    """Median wall seconds of `python -c "import module"` in a fresh interpreter."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = f"import {module}" if module else "pass"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)  # warm caches and write .pyc files
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-tasks", action="store_true", help="skip the tasks (default: sizes of `sebench build`)")
    parser.add_argument("--no-docs", action="store_true", help="skip the rewritten docs (minimal docstrings)")
    parser.add_argument("--out", type=Path, help="where to build (default: a temporary folder)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    from sebench.builder.run import build_instance

    sizes = None
    if not args.no_tasks:
        from sebench.tasks.generate import TaskSizes

        sizes = TaskSizes()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "instance"
        t0 = time.perf_counter()
        build_instance(out, args.seed, task_sizes=sizes, docs=not args.no_docs)
        build_s = time.perf_counter() - t0
        package = __import__("json").loads((out / "manifest.json").read_text())["package"]
        bare = time_import("", None, args.repeats)
        numpy_s = time_import("numpy", None, args.repeats)
        pkg_s = time_import(package, out / "package", args.repeats)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ratio = pkg_s / numpy_s
    what = ("docs" if not args.no_docs else "minimal docs") + (", tasks" if not args.no_tasks else ", no tasks")
    print(f"build ({what}, seed {args.seed}, {cores} cores): {build_s:6.2f} s   target < {BUILD_TARGET_S:.0f} s "
          f"{'ok' if build_s < BUILD_TARGET_S else 'MISSED'}")
    print(f"python start-up (bare):        {bare * 1000:7.1f} ms")
    print(f"import numpy:                  {numpy_s * 1000:7.1f} ms")
    print(f"import {package:<22} {pkg_s * 1000:7.1f} ms")
    print(f"ratio package / numpy:         {ratio:7.2f} x   target < {IMPORT_TARGET_RATIO} x "
          f"{'ok' if ratio < IMPORT_TARGET_RATIO else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time to generate an instance's tasks at the default sizes (720 train / 259 single / 300 multiple).

    python bench/tasks_speed.py [--seed 0] [--workers 2] [--repeats 1] [--data DIR]

Builds an instance without tasks (or uses --data DIR), then times `write_task_files` (planning, the
reference runs with the package and with NumPy, the split checks, writing the files). Prints the time,
the ratio to the target (issue 3: under 120 s on 2 cores), the counts, and the machine's load, since
a busy machine inflates the time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

TARGET_S = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="reference-runner subprocesses (default 2)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--data", type=Path, help="an existing instance (its task files are rewritten)")
    args = parser.parse_args()

    from sebench.instance import Instance
    from sebench.tasks.generate import TaskSizes, write_task_files

    with tempfile.TemporaryDirectory() as tmp:
        root = args.data
        if root is None:
            from sebench.builder.run import build_instance

            t0 = time.perf_counter()
            root = build_instance(Path(tmp) / "inst", args.seed)
            print(f"built instance (no tasks) in {time.perf_counter() - t0:.1f} s")
        inst = Instance(root)
        samples, counts = [], {}
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            counts = write_task_files(inst, args.seed, TaskSizes(), workers=args.workers)
            samples.append(time.perf_counter() - t0)
    seconds = statistics.median(samples)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"tasks: {counts}")
    print(f"generate default sizes: {seconds:.1f} s (median of {len(samples)}), workers={args.workers}, "
          f"cpus={os.cpu_count()}, load average {load:.1f}")
    print(f"ratio to the {TARGET_S:.0f} s target: {seconds / TARGET_S:.2f}x "
          f"({'within' if seconds <= TARGET_S else 'OVER'} target)")


if __name__ == "__main__":
    main()

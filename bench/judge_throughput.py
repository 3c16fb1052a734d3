"""Judge throughput: our sandbox (warm zygote, one fork per program) vs a fresh interpreter per program.

The same programs (reference solutions of generated tasks, with their test cases) are judged both ways,
side by side, with the same number of workers:
  - sandbox:  sebench.judge.Judge.judge_many (static rules + sandbox + comparison);
  - baseline: the original benchmark's design without Docker: each program written to a script with its
              test calls and run as `python script.py` (3 s timeout), outputs parsed from stdout.
Printed: both rates and their ratio (target >= 10x), the median per-program overhead (latency of a
trivial program, one at a time; target < 10 ms), and the judge's RSS while judging 10,000 programs
(target: flat).

    python bench/judge_throughput.py [--data DIR] [--programs 1000] [--workers 2] [--rss-programs 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sebench.instance import Instance
from sebench.judge import Judge


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _instance(path: str | None) -> Path:
    if path:
        return Path(path)
    from sebench.build.run import build_instance
    from sebench.tasks.generate import TaskSizes

    out = Path(tempfile.mkdtemp(prefix="sebench-bench-")) / "instance"
    print(f"building a small instance at {out} ...", flush=True)
    return build_instance(out, 0, task_sizes=TaskSizes(train=60, single=30, multiple=20), docs=False, audit=False)


def _fence(code: str) -> str:
    return "```python\n" + code + "\n```"


def _baseline_script(task, pkg_dir: Path) -> str:
    calls = "\n".join(f"print({task.entry_point}({tc['input']}))\nprint('#####')" for tc in task.test_cases)
    return f"import sys\nsys.path.insert(0, {str(pkg_dir)!r})\n{task.reference_solution}\n{calls}\n"


def run_baseline(items, pkg_dir: Path, workers: int) -> float:
    tmp = Path(tempfile.mkdtemp(prefix="sebench-baseline-"))

    def one(i_task):
        i, task = i_task
        script = tmp / f"p{i}.py"
        script.write_text(_baseline_script(task, pkg_dir))
        try:
            proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=3,
                                  env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
            return proc.returncode == 0 and proc.stdout.count("#####") == len(task.test_cases)
        except subprocess.TimeoutExpired:
            return False

    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        ok = sum(pool.map(one, enumerate(t for t, _, _ in items)))
    elapsed = time.perf_counter() - start
    print(f"baseline: {len(items)} programs in {elapsed:.1f} s, {ok} ran cleanly")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="an instance with tasks (default: build a small one)")
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--rss-programs", type=int, default=10000)
    ap.add_argument("--json", help="also write the numbers here")
    args = ap.parse_args()

    root = _instance(args.data)
    inst = Instance.open(root)
    tasks = inst.all_tasks()
    items = [(tasks[i % len(tasks)], _fence(tasks[i % len(tasks)].reference_solution), i // len(tasks))
             for i in range(args.programs)]
    print(f"{len(items)} programs over {len(tasks)} tasks, {sum(len(t.test_cases) for t, _, _ in items)} test "
          f"calls, {args.workers} workers, cpus={os.cpu_count()}", flush=True)

    with Judge(inst, workers=args.workers) as judge:
        judge.judge_many(items[:50])  # warm up (zygote start, imports)
        print(f"sandbox layers: {', '.join(judge.sandbox.layers)}")
        start = time.perf_counter()
        verdicts = judge.judge_many(items)
        ours = time.perf_counter() - start
        correct = sum(v.verdict == "correct" for v in verdicts)
        print(f"sandbox:  {len(items)} programs in {ours:.2f} s, {correct} correct", flush=True)

        sandbox = judge.sandbox
        trivial = []
        for _ in range(200):
            t0 = time.perf_counter()
            sandbox.run("def f():\n    return 1\n", "f", [""], 3.0)
            trivial.append((time.perf_counter() - t0) * 1000)
        overhead = statistics.median(trivial)

        rss = [(0, _rss_mb())]
        done = 0
        while done < args.rss_programs:
            n = min(1000, args.rss_programs - done)
            chunk = [(tasks[(done + i) % len(tasks)], _fence(tasks[(done + i) % len(tasks)].reference_solution), 0)
                     for i in range(n)]
            judge.judge_many(chunk)
            done += n
            rss.append((done, _rss_mb()))

    base = run_baseline(items, inst.package_dir, args.workers)
    base_trivial = []
    for _ in range(20):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(inst.package_dir)!r}); "
                        f"import {inst.package_name}"], check=True)
        base_trivial.append((time.perf_counter() - t0) * 1000)

    ours_rate, base_rate = len(items) / ours, len(items) / base
    print()
    print(f"{'':28}{'sandbox':>12}{'fresh python':>15}")
    print(f"{'programs/s':28}{ours_rate:12.1f}{base_rate:15.1f}")
    print(f"{'median overhead/program ms':28}{overhead:12.2f}{statistics.median(base_trivial):15.1f}")
    print(f"ratio: {ours_rate / base_rate:.1f}x (target >= 10x); median overhead {overhead:.2f} ms (target < 10 ms)")
    growth = rss[-1][1] - rss[1][1] if len(rss) > 2 else 0.0
    print("judge RSS MB after N programs: " + ", ".join(f"{n}: {m:.0f}" for n, m in rss))
    print(f"RSS growth after the first 1,000: {growth:+.1f} MB over {args.rss_programs} programs (target: flat)")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "programs": len(items), "workers": args.workers, "sandbox_per_s": ours_rate, "baseline_per_s": base_rate,
            "ratio": ours_rate / base_rate, "median_overhead_ms": overhead, "rss_mb": rss,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

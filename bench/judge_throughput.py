"""Judge throughput against the fork limit: the full judge (every isolation layer on) vs a bare fork.

The same programs (reference solutions of generated tasks, each text made distinct by a comment, as
sampled answers are, with their test cases) are run both ways with the same number of workers, in
interleaved rounds (the order alternates), in one run:
  - judge:     sebench.judge.Judge.judge_many: code extraction, static rules, the sandbox with every
               layer it finds (printed; bubblewrap when installed), comparison with the expected outputs;
  - bare fork: bench/bare_fork.py, a process warmed up as the zygote is (same interpreter flags,
               environment, imports, frozen heap) that forks one child per program: the child runs the
               program and its test calls and pipes repr() of the results back. No isolation, no rules,
               no comparison: the fork limit.
Printed: both rates per round, their medians and the ratio (target: the judge >= 2/3 of the bare fork);
the CPU time per program of all processes of each (the judge's process, the zygote and its children; the
bare fork's workers and children), whose ratio is the rate ratio to expect once every core is busy; the
median latency of a trivial program through the sandbox, one at a time (target < 10 ms); the judge's RSS
while judging --rss-programs programs (target: flat). --fresh-python adds the original benchmark's design
without Docker (a fresh `python script.py` per program; the judge's target there: >= 10x).

On a machine busy with other work the rates follow the load, not the code. Run it alone, or as root on
real-time priority, which both contenders inherit: `chrt -r 1 python bench/judge_throughput.py`.

    python bench/judge_throughput.py [--data DIR] [--programs 1000] [--rounds 5] [--workers 2]
                                     [--bwrap auto|on|off] [--rss-programs 10000] [--fresh-python]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sebench.instance import Instance
from sebench.judge import Judge
from sebench.judge.sandbox import ZYGOTE_ENV, bwrap_path, site_dirs

BARE_FORK = Path(__file__).resolve().with_name("bare_fork.py")
TARGET_RATIO = 2 / 3


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _instance(path: str | None) -> Path:
    if path:
        return Path(path)
    from sebench.builder.run import build_instance
    from sebench.tasks.generate import TaskSizes

    out = Path(tempfile.mkdtemp(prefix="sebench-bench-")) / "instance"
    print(f"building a small instance at {out} ...", flush=True)
    return build_instance(out, 0, task_sizes=TaskSizes(train=60, single=30, multiple=20), docs=False, audit=False)


def _tree_cpu_s() -> float:
    """CPU seconds used so far by this process, its live descendants and the children they reaped."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, used = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parent[int(entry)] = int(fields[1])
        used[int(entry)] = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    me, total = os.getpid(), 0.0
    for pid, seconds in used.items():
        p = pid
        while p not in (me, 0, 1) and p in parent:
            p = parent[p]
        total += seconds if p == me else 0.0
    return total


def _fence(code: str) -> str:
    return "```python\n" + code + "\n```"


class BareFork:
    """bench/bare_fork.py in its own process, warm; `run(jobs)` -> (seconds, programs that ended cleanly)."""

    def __init__(self, inst: Instance, workers: int, tmp: Path):
        cfg = {"paths": [str(inst.package_dir), *site_dirs()], "package": inst.package_name, "workers": workers}
        self.tmp = tmp
        self.proc = subprocess.Popen([os.path.realpath(sys.executable), "-I", "-S", "-B", str(BARE_FORK),
                                      json.dumps(cfg)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=dict(ZYGOTE_ENV), cwd=tmp, start_new_session=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("bench/bare_fork.py did not start")

    def run(self, jobs: list) -> tuple[float, int]:
        path = self.tmp / "jobs.json"
        path.write_text(json.dumps(jobs))
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        seconds, _, clean = self.proc.stdout.readline().split()
        return float(seconds), int(clean)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def run_fresh_python(items, pkg_dir: Path, workers: int) -> float:
    """The original's design without Docker: each program and its calls as a script in a fresh interpreter."""
    tmp = Path(tempfile.mkdtemp(prefix="sebench-baseline-"))

    def one(i_task):
        i, task = i_task
        calls = "\n".join(f"print({task.entry_point}({tc['input']}))\nprint('#####')" for tc in task.test_cases)
        script = tmp / f"p{i}.py"
        script.write_text(f"import sys\nsys.path.insert(0, {str(pkg_dir)!r})\n{task.reference_solution}\n{calls}\n")
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
    print(f"fresh python: {len(items)} programs in {elapsed:.1f} s, {ok} ran cleanly")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="an instance with tasks (default: build a small one)")
    ap.add_argument("--programs", type=int, default=1000, help="programs per round")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of both (medians are reported)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--bwrap", choices=("auto", "on", "off"), default="auto",
                    help="bubblewrap: when installed (auto), required (on) or not used (off)")
    ap.add_argument("--rss-programs", type=int, default=10000, help="programs for the RSS check (0: skip it)")
    ap.add_argument("--fresh-python", action="store_true", help="also time a fresh interpreter per program")
    ap.add_argument("--json", help="also write the numbers here")
    args = ap.parse_args()

    root = _instance(args.data)
    inst = Instance.open(root)
    tasks = inst.all_tasks()
    items, jobs = [], []
    for i in range(args.programs):
        task = tasks[i % len(tasks)]
        code = f"{task.reference_solution}\n# program {i}\n"
        items.append((task, _fence(code), i // len(tasks)))
        jobs.append([code, task.entry_point, [str(tc["input"]) for tc in task.test_cases]])
    print(f"{len(items)} programs over {len(tasks)} tasks, {sum(len(j[2]) for j in jobs)} test calls, "
          f"{args.workers} workers, {args.rounds} rounds, cpus={os.cpu_count()}", flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="sebench-bench-"))
    bare = BareFork(inst, args.workers, tmp)
    bwrap = {"auto": None, "on": True, "off": False}[args.bwrap]
    judge_rates, bare_rates, judge_cpu, bare_cpu = [], [], [], []
    with Judge(inst, workers=args.workers, bwrap=bwrap) as judge:
        judge.judge_many(items[:50])  # warm up (zygote start, imports)
        layers = judge.sandbox.layers
        print(f"judge's sandbox layers: {', '.join(layers)}"
              + ("" if "bwrap" in layers else f" (bubblewrap {'not installed' if bwrap_path() is None else 'off'})"))
        bare.run(jobs[:50])
        for r in range(args.rounds):
            for which in (("bare", "judge") if r % 2 == 0 else ("judge", "bare")):
                cpu = _tree_cpu_s()
                if which == "bare":
                    seconds, clean = bare.run(jobs)
                    bare_rates.append(len(jobs) / seconds)
                    bare_cpu.append((_tree_cpu_s() - cpu) / len(jobs) * 1000)
                    note = f"{clean} ended cleanly"
                else:
                    start = time.perf_counter()
                    verdicts = judge.judge_many(items)
                    seconds = time.perf_counter() - start
                    judge_rates.append(len(items) / seconds)
                    judge_cpu.append((_tree_cpu_s() - cpu) / len(items) * 1000)
                    note = f"{sum(v.verdict == 'correct' for v in verdicts)} correct"
                print(f"  round {r + 1} {which:5}: {len(items)} programs in {seconds:.2f} s "
                      f"({len(items) / seconds:.0f}/s), {note}", flush=True)

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
            judge.judge_many([items[(done + i) % len(items)] for i in range(n)])
            done += n
            rss.append((done, _rss_mb()))
    bare.close()
    shutil.rmtree(tmp, ignore_errors=True)

    judge_rate, bare_rate = statistics.median(judge_rates), statistics.median(bare_rates)
    ratio = judge_rate / bare_rate
    round_ratios = [j / b for j, b in zip(judge_rates, bare_rates)]
    print()
    print(f"{'programs/s (median of rounds)':32}{'judge':>10}{'bare fork':>12}")
    print(f"{'':32}{judge_rate:10.1f}{bare_rate:12.1f}")
    print(f"ratio judge / bare fork: {ratio:.2f} (target >= {TARGET_RATIO:.2f}); per round: "
          + ", ".join(f"{x:.2f}" for x in round_ratios))
    cpu_j, cpu_b = statistics.median(judge_cpu), statistics.median(bare_cpu)
    print(f"CPU ms per program, all processes (median of rounds): judge {cpu_j:.2f}, bare fork {cpu_b:.2f}; "
          f"bare / judge {cpu_b / cpu_j:.2f} (the rate ratio to expect when every core is busy)")
    print(f"median latency of a trivial program through the sandbox: {overhead:.2f} ms (target < 10 ms)")
    if args.rss_programs:
        growth = rss[-1][1] - rss[1][1] if len(rss) > 2 else 0.0
        print("judge RSS MB after N programs: " + ", ".join(f"{n}: {m:.0f}" for n, m in rss))
        print(f"RSS growth after the first 1,000: {growth:+.1f} MB over {args.rss_programs} programs (target: flat)")
    numbers = {"programs": len(items), "workers": args.workers, "rounds": args.rounds, "layers": list(layers),
               "judge_per_s": judge_rates, "bare_fork_per_s": bare_rates, "ratio": ratio,
               "judge_cpu_ms": judge_cpu, "bare_fork_cpu_ms": bare_cpu,
               "median_trivial_ms": overhead, "rss_mb": rss}
    if args.fresh_python:
        fresh_rate = len(items) / run_fresh_python(items, inst.package_dir, args.workers)
        print(f"fresh python per program: {fresh_rate:.1f}/s; judge / fresh python: {judge_rate / fresh_rate:.1f}x "
              "(target >= 10x)")
        numbers["fresh_python_per_s"] = fresh_rate
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The fork limit that bench/judge_throughput.py compares the judge with: a bare fork per program.

Run as `python -I -S bench/bare_fork.py CONFIG` (started by the bench, like the judge's zygote: the same
interpreter flags, environment, imports and frozen heap). It reads job files from stdin, one path a line
(a JSON list of [code, entry_point, inputs]), and answers each with one line "SECONDS PROGRAMS CLEAN".

Per job file, `workers` worker processes take programs from a shared queue; for each program a worker
forks a child that runs the code, calls the entry point on each input, writes repr() of the results to a
pipe (its prints go there too) and exits; the worker reads the pipe to its end and reaps the child. No
isolation, no static rules, no comparison: only what any fork-per-program runner must do. Like the
sandbox's children (and the zygote), each child starts its own session: with the kernel's autogroup
scheduling each session gets its own share of a busy machine, so both get the same treatment there.
"""

import gc
import json
import os
import pkgutil
import struct
import sys
import time
from pathlib import Path

_ZYGOTE = Path(__file__).resolve().parent.parent / "src" / "sebench" / "judge" / "zygote.py"


def _preload_names() -> tuple:
    """The zygote's PRELOAD tuple, read from its source (importing it would load ctypes and more)."""
    import ast

    tree = ast.parse(_ZYGOTE.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PRELOAD" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{_ZYGOTE}: no PRELOAD")


def warm_up(cfg: dict):
    sys.path[:0] = cfg["paths"]
    pkg = __import__(cfg["package"])
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        try:
            __import__(info.name)
        except Exception:  # noqa: BLE001 - as the zygote: an optional submodule
            pass
    for name in _preload_names():
        try:
            __import__(name)
        except ImportError:
            pass
    gc.collect()
    gc.freeze()
    return pkg


def run_child(pkg, job: list, out_fd: int) -> None:
    code, entry, inputs = job
    os.setsid()  # as the sandbox's children: a busy machine's scheduler gives each session its own share
    os.dup2(out_fd, 1)  # the program's prints go there too, through the inherited sys.stdout
    os.dup2(out_fd, 2)
    lines = []
    try:
        ns = {"__name__": "__main__"}
        exec(compile(code, "<solution>", "exec"), ns)
        fn = ns[entry]
        env = {pkg.__name__: pkg, "nan": float("nan"), "inf": float("inf"), "__args__": lambda *a, **k: (a, k)}
        for text in inputs:
            try:
                args, kwargs = eval(compile(f"__args__({text})", "<input>", "eval"), env)
                lines.append(repr(fn(*args, **kwargs)))
            except Exception as exc:  # noqa: BLE001
                lines.append(repr(exc))
    except BaseException as exc:  # noqa: BLE001
        lines.append(repr(exc))
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(1, ("\n".join(lines) + "\n").encode("utf-8", "replace"))
    os._exit(0)


def worker(pkg, jobs: list, queue_fd: int) -> int:
    """Runs programs from the queue until it is empty; returns how many did not end cleanly."""
    failed = 0
    while True:
        raw = os.read(queue_fd, 4)
        if len(raw) < 4:
            return failed
        job = jobs[struct.unpack("<I", raw)[0]]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            run_child(pkg, job, w)
        os.close(w)
        got = []
        while True:
            data = os.read(r, 1 << 16)
            if not data:
                break
            got.append(data)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        failed += status != 0 or not got


def run_round(pkg, jobs: list, workers: int) -> tuple[float, int]:
    """Wall seconds to run all `jobs` with `workers` workers, and how many programs did not end cleanly."""
    queue_r, queue_w = os.pipe()
    start = time.perf_counter()
    pids = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:
            os.close(queue_w)
            os._exit(min(worker(pkg, jobs, queue_r), 255))
        pids.append(pid)
    os.close(queue_r)
    payload = b"".join(struct.pack("<I", i) for i in range(len(jobs)))
    view = memoryview(payload)
    while view:
        view = view[os.write(queue_w, view):]
    os.close(queue_w)
    failed = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        failed += os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, failed


def main() -> int:
    cfg = json.loads(sys.argv[1])
    pkg = warm_up(cfg)
    print("ready", flush=True)
    for line in sys.stdin:
        jobs = json.loads(Path(line.strip()).read_text())
        seconds, failed = run_round(pkg, jobs, int(cfg["workers"]))
        print(f"{seconds:.6f} {len(jobs)} {len(jobs) - failed}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

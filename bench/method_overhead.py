"""What running a method in its fenced process adds to a study, measured side by side in one run.

Both sides run the same method on the same instance: in this process (the contract's call without a fence,
torch and transformers already imported, as they are in a study that has evaluated a model), and through
`run_method` (the training view written, a child process started under each isolation layer the machine has,
the result read back). The difference is the fixed cost each trained regime pays; the ratio to `make demo`'s
wall time says whether it shows there. It also times the tamper check the study makes before each
evaluation (sebench.seal) on a run whose finished stages hold a checkpoint-sized file, and the copy the study
makes of a user's method's checkpoint of that size (sebench.methods.outputs; built-in regimes, all that
`make demo` trains, are not copied).

    python bench/method_overhead.py [--rounds 5] [--demo-seconds 360] [--checkpoint-mb 540]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

from sebench.builder import build_instance
from sebench.experiment.state import StageBook
from sebench.methods import Cost, MethodJob, available_layers, resolve, run_method
from sebench.tasks import TaskSizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--demo-seconds", type=float, default=360.0, help="make demo's wall time to compare with")
    parser.add_argument("--checkpoint-mb", type=int, default=540, help="the sealed checkpoint's size (SmolLM2-135M "
                        "in float32: 540 MB)")
    args = parser.parse_args()
    logging.getLogger("sebench").setLevel(logging.WARNING)
    root = Path(tempfile.mkdtemp())
    instance = build_instance(root / "instance", 0, task_sizes=TaskSizes(train=48, single=24, multiple=8), audit=False)
    (root / "heavy.py").write_text(HEAVY)
    ref = resolve(f"{root}/heavy.py:heavy")
    import transformers  # noqa: F401 - the study's process has it loaded already
    inline = []
    for i in range(args.rounds):
        started = time.perf_counter()
        ref.load()(_bare_context(instance, root / f"inline-{i}"))
        inline.append(time.perf_counter() - started)
    print(f"in process: median {statistics.median(inline) * 1000:.1f} ms over {args.rounds} rounds")
    for layer in available_layers():
        os.environ["SEBENCH_ISOLATION"] = layer
        fenced = []
        for i in range(args.rounds):
            job = MethodJob(ref=ref, args={}, data=instance, folder=root / "run" / "train" / f"heavy-{layer}-{i}",
                            start_model="fake:", seed=0, hidden=(root / "run",))
            started = time.perf_counter()
            run_method(job)
            fenced.append(time.perf_counter() - started)
        extra = statistics.median(fenced) - statistics.median(inline)
        print(f"{layer}: fenced median {statistics.median(fenced):.2f} s (min {min(fenced):.2f}, max {max(fenced):.2f}); "
              f"added per trained regime: {extra:.2f} s = {extra / args.demo_seconds:.2%} of a "
              f"{args.demo_seconds:.0f} s demo")
    _seal_check(root / "sealed", args.checkpoint_mb, args.demo_seconds)
    _copy(root / "sealed", args.checkpoint_mb)


def _copy(run: Path, megabytes: int) -> None:
    """The study's copy of a returned checkpoint (the sealed one above), following no link."""
    from sebench.methods import OutputRules
    from sebench.methods.outputs import copy_out

    started = time.perf_counter()
    copy_out(run, run / "train", run / "copied", OutputRules())
    print(f"copying a user's method's {megabytes} MB checkpoint: {time.perf_counter() - started:.2f} s")


def _seal_check(run: Path, megabytes: int, demo_seconds: float) -> None:
    """The study's tamper check (stat each sealed file, hash none that did not change) after a stage that
    wrote a checkpoint; make demo makes about 8 such checks."""
    book = StageBook(run)

    def write() -> None:
        (run / "train").mkdir(parents=True)
        with (run / "train" / "model.safetensors").open("wb") as out:
            for _ in range(megabytes):
                out.write(os.urandom(1 << 20))

    started = time.perf_counter()
    book.run("train:x", {}, [run / "train"], write)
    sealing = time.perf_counter() - started
    checks = []
    for _ in range(20):
        started = time.perf_counter()
        book.check()
        checks.append(time.perf_counter() - started)
    check = statistics.median(checks)
    print(f"tamper check with a {megabytes} MB checkpoint sealed: median {check * 1000:.2f} ms; 8 checks = "
          f"{8 * check / demo_seconds:.4%} of a {demo_seconds:.0f} s demo (writing and sealing it: {sealing:.2f} s, "
          "the hash a stage record held before too)")


HEAVY = """
from pathlib import Path
from sebench.methods import Checkpoint

def heavy(ctx):
    import torch, transformers  # what every training regime imports
    return Checkpoint(Path(ctx.start_model))
"""


def _bare_context(instance: Path, workdir: Path):
    from sebench.methods import Context

    workdir.mkdir(parents=True)
    return Context(docs=[], train_tasks=[], dev_tasks=[], judge=None, sampler=None, start_model="fake:", seed=0,  # type: ignore[arg-type]
                   workdir=workdir, view=instance, log=logging.getLogger("bench"), cost=Cost())


if __name__ == "__main__":
    main()

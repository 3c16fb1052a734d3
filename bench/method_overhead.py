"""What running a method in its fenced process adds to a study, measured side by side in one run.

Both sides run the same method on the same instance: in this process (the contract's call without a fence,
torch and transformers already imported, as they are in a study that has evaluated a model), and through
`run_method` (the training view written, a child process started under the
machine's isolation layer, the result read back). The difference is the fixed cost each trained regime pays;
the ratio to `make demo`'s wall time says whether it shows there.

    python bench/method_overhead.py [--rounds 5] [--demo-seconds 360]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

from sebench.builder import build_instance
from sebench.methods import Cost, MethodJob, isolation_layer, resolve, run_method
from sebench.tasks import TaskSizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--demo-seconds", type=float, default=360.0, help="make demo's wall time to compare with")
    args = parser.parse_args()
    logging.getLogger("sebench").setLevel(logging.WARNING)
    root = Path(tempfile.mkdtemp())
    instance = build_instance(root / "instance", 0, task_sizes=TaskSizes(train=48, single=24, multiple=8), audit=False)
    (root / "heavy.py").write_text(HEAVY)
    ref = resolve(f"{root}/heavy.py:heavy")
    import transformers  # noqa: F401 - the study's process has it loaded already
    inline, fenced = [], []
    for i in range(args.rounds):
        started = time.perf_counter()
        ref.load()(_bare_context(instance, root / f"inline-{i}"))
        inline.append(time.perf_counter() - started)
        job = MethodJob(ref=ref, args={}, data=instance, folder=root / "run" / "train" / f"heavy-{i}",
                        start_model="fake:", seed=0, hidden=(root / "run" / "evals",))
        started = time.perf_counter()
        run_method(job)
        fenced.append(time.perf_counter() - started)
    extra = statistics.median(fenced) - statistics.median(inline)
    print(f"isolation layer: {isolation_layer()}")
    print(f"in process: median {statistics.median(inline) * 1000:.1f} ms; fenced: median "
          f"{statistics.median(fenced):.2f} s (min {min(fenced):.2f}, max {max(fenced):.2f}) over {args.rounds} rounds")
    print(f"added per trained regime: {extra:.2f} s = {extra / args.demo_seconds:.2%} of a {args.demo_seconds:.0f} s demo")


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

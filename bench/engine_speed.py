"""One GRPO step per RL regime through both engines: step time and generation throughput side by side.

    PYTHONPATH=src python bench/engine_speed.py [--model smollm2-135m] [--instance DIR] [--samples 8] [--tokens 256]
    (the same command on a GPU; --vllm colocate where vLLM is installed)

For open-rl, closed-rl and closed-sft-rl's GRPO stage (started from --model, so one step of it is one
closed-rl step), each engine (own: rl.py; trl: TRL's GRPOTrainer with sebench's loss) trains one step of one
prompt x --samples completions of up to --tokens tokens, sampled to the end of the sequence (the original's
rule; the own loop's code-block stop would give the engines different lengths), from the same weights.
Each engine first runs one warm-up step that is not reported (CUDA initialisation, first allocations).
Prints per run the step's wall seconds (model loading included), the generation's seconds and tokens,
tokens per second, and trl / own. Self-play-rl is left out: its step is closed-rl's, on tasks the model writes.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import tempfile
import time
from pathlib import Path

REGIMES = ("open-rl", "closed-rl", "closed-sft-rl")


@contextlib.contextmanager
def generation_meter(engine: str, totals: dict):
    """Adds the seconds and new tokens of the engine's sampling calls to `totals`."""
    if engine == "own":
        from sebench.rollout.backends import hf as owner
        name = "generate_tokens"
    else:
        from trl import GRPOTrainer as owner
        name = "_generate_single_turn"
    original = getattr(owner, name)

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        out = original(*args, **kwargs)
        totals["seconds"] += time.perf_counter() - t0
        totals["tokens"] += sum(len(ids) for ids in (out if engine == "own" else out[0]))
        return out

    setattr(owner, name, timed)
    try:
        yield
    finally:
        setattr(owner, name, original)


def one_step(instance: Path, model: str, regime: str, engine: str, args, out: Path) -> dict:
    """Trains one GRPO step; returns its wall seconds and its generation's seconds and tokens."""
    from sebench.train.config import TrainConfig
    from sebench.train.run import train_model

    totals = {"seconds": 0.0, "tokens": 0}
    cfg = TrainConfig(data=instance, regime=regime, out=out, model=model, engine=engine, vllm=args.vllm,
                      max_steps=1, batch_size=args.samples, num_generations=args.samples,
                      max_completion_length=args.tokens, sample_until="eos", lr=1e-6, functions=args.functions,
                      max_examples=1, sft_checkpoint=Path(model) if regime == "closed-sft-rl" else None,
                      judge_workers=2, overwrite=True)
    t0 = time.perf_counter()
    with generation_meter(engine, totals):
        train_model(cfg)
    return {"wall": time.perf_counter() - t0, **totals}


def open_instance(path: str | None, folder: Path) -> Path:
    if path:
        return Path(path)
    from sebench.builder.run import build_instance
    from sebench.tasks.generate import TaskSizes

    print("building a small instance (about 30 s)")
    return build_instance(folder / "instance", 0, task_sizes=TaskSizes(train=8, single=4, multiple=2), audit=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--instance", help="an instance directory (default: build a small one)")
    parser.add_argument("--samples", type=int, default=8, help="completions of the step's one prompt")
    parser.add_argument("--tokens", type=int, default=256, help="longest completion")
    parser.add_argument("--vllm", default="off", choices=("off", "colocate", "server", "auto"))
    parser.add_argument("--regimes", default=",".join(REGIMES))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from sebench.instance import Instance

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        instance = open_instance(args.instance, folder)
        args.functions = Instance.open(instance).tasks("train")[0].selected_functions
        for engine in ("own", "trl"):
            one_step(instance, args.model, "closed-rl", engine, args, folder / f"warm-{engine}")
        print(f"\nmodel {args.model}; 1 prompt x {args.samples} samples x <= {args.tokens} tokens, to end of "
              f"sequence; generation for trl: {'vLLM ' + args.vllm if args.vllm != 'off' else 'transformers'}")
        print(f"  {'regime':<15}{'engine':<8}{'step s':>9}{'gen s':>9}{'tokens':>8}{'tok/s':>9}{'trl/own tok/s':>15}")
        for regime in args.regimes.split(","):
            rows = {engine: one_step(instance, args.model, regime, engine, args, folder / f"{regime}-{engine}")
                    for engine in ("own", "trl")}
            for engine, r in rows.items():
                speed = r["tokens"] / r["seconds"] if r["seconds"] else float("nan")
                ratio = ""
                if engine == "trl" and rows["own"]["seconds"]:
                    ratio = f"{speed / (rows['own']['tokens'] / rows['own']['seconds']):.2f}"
                print(f"  {regime:<15}{engine:<8}{r['wall']:>9.1f}{r['seconds']:>9.1f}{r['tokens']:>8}{speed:>9.1f}"
                      f"{ratio:>15}")


if __name__ == "__main__":
    main()

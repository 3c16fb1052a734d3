"""Does Closed-SFT teach the embedded model the package? Closed-book accuracy before and after.

    python bench/closed_sft_gain.py --out runs/closed-sft-gain [--functions 4] [--train 32] [--test 12]
                                    [--epochs 3] [--lr 2e-4] [--seed 0] [--model smollm2-135m]

Builds an instance, keeps a few functions and tasks about them (sebench.experiment.select: the train and
test tasks of a function come from different task variants), evaluates the model closed-book on the
held-out single-function test tasks (greedy), trains Closed-SFT on the train tasks' reference
solutions (sebench train), and evaluates the checkpoint the same way. Every step goes through the
project's own stages (rollout, judge, train); a rerun with the same --out reuses what is done.
Prints accuracy before/after, per function, and the time of each step.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter, defaultdict
from pathlib import Path


def evaluate(data: Path, model: str, out: Path, max_tokens: int) -> dict:
    """Closed-book greedy answers to the single_test tasks, judged; returns accuracy overall and per function."""
    from sebench.instance import Instance
    from sebench.judge.run import judge_records
    from sebench.records import Rollout, read_records, write_records
    from sebench.rollout.run import RolloutConfig, write_rollouts

    rollouts = write_rollouts(RolloutConfig(data=data, out=out / "rollouts.jsonl", split="single_test", mode="closed",
                                 model=model, max_tokens=max_tokens, device="cpu"))
    verdicts = judge_records(data, read_records(rollouts, Rollout), workers=2)
    write_records(out / "verdicts.jsonl", verdicts)
    functions = {t.task_id: t.selected_functions for t in Instance.open(data).tasks("single_test")}
    per_function = defaultdict(list)
    for v in verdicts:
        for name in functions[v.task_id]:
            per_function[name].append(v.verdict == "correct")
    return {
        "accuracy": sum(v.verdict == "correct" for v in verdicts) / len(verdicts),
        "tasks": len(verdicts),
        "verdicts": dict(Counter(v.verdict for v in verdicts).most_common()),
        "per_function": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(per_function.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/closed-sft-gain"))
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--functions", type=int, default=4, help="how many functions to study")
    parser.add_argument("--train", type=int, default=32, help="training tasks (reference solutions)")
    parser.add_argument("--test", type=int, default=12, help="held-out single-function test tasks")
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=160, help="longest answer at evaluation")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    from sebench.builder.run import build_instance
    from sebench.experiment.select import write_subset
    from sebench.instance import Instance
    from sebench.tasks.generate import TaskSizes
    from sebench.train.config import TrainConfig
    from sebench.train.run import train_model

    timings, out = {}, args.out
    started = time.time()
    if not (out / "instance" / "manifest.json").is_file():
        build_instance(out / "instance", args.seed, task_sizes=None)
    data = out / "data"
    if not (data / "manifest.json").is_file():
        subset = write_subset(Instance.open(out / "instance"), data, args.functions, args.seed,
                              TaskSizes(train=args.train, single=args.test, multiple=1))
        print("studied functions:", subset)
    timings["build"] = time.time() - started

    started = time.time()
    before = evaluate(data, args.model, out / "before", args.max_tokens)
    timings["evaluate before"] = time.time() - started

    started = time.time()
    ckpt = out / "closed-sft"
    if not (ckpt / "train_config.json").is_file():
        train_model(TrainConfig(data=data, regime="closed-sft", out=ckpt, model=args.model, train_source="reference",
                        epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed, overwrite=True))
    timings["train"] = time.time() - started
    started = time.time()
    after = evaluate(data, f"hf:{ckpt}", out / "after", args.max_tokens)
    timings["evaluate after"] = time.time() - started

    info = json.loads((ckpt / "train_config.json").read_text())
    result = {"before": before, "after": after, "train_examples": info["examples"], "epochs": args.epochs,
              "lr": args.lr, "seconds": {k: round(v) for k, v in timings.items()}}
    (out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"closed-book accuracy on {before['tasks']} held-out tasks: untrained {before['accuracy']:.1%} -> "
          f"Closed-SFT {after['accuracy']:.1%} ({info['examples']} examples, {args.epochs:g} epochs, lr {args.lr:g})")


if __name__ == "__main__":
    main()

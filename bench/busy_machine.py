"""Speed on a busy machine: SFT steps and a generation of the embedded model, idle and beside a busy core.

    python bench/busy_machine.py                          # every policy (4.5-7 min on 2 cores)
    python bench/busy_machine.py --policies adaptive      # only sebench's policy (about 2 min)

The competitor is one Python busy loop (one core, steady). Each thread policy runs in a process of its
own (OpenMP reads its wait policy once, when torch loads), the model loaded once and warmed up by two
untimed idle stages (a first idle stage ran 10-20% slower than later ones: the earlier 1-step warm-up
flattered every ratio), through these scenarios, each a "stage" that chooses its threads when it starts:

  idle      nothing else runs
  loaded    the competitor runs from before the stage starts to its end
  arrives   the competitor starts once the stage has chosen its threads (after its first SFT step; 0.5 s
            into the generation)
  leaves    the competitor runs when the stage starts and stops right after the stage chose its threads
  idle-1    nothing else runs, one thread (adaptive only): what one free core gives at best, so its ratio
            over idle is the floor a policy that leaves the competitor its core can reach

Policies:

  snapshot  the count chosen once when the stage starts, from the runnable tasks in /proc/loadavg, then
            fixed (what sebench did before sebench.threads)
  passive   all usable cores, OpenMP's passive wait policy (OMP_WAIT_POLICY=PASSIVE); idle and loaded
            only, since it never changes its count
  adaptive  sebench.threads, the default: every core at the start, then re-decided as the model's layers
            run, from the time its threads waited for a core

A stage is --steps SFT steps of one example of about --tokens tokens through sebench's SFT trainer (all
timed, the first included: it holds the stage's first decision), then one generate call of --prompts
prompts x --max-tokens tokens (greedy) through the hf backend. Prints seconds per SFT step and for the
generation, each over the same policy's idle run and over the adaptive policy's idle run; target: loaded
within 1.5x of idle.

On a machine that other work shares, give the bench's session the machine (as root, Linux with
autogroups): `setsid sh -c 'echo -20 > /proc/self/autogroup; exec python bench/busy_machine.py'`; the
other sessions then get about 1% of the CPU, and the competitor, in the bench's session, its full share
(the snapshot policy still counts their runnable tasks, as it did on such a machine).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

POLICIES = ("snapshot", "passive", "adaptive")
SCENARIOS = {"snapshot": ("idle", "loaded", "arrives", "leaves"), "passive": ("idle", "loaded"),
             "adaptive": ("idle", "loaded", "arrives", "leaves", "idle-1")}
TARGET = 1.5


class Competitor:
    """One core kept busy by a Python loop in a subprocess, started and stopped at will."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        if self.proc is None:
            self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.3)  # running before anything is measured

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def snapshot_threads(samples: int = 5, interval: float = 0.05) -> int:
    """The snapshot policy, as sebench chose before sebench.threads: the usable cores minus the median
    count of other runnable tasks in /proc/loadavg over a quarter of a second, at least 1, then fixed."""
    from sebench.threads import usable_cores

    running = []
    for i in range(samples):
        running.append(int(Path("/proc/loadavg").read_text().split()[3].split("/")[0]) - 1)
        if i + 1 < samples:
            time.sleep(interval)
    busy = sorted(running)[len(running) // 2]
    return max(1, min(usable_cores(), usable_cores() - busy))


def examples(n: int, tokens: int) -> list[dict]:
    """Prompt/answer pairs shaped like the benchmark's closed-book SFT examples."""
    words = ["array", "values", "compute", "return", "the", "mean", "of", "each", "row", "along", "axis", "and",
             "keep", "dims"]
    rows = []
    for i in range(n):
        body = " ".join(words[(i + j) % len(words)] for j in range(int(tokens * 0.5)))
        code = "\n".join(f"    x{j} = pkg.fn{j % 7}(x{j - 1 if j else ''}, axis={j % 3})" for j in range(tokens // 25))
        rows.append({"prompt": [{"role": "user", "content": body}],
                     "completion": [{"role": "assistant", "content": f"```python\ndef solve(x):\n{code}\n    return x\n```"}]})
    return rows


class Stage:
    """One scenario of one policy: chooses the threads as a stage does when it starts."""

    def __init__(self, policy: str, scenario: str, competitor: Competitor):
        self.policy, self.scenario, self.competitor = policy, scenario, competitor

    def start(self) -> int | None:
        """Sets the threads as the policy does at a stage's start; returns the fixed count (None: adaptive)."""
        from sebench import threads

        if self.scenario in ("loaded", "leaves"):
            self.competitor.start()
        threads.reset_thread_usage()
        fixed = {"snapshot": snapshot_threads, "passive": threads.usable_cores}.get(self.policy, lambda: None)()
        if self.scenario == "idle-1":
            fixed = 1
        threads.set_threads(fixed)
        if self.scenario == "leaves":
            self.competitor.stop()
        return fixed

    def arrive(self) -> None:
        if self.scenario == "arrives":
            self.competitor.start()

    def end(self) -> dict | None:
        from sebench.threads import thread_usage

        self.competitor.stop()
        return thread_usage()


def sft_seconds(model, tokenizer, rows: list[dict], steps: int, stage: Stage) -> tuple[float, dict | None]:
    """Seconds per SFT step of sebench's own trainer, from the first step's start to the last one's end."""
    from transformers import TrainerCallback
    from transformers.trainer_callback import ProgressCallback

    from sebench.train.config import TrainConfig
    from sebench.train.sft import sft_trainer

    marks: list[float] = []

    class Timer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            if not marks:
                marks.append(time.perf_counter())

        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step == 1:
                stage.arrive()
            marks.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as tmp:
        fixed = stage.start()
        cfg = TrainConfig(data=Path(tmp), regime="closed-sft", out=Path(tmp), max_steps=steps, batch_size=1,
                          threads=fixed)
        trainer = sft_trainer(model, tokenizer, rows[:steps], cfg, Path(tmp), [Timer()])
        trainer.remove_callback(ProgressCallback)
        trainer.train()
    return (marks[-1] - marks[0]) / steps, stage.end()


def generation_seconds(model, tokenizer, prompts: int, max_tokens: int, stage: Stage) -> tuple[float, dict | None]:
    from sebench.rollout.backends import GenerationRequest
    from sebench.rollout.backends.hf import HFBackend

    requests = [GenerationRequest([{"role": "user", "content": f"Write a Python function that returns the mean of "
                                    f"the readings above threshold {i}, one ```python block."}], max_tokens=max_tokens)
                for i in range(prompts)]
    fixed = stage.start()
    backend = HFBackend("bench", model=model, tokenizer=tokenizer, threads=fixed, stop_at_code_block=False)
    timer = threading.Timer(0.5, stage.arrive)
    timer.start()
    started = time.perf_counter()
    backend.generate(requests)
    seconds = time.perf_counter() - started
    timer.join()
    return seconds, stage.end()


def child(policy: str, args: argparse.Namespace) -> dict:
    """Every scenario of one policy, in this process."""
    import datasets

    from sebench.models import load_causal_lm

    datasets.disable_progress_bars()
    model, tokenizer = load_causal_lm(args.model, device="cpu")
    rows = examples(args.steps, args.tokens)
    competitor = Competitor()
    for _ in range(2):  # warm-up, untimed: after one step the next idle steps still ran 10-20% faster
        sft_seconds(model, tokenizer, rows, args.steps, Stage(policy, "idle", competitor))
    generation_seconds(model, tokenizer, args.prompts, args.max_tokens, Stage(policy, "idle", competitor))
    results = {"runnable_before": int(Path("/proc/loadavg").read_text().split()[3].split("/")[0]) - 1}
    try:
        for scenario in SCENARIOS[policy]:
            sft, sft_threads = sft_seconds(model, tokenizer, rows, args.steps, Stage(policy, scenario, competitor))
            gen, gen_threads = generation_seconds(model, tokenizer, args.prompts, args.max_tokens,
                                                  Stage(policy, scenario, competitor))
            results[scenario] = {"sft": sft, "generation": gen, "sft_threads": sft_threads, "gen_threads": gen_threads}
            print(f"  {policy} {scenario}: SFT {sft:.2f} s/step, generation {gen:.2f} s", file=sys.stderr, flush=True)
    finally:
        competitor.stop()
    return results


def run_child(policy: str, argv: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SEBENCH_THREADS", "OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    if policy == "passive":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    out = subprocess.run([sys.executable, __file__, "--child", policy, *argv], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _used(usage: dict | None) -> str:
    return " ".join(f"{n}:{s:.0f}s" for n, s in (usage or {}).get("seconds", {}).items())


def report(results: dict, args: argparse.Namespace) -> None:
    from sebench.threads import usable_cores

    print(f"busy-machine bench: {args.model} on {usable_cores()} cores; SFT: {args.steps} timed steps of one "
          f"~{args.tokens}-token example; generation: {args.prompts} prompts x {args.max_tokens} tokens, greedy")
    print("competitor: one Python busy loop (one core); 'x idle' is over the same policy's idle run, "
          "'x adaptive idle' over the adaptive policy's")
    base = results.get("adaptive", {}).get("idle")
    print(f"{'policy':9s} {'scenario':8s} {'SFT s/step':>10s} {'x idle':>7s} {'x adaptive idle':>15s}   "
          f"{'gen s':>6s} {'x idle':>7s} {'x adaptive idle':>15s}   threads used (SFT | generation)")
    for policy, runs in results.items():
        idle = runs["idle"]
        for scenario in SCENARIOS[policy]:
            r = runs[scenario]
            cells = []
            for key in ("sft", "generation"):
                over_base = f"{r[key] / base[key]:.2f}x" if base else "-"
                cells.append(f"{r[key]:{10 if key == 'sft' else 6}.2f} {r[key] / idle[key]:6.2f}x {over_base:>15s}")
            print(f"{policy:9s} {scenario:8s} {cells[0]}   {cells[1]}   {_used(r['sft_threads'])} | "
                  f"{_used(r['gen_threads'])}")
        print(f"{'':9s} other runnable tasks before the idle run: {runs['runnable_before']} (/proc/loadavg)")
    if base:
        worst = max(results["adaptive"][s][k] / base[k] for s in SCENARIOS["adaptive"] if s != "idle-1"
                    for k in ("sft", "generation"))
        print(f"RATIO adaptive, worst scenario over idle: {worst:.2f}x (target <= {TARGET}x)")
        floor = results["adaptive"]["idle-1"]
        print(f"FLOOR one free core (idle on one thread) over idle: SFT {floor['sft'] / base['sft']:.2f}x, "
              f"generation {floor['generation'] / base['generation']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--steps", type=int, default=4, help="timed SFT steps per scenario")
    parser.add_argument("--tokens", type=int, default=300, help="approximate tokens per SFT example")
    parser.add_argument("--prompts", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
    parser.add_argument("--child", choices=POLICIES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.child:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stops the competitor on the way out
        print(json.dumps(child(args.child, args)))
        return
    argv = ["--model", args.model, "--steps", str(args.steps), "--tokens", str(args.tokens),
            "--prompts", str(args.prompts), "--max-tokens", str(args.max_tokens)]
    started = time.time()
    results = {policy: run_child(policy, argv) for policy in args.policies}
    report(results, args)
    print(f"({time.time() - started:.0f} s in all)")


if __name__ == "__main__":
    main()

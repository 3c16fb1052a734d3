"""Rollout speed: batched vs one-at-a-time local generation, and the OpenAI client's request rate.

    python bench/rollout_speed.py                       # both parts, the embedded model on CPU
    python bench/rollout_speed.py --skip-local          # only the HTTP client (seconds)
    python bench/rollout_speed.py --device cuda --max-tokens 128

Part 1 generates greedily for the same prompts with the hf backend, one prompt per generate call and
then all of them in batches, and compares generated tokens per second (target: 3x or more).
Part 2 starts the fake OpenAI-compatible server in its own process and measures the client's
completed requests per second at concurrency 1 and 64 (target: 200+ requests/s at 64).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from sebench.rollout.backends import GenerationRequest, get_backend

FAKE_SERVER = Path(__file__).resolve().parent.parent / "tests" / "fake_openai_server.py"  # a test-only server

PROBLEMS = [
    "return the mean of a list of numbers",
    "return the largest element of a matrix given as nested lists",
    "return the cumulative sum of a list",
    "sort a list of numbers and return the three smallest",
    "return the dot product of two vectors",
    "return the transpose of a matrix",
    "count how many numbers in a list are above their average",
    "return the standard deviation of a list of readings",
]
STYLES = ["", " Keep it short.", " Use a loop.", " Add a docstring."]


def prompts(count: int) -> list[list[dict]]:
    texts = [f"Write a Python function `solve(values)` that {p}.{s} Answer with one ```python block." for s in STYLES for p in PROBLEMS]
    return [[{"role": "user", "content": texts[i % len(texts)]}] for i in range(count)]


def bench_local(args: argparse.Namespace) -> float:
    backend = get_backend(args.model, device=args.device, batch_size=args.prompts)
    requests = [GenerationRequest(m, max_tokens=args.max_tokens) for m in prompts(args.prompts)]
    backend.generate([GenerationRequest(requests[0].messages, max_tokens=2)])  # warm-up

    # The batched run sits between the two halves of the one-at-a-time run, so that a change in the
    # machine's load during the measurement weighs on both alike.
    half = len(requests) // 2
    single, single_s, single_cpu = _timed(lambda: [backend.generate([r])[0][0] for r in requests[:half]])
    batched, batched_s, batched_cpu = _timed(lambda: [c[0] for c in backend.generate(requests)])
    rest, rest_s, rest_cpu = _timed(lambda: [backend.generate([r])[0][0] for r in requests[half:]])
    single, single_s, single_cpu = single + rest, single_s + rest_s, single_cpu + rest_cpu

    tokens_single = sum(c.completion_tokens for c in single)
    tokens_batched = sum(c.completion_tokens for c in batched)
    same = sum(a.text == b.text for a, b in zip(single, batched))
    print(f"local {args.model} on {backend.model.device}, {len(requests)} prompts, max_tokens={args.max_tokens}")
    for label, tokens, seconds, cpu in (("one at a time", tokens_single, single_s, single_cpu), ("batched", tokens_batched, batched_s, batched_cpu)):
        print(f"  {label:13s} : {tokens:6d} tokens in {seconds:7.1f} s = {tokens / seconds:8.1f} tokens/s "
              f"({tokens / cpu:.1f} tokens per CPU-second)")
    print(f"  identical greedy outputs: {same}/{len(requests)}")
    ratio = (tokens_batched / batched_s) / (tokens_single / single_s)
    cpu_ratio = (tokens_batched / batched_cpu) / (tokens_single / single_cpu)
    print(f"  RATIO batched / one at a time = {ratio:.2f}x tokens/s ({cpu_ratio:.2f}x per CPU-second; target 3x)")
    return ratio


def _timed(work):
    cpu, started = _cpu_seconds(), time.perf_counter()
    result = work()
    return result, time.perf_counter() - started, _cpu_seconds() - cpu


def bench_http(args: argparse.Namespace) -> float:
    server = subprocess.Popen(
        [sys.executable, str(FAKE_SERVER), "--delay", str(args.server_delay)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = server.stdout.readline().split()[-1]
        rates = {}
        for concurrency, count in ((1, max(50, args.requests // 20)), (args.concurrency, args.requests)):
            backend = get_backend(f"openai:fake-model@{url}", concurrency=concurrency)
            requests = [GenerationRequest([{"role": "user", "content": f"question {i}"}]) for i in range(count)]
            backend.generate(requests[: concurrency * 2])  # warm-up: open the connections
            cpu_before, started = _cpu_seconds(), time.perf_counter()
            results = backend.generate(requests)
            seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_before
            assert all(r[0].finish_reason == "stop" for r in results)
            rates[concurrency] = count / seconds
            print(
                f"  concurrency {concurrency:3d}: {count:5d} requests in {seconds:6.2f} s = {rates[concurrency]:8.1f} "
                f"requests/s (client CPU {1000 * cpu / count:.2f} ms a request)"
            )
    finally:
        server.terminate()
        server.wait()
    ratio = rates[args.concurrency] / rates[1]
    print(f"  RATIO concurrency {args.concurrency} / 1 = {ratio:.2f}x; {rates[args.concurrency]:.0f} requests/s "
          f"= {rates[args.concurrency] / 200:.2f}x the 200 requests/s target")
    return ratio


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--device", default=None)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--server-delay", type=float, default=0.01, help="seconds the fake server waits per answer")
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument("--skip-http", action="store_true")
    args = parser.parse_args()
    if not args.skip_http:
        print(f"openai client against the fake server (server delay {args.server_delay * 1000:.0f} ms)")
        bench_http(args)
    if not args.skip_local:
        bench_local(args)


if __name__ == "__main__":
    main()

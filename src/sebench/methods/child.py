"""The method's own process: `sebench.methods.child JOB.json` (started by sebench.methods.process.child_argv).

It enters its fence first (sebench.methods.isolation), then either trains (action "train": the method is
called with a Context built from the training view, and what it returns is written to result.json) or
serves an agent (action "agent": the agent is rebuilt from its state folder and answers batches of prompts,
one JSON line in, one out, on the standard streams). A failure is one JSON line {"error": ...} on the report
pipe, where the fence also reports each refused access.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import sys
from pathlib import Path

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.methods import isolation
from sebench.methods.contract import Agent, Checkpoint, Context, Cost, Endpoint, MethodError, Prompt
from sebench.methods.loader import MethodRef
from sebench.methods.services import BackendSampler, ViewJudge
from sebench.methods.view import ANSWERS_DIR, dev_ids, docs_only_of
from sebench.process_memory import peak_rss_mb
from sebench.threads import thread_usage

RESULT_FILE, COST_FILE, USAGE_FILE = "result.json", "cost.json", "usage.json"


def main(argv: list[str]) -> int:
    job = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    report = job["report_fd"]
    try:
        isolation.enter(isolation.Fence.from_json(job["fence"]), job["layer"], report)
        if job["action"] == "agent":
            serve_agent(job)
        else:
            train(job)
        return 0
    except SebenchError as exc:
        message = str(exc)
    except Exception as exc:  # any failure of the method's code is reported as one line
        logging.getLogger(__name__).debug("the method failed", exc_info=True)
        message = f"{type(exc).__name__}: {exc}"
    line = json.dumps({"error": message.splitlines()[0] if message else "failed"}) + "\n"
    os.write(report, line.encode())
    return 1


def context(job: dict) -> Context:
    view, cost = Path(job["view"]), Cost()
    instance = Instance.open(view)
    tasks, dev = instance.tasks("train"), dev_ids(view)
    answers = view / ANSWERS_DIR / "rollouts.jsonl"
    return Context(
        docs=instance.api_docs(), train_tasks=tasks, dev_tasks=[t for t in tasks if t.task_id in dev],
        judge=ViewJudge(view, cost, job["reward_rule"], job.get("judge_workers"), job.get("sandbox_urls")),
        sampler=sampler(job, cost), start_model=job["start_model"], seed=job["seed"],
        workdir=Path(job["workdir"]), view=view, log=logging.getLogger(f"sebench.method.{job['label']}"),
        cost=cost, answers=answers if answers.is_file() else None, docs_only=docs_only_of(view))


def sampler(job: dict, cost: Cost) -> BackendSampler:
    return BackendSampler(Path(job["view"]), job["start_model"], cost, job.get("backend_options"))


def train(job: dict) -> None:
    ctx = context(job)
    method = MethodRef(job["label"], job["spec"], job["origin"], job["target"], None).load()
    try:
        result = method(**job["args"]).run(ctx) if inspect.isclass(method) else method(ctx, **job["args"])
    finally:
        ctx.judge.close()  # type: ignore[attr-defined]
        ctx.sampler.close()  # type: ignore[attr-defined]
    out = Path(job["workdir"])
    (out / COST_FILE).write_text(json.dumps(vars(ctx.cost)), encoding="utf-8")
    (out / USAGE_FILE).write_text(json.dumps({"threads": thread_usage(), "peak_rss_mb": peak_rss_mb()}),
                                  encoding="utf-8")
    (out / RESULT_FILE).write_text(json.dumps(describe(result, Path(job["state"]))), encoding="utf-8")


def describe(result: object, state: Path) -> dict:
    """What the study needs to evaluate `result`; an agent is saved to `state` first."""
    if isinstance(result, Checkpoint):
        return {"kind": "checkpoint", "path": str(result.path), "docs_at_test_time": result.docs_at_test_time}
    if isinstance(result, Endpoint):
        return {"kind": "endpoint", "url": result.url, "model": result.model}
    if isinstance(result, Agent):
        state.mkdir(parents=True, exist_ok=True)
        result.save(state)
        return {"kind": "agent", "target": class_target(type(result)), "eligible": type(result).eligible}
    raise MethodError(f"a method returns a Checkpoint, an Endpoint or an Agent, not {type(result).__name__}")


def class_target(cls: type) -> str:
    """"module:Class", or "path/to/file.py:Class" for a class defined in a method's file."""
    module = sys.modules[cls.__module__]
    if cls.__module__.startswith("sebench_method_"):
        return f"{module.__file__}:{cls.__qualname__}"
    return f"{cls.__module__}:{cls.__qualname__}"


def serve_agent(job: dict) -> None:
    """Answers batches of prompts until the standard input closes; prints of the agent go to stderr."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    cls = MethodRef(job["label"], job["spec"], "agent", job["agent_target"], None).load_class()
    agent = cls.load(Path(job["state"]), sampler(job, Cost()))
    for line in sys.stdin:
        prompts = [Prompt(**p) for p in json.loads(line)["prompts"]]
        channel.write(json.dumps({"answers": [str(a) for a in agent.answer_all(prompts)]}) + "\n")
        channel.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))

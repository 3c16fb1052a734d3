"""An agent as a rollout backend: the agent's fenced process answers the study's closed-book prompts.

The process is started once (`sebench.methods.child`, action "agent"), rebuilds the agent from its state
folder, and answers one batch of prompts per JSON line. It has no judge; it may sample with a model.
"""

from __future__ import annotations

import json
import subprocess
import sys

from sebench.errors import SebenchError
from sebench.methods import isolation
from sebench.methods.run import MethodJob, child_env
from sebench.rollout import Backend, Completion, GenerationRequest


class AgentBackend(Backend):
    """Answers through the agent that `job`'s method returned (its record: `result`)."""

    def __init__(self, job: MethodJob, result: dict, batch_size: int = 16):
        self.name = f"agent:{job.ref.label}"
        self.batch_size = batch_size
        job_file = job.workdir / "agent-job.json"
        job_file.write_text(json.dumps(job.child_job("agent", agent_target=result["target"])), encoding="utf-8")
        argv = isolation.command(job.fence(), [sys.executable, "-m", "sebench.methods.child", str(job_file)])
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=child_env())
        self.job = job

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        prompts = [{"query": r.query or "", "messages": r.messages, "max_tokens": r.max_tokens,
                    "temperature": r.temperature} for r in requests for _ in range(r.n)]
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"prompts": prompts}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            error = self.job.workdir / "error.txt"
            why = error.read_text(encoding="utf-8").strip() if error.is_file() else "its process ended"
            raise SebenchError(f"agent {self.job.ref.label} stopped answering: {why}")
        answers = iter(json.loads(line)["answers"])
        return [[_completion(next(answers)) for _ in range(r.n)] for r in requests]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _completion(text: str) -> Completion:
    return Completion(text, "stop", 0, len(text.split()))

"""An agent as a rollout backend: the agent's fenced process answers the study's closed-book prompts.

The process is started once (`sebench.methods.child`, action "agent"), rebuilds the agent from its state
folder, and answers one batch of prompts per JSON line. It has no judge; it may sample with a model.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from sebench.errors import SebenchError
from sebench.methods.run import MethodJob, start_child
from sebench.rollout import Backend, Completion, GenerationRequest


class AgentBackend(Backend):
    """Answers through the agent that `job`'s method returned (its record: `result`). The agent's process
    reads its state and view, writes only a private temporary folder removed at `close`, and has the network
    only where its method asked for it."""

    def __init__(self, job: MethodJob, result: dict, batch_size: int = 16):
        self.name = f"agent:{job.ref.label}"
        self.batch_size = batch_size
        self.tmp = Path(tempfile.mkdtemp(prefix="sebench-agent-"))
        self.process, self.reports, _ = start_child(job, "agent", self.tmp, self.tmp / "agent-job.json",
                                                 agent_target=result["target"])
        self.job = job

    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        prompts = [{"query": r.query or "", "messages": r.messages, "max_tokens": r.max_tokens,
                    "temperature": r.temperature} for r in requests for _ in range(r.n)]
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"prompts": prompts}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            errors = [r["error"] for r in self.reports.collected() if "error" in r]
            raise SebenchError(f"agent {self.job.ref.label} stopped answering: "
                               f"{errors[0] if errors else 'its process ended'}")
        answers = iter(json.loads(line)["answers"])
        return [[_completion(next(answers)) for _ in range(r.n)] for r in requests]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _completion(text: str) -> Completion:
    return Completion(text, "stop", 0, len(text.split()))

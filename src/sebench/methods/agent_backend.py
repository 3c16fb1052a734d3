"""An agent as a rollout backend: the agent's fenced process answers the study's closed-book prompts.

The process is started once (`sebench.methods.child`, action "agent", under its keeper), rebuilds the agent
from its state folder, and answers one batch of prompts per JSON line. It has no judge; it may sample with a
model. A batch that takes longer than the method's limit per prompt (`methods.LABEL.prompt_timeout`) times
its prompts ends the agent's whole process tree, with one line.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import parse_json, remove_tree
from sebench.methods.run import MethodJob, start_child
from sebench.rollout import Backend, Completion, GenerationRequest

ANSWER_LIMIT = 256 << 20  # bytes of the agent's answer to one batch


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
        limit = self.job.prompt_timeout * max(1, len(prompts))
        deadline = time.monotonic() + limit
        sent = self._send((json.dumps({"prompts": prompts}) + "\n").encode(), deadline)
        line = self._answer(deadline) if sent else None
        if line is None:
            self.close(at_once=True)
            raise SebenchError(f"agent {self.job.ref.label} took longer than {self.job.prompt_timeout:g} s a prompt "
                               "(methods.LABEL.prompt_timeout); every process it started was ended")
        if not line:
            self.process.wait()
            errors = [r["error"] for r in self.reports.collected() if "error" in r]
            raise SebenchError(f"agent {self.job.ref.label} stopped answering: "
                               f"{errors[0] if errors else 'its process ended'}")
        answers = iter(self._answers(line, len(prompts)))
        return [[_completion(next(answers)) for _ in range(r.n)] for r in requests]

    def _answers(self, line: bytes, count: int) -> list[str]:
        """The `count` answers of the agent's line {"answers": [str, ...]}; else one line, the agent ended."""
        try:
            answers = parse_json(line, "its answer")["answers"]
        except (SebenchError, TypeError, KeyError, IndexError):
            answers = None
        if not isinstance(answers, list) or len(answers) != count or not all(isinstance(a, str) for a in answers):
            self.close(at_once=True)
            raise SebenchError(f"agent {self.job.ref.label} answered {count} prompts with something other than "
                               f"{count} strings ({line[:80]!r}); every process it started was ended")
        return answers

    def _send(self, data: bytes, deadline: float) -> bool:
        """Writes `data` to the agent's input; False when the deadline passes first (an agent that does not
        read leaves the pipe full); an agent that ended reads as sent (its answer says it ended)."""
        assert self.process.stdin is not None
        fd = self.process.stdin.fileno()
        os.set_blocking(fd, False)
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                return False
            try:
                view = view[os.write(fd, view[:1 << 16]):]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                return True
        return True

    def _answer(self, deadline: float) -> bytes | None:
        """The agent's next line, or None when the deadline passes first."""
        stream, line = self.process.stdout, bytearray()
        assert stream is not None
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stream], [], [], left)[0]:
                return None
            chunk = stream.read1(1 << 16)  # type: ignore[attr-defined]
            if not chunk:
                return bytes(line)
            line += chunk
            if len(line) > ANSWER_LIMIT:
                self.close(at_once=True)
                raise SebenchError(f"agent {self.job.ref.label} answered with a line over {ANSWER_LIMIT >> 20} MiB; "
                                   "every process it started was ended")
        return bytes(line)

    def close(self, at_once: bool = False) -> None:
        """Ends the agent's process (its keeper ends every process it started) and removes its folder."""
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        # the agent's own end first (its input closed), then the keeper asked to end the tree, then the keeper killed
        for sig in ([] if at_once else [None]) + [signal.SIGTERM, signal.SIGKILL]:
            if sig is not None:
                self.process.send_signal(sig)
            try:
                self.process.wait(timeout=30)
                break
            except subprocess.TimeoutExpired:
                continue
        self.reports.collected()
        remove_tree(self.tmp, ignore_errors=True)


def _completion(text: str) -> Completion:
    return Completion(text, "stop", 0, len(text.split()))

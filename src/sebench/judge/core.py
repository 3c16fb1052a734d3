"""The Judge: one response to one task -> one Verdict. The same object serves evaluation and RL rewards.

Pipeline per item: extract the code (extract.py) -> static rules (static.py) -> run the test inputs in
the sandbox (sandbox.py), locally or on `sebench sandbox serve` servers -> compare with Task.expected
outside the sandbox (sebench.values). Every item gets a verdict: an unexpected failure is `judge_error`,
counted, never dropped.
"""

from __future__ import annotations

import logging
import os
import reprlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sebench.instance import Instance
from sebench.judge.extract import extract_code
from sebench.judge.static import Rules, check_code
from sebench.records import Task, Verdict
from sebench.values import PRINTED_KEY, is_printed, matches

log = logging.getLogger(__name__)

MAX_GOT_CHARS = 300


class Judge:
    """Judges responses to tasks of one instance.

    workers: concurrent programs (default: the number of CPUs). sandbox_urls: judge on these
    `sebench sandbox serve` servers instead of locally (work is spread across them). Extra keyword
    options: bwrap (None auto / True / False) and memory_mb for the local sandbox.
    """

    def __init__(self, instance: Instance | Path | str, workers: int | None = None,
                 sandbox_urls: list[str] | None = None, timeout_s: float = 3.0, *, bwrap: bool | None = None,
                 memory_mb: int = 1024):
        self.instance = instance if isinstance(instance, Instance) else Instance.open(instance)
        self.mapping = self.instance.mapping()
        self.rules = Rules.from_mapping(self.mapping)
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.sandbox_urls = list(sandbox_urls or [])
        self.timeout_s = float(timeout_s)
        self._bwrap = bwrap
        self._memory_mb = memory_mb
        self._sandbox = None
        self._remote = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    # ---------------------------------------------------------------------------------- lifecycle
    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._pool:
                self._pool.shutdown(wait=True)
                self._pool = None
            if self._sandbox:
                self._sandbox.close()
                self._sandbox = None
            if self._remote:
                self._remote.close()
                self._remote = None

    @property
    def sandbox(self):
        with self._lock:
            if self._sandbox is None:
                from sebench.judge.sandbox import Sandbox

                sandbox = Sandbox(self.instance.package_dir, self.rules.package, self.workers,
                                  bwrap=self._bwrap, memory_mb=self._memory_mb)
                sandbox.start()
                self._sandbox = sandbox
            return self._sandbox

    def _remote_pool(self):
        with self._lock:
            if self._remote is None:
                from sebench.judge.remote import RemotePool

                self._remote = RemotePool(self.sandbox_urls, self.package_identity(), self.timeout_s)
            return self._remote

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="sebench-judge")
            return self._pool

    # ---------------------------------------------------------------------------------- judging
    def judge(self, task: Task, response: str, sample_idx: int = 0) -> Verdict:
        return self.judge_many([(task, response, sample_idx)])[0]

    def judge_many(self, items: list[tuple[Task, str, int]]) -> list[Verdict]:
        """Verdicts for (task, response, sample_idx) items, in input order."""
        items = list(items)
        if not items:
            return []
        if self.sandbox_urls:
            return self._remote_pool().judge_many(items)
        if len(items) == 1:
            return [self.judge_local(*items[0])]
        return list(self._executor().map(lambda item: self.judge_local(*item), items))

    def package_identity(self) -> dict:
        manifest = self.instance.manifest()
        return {"package": self.rules.package, "seed": manifest.get("seed")}

    def judge_local(self, task: Task, response: str, sample_idx: int = 0, *, timeout_s: float | None = None,
                    cancel: threading.Event | None = None) -> Verdict:
        """One verdict in this process's sandbox; `timeout_s` overrides the judge's, `cancel` stops the run."""
        try:
            return self._judge(task, response, sample_idx, timeout_s or self.timeout_s, cancel)
        except Exception as exc:  # noqa: BLE001 - counted as judge_error, never dropped
            log.exception("judge error on %s/%s", task.task_id, sample_idx)
            return _verdict(task, sample_idx, "judge_error", 0, message=f"{type(exc).__name__}: {exc}")

    def _judge(self, task: Task, response: str, sample_idx: int, timeout_s: float,
               cancel: threading.Event | None) -> Verdict:
        code = extract_code(response)
        if code is None:
            return _verdict(task, sample_idx, "no_code", 0, message="no fenced python code block")
        static = check_code(code, task.entry_point, self.rules, tuple(task.selected_functions or ()))
        if static.verdict:
            where = f" (line {static.line})" if static.line else ""
            return _verdict(task, sample_idx, static.verdict, 0, message=static.message + where)
        inputs = [str(tc.get("input", "")) if isinstance(tc, dict) else str(tc) for tc in task.test_cases]
        printed = any(is_printed(expected_for(task, i)) for i in range(len(inputs)))
        run = self.sandbox.run(code, task.entry_point, inputs, timeout_s, printed=printed, cancel=cancel)
        return verdict_from_run(task, sample_idx, run)


def expected_for(task: Task, i: int) -> Any:
    """Task.expected[i], or the printed output of the test case for tasks without structured outputs."""
    if i < len(task.expected):
        return task.expected[i]
    case = task.test_cases[i] if i < len(task.test_cases) else {}
    return {PRINTED_KEY: str(case.get("output", "")) if isinstance(case, dict) else ""}


def verdict_from_run(task: Task, sample_idx: int, run) -> Verdict:
    """Compares a RunResult with the task's expected outputs."""
    if run.status == "sandbox_error":
        return _verdict(task, sample_idx, "judge_error", 0, message=run.error or "sandbox error",
                        layers=run.layers)
    tests, passed, errored = [], 0, False
    for i, case in enumerate(run.cases):
        ok = case.ok and matches(case.value, expected_for(task, i), case.printed)
        passed += ok
        errored = errored or not case.ok
        entry = {"passed": ok}
        if case.ok:
            entry["got"] = (case.printed if case.printed is not None else _short_repr(case.value))
        else:
            entry["error"] = (case.error or "")[:MAX_GOT_CHARS]
        tests.append(entry)
    if run.status in ("timeout", "memory_limit", "runtime_error"):
        verdict = run.status
    elif errored:
        verdict = "runtime_error"
    elif passed == len(run.cases):
        verdict = "correct"
    else:
        verdict = "wrong_answer"
    message = run.error or next((t["error"] for t in tests if "error" in t), "")
    return _verdict(task, sample_idx, verdict, passed, message=message, tests=tests, layers=run.layers,
                    seconds=round(run.seconds, 4))


_ROW_TYPES = frozenset({float, int, bool})


class _ShortRepr(reprlib.Repr):
    """reprlib's Repr with the limits of a verdict's "got"; a list of floats, bools and short ints is written
    in one go, as repr_list would write it (each item's repr, which repr_instance and repr_int keep whole)."""

    def __init__(self):
        super().__init__()
        self.maxlist = self.maxtuple = self.maxdict = 12
        self.maxlevel = 4
        self.maxstring = self.maxother = MAX_GOT_CHARS

    def repr_list(self, x, level):
        if level > 0 and all(type(v) in _ROW_TYPES for v in x):
            pieces = list(map(repr, x[:self.maxlist]))
            if max(map(len, pieces), default=0) <= min(self.maxlong, self.maxother):
                return "[" + ", ".join(pieces) + (", ..." if len(x) > self.maxlist else "") + "]"
        return super().repr_list(x, level)


_SHORT_REPR = _ShortRepr()


def _short_repr(value: Any) -> str:
    return _SHORT_REPR.repr(value)[:MAX_GOT_CHARS]


def _verdict(task: Task, sample_idx: int, verdict: str, passed: int, **detail: Any) -> Verdict:
    info = {}
    for key, value in detail.items():
        if key == "layers":
            value = ",".join(value)
        info[key] = value
    return Verdict(task.task_id, int(sample_idx), verdict, int(passed), len(task.test_cases), info,
                   split=task.split, kind=task.kind)

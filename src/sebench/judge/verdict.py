"""From a sandbox run to a Verdict: each test case's result compared with the task's expected output."""

from __future__ import annotations

import reprlib
from typing import Any

from sebench.records import Task, Verdict
from sebench.values import PRINTED_KEY, matches

MAX_GOT_CHARS = 300


def expected_for(task: Task, i: int) -> Any:
    """Task.expected[i], or the printed output of the test case for tasks without structured outputs."""
    if i < len(task.expected):
        return task.expected[i]
    case = task.test_cases[i] if i < len(task.test_cases) else {}
    return {PRINTED_KEY: str(case.get("output", "")) if isinstance(case, dict) else ""}


def verdict_from_run(task: Task, sample_idx: int, run) -> Verdict:
    """Compares a RunResult with the task's expected outputs."""
    if run.status == "sandbox_error":
        return make_verdict(task, sample_idx, "judge_error", 0, message=run.error or "sandbox error",
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
    return make_verdict(task, sample_idx, verdict, passed, message=message, tests=tests, layers=run.layers,
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


def make_verdict(task: Task, sample_idx: int, verdict: str, passed: int, **detail: Any) -> Verdict:
    """The Verdict of one answer to `task`, with `detail` (the sandbox's layers joined as one text)."""
    info = {}
    for key, value in detail.items():
        if key == "layers":
            value = ",".join(value)
        info[key] = value
    return Verdict(task.task_id, int(sample_idx), verdict, int(passed), len(task.test_cases), info,
                   split=task.split, kind=task.kind)

"""Answers in the original benchmark's format made judgeable: each becomes a Rollout and the Task it is
judged against.

An original-format record has `query` and `response`, and often its own `test_cases`,
`right_exe_result`, `function_name` and `selected_functions`. Its task is the instance's task with the
same query (whitespace-normalised); with `own_tests`, the original judge's rule, that task takes the
record's own test cases and expected output when the record carries them. A record whose query no task
has is judged on its own test cases: its entry point is its `function_name`, else the answer's first
function whose parameters take the test inputs' keywords. Records of the same task get `sample_idx` =
their rank among them, in input order.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from dataclasses import dataclass

from sebench.answers import extract_code
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Rollout, Task
from sebench.tasks.official import convert_row


@dataclass(frozen=True)
class OriginalAnswer:
    """One original-format record: the rollout to judge, its task (None when it has none) and why not."""

    rollout: Rollout
    task: Task | None
    problem: str = ""


def is_original_record(obj: object) -> bool:
    """An original-format answer: a JSON object with `query` and `response` (and no `task_id`)."""
    return isinstance(obj, dict) and "task_id" not in obj and "query" in obj and "response" in obj


def original_answers(records: list[dict], instance: Instance, *, own_tests: bool) -> list[OriginalAnswer]:
    """Each record's rollout and task, in input order (see the module docstring)."""
    by_query: dict[str, Task] = {}
    for task in instance.all_tasks():
        by_query.setdefault(normalize_query(task.query), task)
    ranks: dict[str, int] = {}
    answers = []
    for i, record in enumerate(records):
        response = str(record.get("response") or "")
        code = extract_code(response)
        task = by_query.get(normalize_query(record.get("query", "")))
        problem = ""
        if task is None:
            task, problem = _task_from_own_tests(record, instance, i, code)
        elif own_tests:
            task = _with_own_tests(task, record)
        task_id = task.task_id if task else f"unmatched-{i}"
        rank = ranks.get(task_id, 0)
        ranks[task_id] = rank + 1
        rollout = Rollout(task_id=task_id, sample_idx=rank, mode=_text(record, "mode"), model=_text(record, "model"),
                          prompt=record.get("query", ""), response=response, code=code,
                          finish_reason="stop")
        answers.append(OriginalAnswer(rollout, task, problem))
    return answers


def normalize_query(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _text(record: dict, key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _task_from_own_tests(record: dict, instance: Instance, i: int, code: str | None) -> tuple[Task | None, str]:
    """A task made from an unmatched record's own test cases (None and why if it can't)."""
    if not record.get("test_cases"):
        return None, "no task with this query in the instance, and the record has no test_cases"
    row = {"example": "", **record}
    if not row.get("function_name"):
        # no function fits (or no code at all): the program is then judged as it stands, against "solve"
        row["function_name"] = _signature_for(code or "", row["test_cases"]) or "def solve():"
    known = bool(row.get("selected_functions"))
    if not known:
        row["selected_functions"] = ["array"]  # unknown: a valid placeholder, emptied below
    try:
        task = convert_row(row, instance.mapping(), f"rollout {i + 1}", "unknown")
    except SebenchError as exc:
        return None, f"no task with this query in the instance, and its own test cases are unusable: {exc}"
    query_hash = hashlib.sha256(normalize_query(task.query).encode()).hexdigest()[:12]
    return dataclasses.replace(task, task_id=f"query-{query_hash}",
                               selected_functions=task.selected_functions if known else []), ""


def _with_own_tests(task: Task, record: dict) -> Task:
    """The task with the record's own test cases and expected output, when it carries them: the original
    judge checks a record against these, not against the dataset's."""
    cases = record.get("test_cases")
    if isinstance(cases, str):
        try:
            cases = ast.literal_eval(cases)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return task
    expected = record.get("right_exe_result")
    if not (isinstance(cases, list) and cases and all(isinstance(c, dict) and "input" in c for c in cases)
            and isinstance(expected, str)):
        return task
    return dataclasses.replace(task, test_cases=[{"input": str(c["input"]), "output": str(c.get("output", ""))}
                                                 for c in cases], right_exe_result=expected)


def _signature_for(code: str, cases: list) -> str:
    """`def name(args):` of the first top-level function whose parameters take the test inputs' keywords."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ""
    wanted = {k for c in cases if isinstance(c, dict) for k in re.findall(r"(?:^|,)\s*(\w+)\s*=(?!=)",
                                                                        str(c.get("input", "")))}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            params = {a.arg for a in node.args.args + node.args.kwonlyargs}
            if wanted <= params:
                return f"def {node.name}({', '.join(a.arg for a in node.args.args)}):"
    return ""

"""Judgeable prompts made from the docs' examples, for context distillation (docs/docs-only.md).

A doc example statement becomes a test case when it is a bare call of the documented function whose
arguments are literals (or names bound to literals, or to the array constructor of a literal, by earlier
statements) and whose printed output reads back as plain data (`fabu([1., 2.])` -> [1.0, 2.0]). The calls
of one function that pass the same parameters form one Task: entry point `solve`, the doc's summary as
its statement, the call as its reference solution. The judge checks the teacher's answers to it like
any task's. Statements that cannot become a test case are skipped and counted by reason.
"""

from __future__ import annotations

import ast
import contextlib
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sebench.records import ApiDoc, Task
from sebench.train.doc_fields import DocFields, Param, Statement, example_statements, params, parse_doc
from sebench.train.docs_data import tasks_without
from sebench.values import literal, printed, to_task_data

ENTRY_POINT = "solve"
_NUMBERS = {"nan": math.nan, "inf": math.inf}


class _Skip(Exception):
    """A doc example that cannot become a test case; the message is the reason counted."""


@dataclass(frozen=True)
class DocCall:
    """One example call: (parameter, literal source, passed by position) per argument, and the result."""

    args: tuple[tuple[str, str, bool], ...]
    expected: Any  # task-data form (sebench.values)


@dataclass
class DistillPrompts:
    """Context distillation's prompts: training tasks plus doc-made tasks, and what was skipped why."""

    tasks: list[Task] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> statements (or functions) left out


def doc_calls(doc: ApiDoc, constructor: str = "") -> tuple[list[DocCall], Counter]:
    """The doc's example calls that can be judged, and the count of the others by reason.
    `constructor`: the package's array constructor, dotted as the instance's mapping names it ("pkg.fabu"):
    a name bound to it applied to a literal counts as that literal (the judge passes lists for arrays)."""
    fields = parse_doc(doc)
    skipped: Counter = Counter()
    signature = params(doc.signature)
    env: dict[str, Any] = {}
    calls: list[DocCall] = []
    for statement in example_statements(fields):
        _bind(statement.source, env, constructor)
        if f"{doc.name}(" not in statement.source:
            continue
        try:
            calls.append(_call(statement, fields, signature, env))
        except _Skip as reason:
            skipped[str(reason)] += 1
    if not calls and not skipped:
        skipped["no example calls the function"] += 1
    return calls, skipped


def _bind(source: str, env: dict[str, Any], constructor: str) -> None:
    """Records `name = <literal>` (or the constructor of a literal) in `env`; forgets names bound otherwise."""
    try:
        node = ast.parse(source).body
    except SyntaxError:
        return
    if len(node) != 1 or not isinstance(node[0], ast.Assign):
        return
    value = node[0].value
    for target in node[0].targets:
        if not isinstance(target, ast.Name):
            continue
        env.pop(target.id, None)
        if isinstance(value, ast.Call) and constructor and ast.unparse(value.func) == constructor \
                and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            env[target.id] = ast.literal_eval(value)


def _call(statement: Statement, fields: DocFields, signature: list[Param] | None, env: dict[str, Any]) -> DocCall:
    if signature is None:
        raise _Skip("the signature takes *args or cannot be read")
    try:
        node = ast.parse(statement.source, mode="eval").body
    except SyntaxError:
        raise _Skip("not a bare call of the function") from None
    if not isinstance(node, ast.Call) or ast.unparse(node.func) != fields.name:
        raise _Skip("not a bare call of the function")
    positional = [p.name for p in signature if p.positional]
    named = {p.name for p in signature}
    if len(node.args) > len(positional) or any(isinstance(a, ast.Starred) for a in node.args):
        raise _Skip("arguments do not fit the signature")
    if any(k.arg is None or k.arg not in named for k in node.keywords):
        raise _Skip("arguments do not fit the signature")
    args = [(positional[i], _argument(a, env), True) for i, a in enumerate(node.args)]
    args += [(k.arg, _argument(k.value, env), False) for k in node.keywords if k.arg]
    if not statement.output.strip():
        raise _Skip("the call prints nothing")
    return DocCall(tuple(args), _expected(statement.output))


def _argument(node: ast.expr, env: dict[str, Any]) -> str:
    """The argument as a Python literal's source."""
    if isinstance(node, ast.Name) and node.id in env:
        return literal(env[node.id])
    try:
        return literal(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Skip("an argument is not a literal") from None


def _expected(output: str) -> Any:
    """The printed output as task data; `_Skip` when it does not read back as plain data."""
    try:
        return to_task_data(_plain(ast.parse(output.strip(), mode="eval").body))
    except (SyntaxError, ValueError, TypeError, RecursionError):
        raise _Skip("the printed output is not plain data") from None


def _plain(node: ast.expr) -> Any:
    """Plain data from a printed value: literals, `nan`/`inf`, and `ctor([...])`-style reprs of arrays
    and scalars (their one argument; a `dtype=` keyword is ignored)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_plain(item) for item in node.elts]
    if isinstance(node, ast.Name) and node.id in _NUMBERS:
        return _NUMBERS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Name):
        return -_plain(node.operand)
    if isinstance(node, ast.Call) and len(node.args) == 1 and all(k.arg == "dtype" for k in node.keywords):
        inner = _plain(node.args[0])
        if isinstance(node.func, ast.Name) or isinstance(inner, (int, float, complex)):
            return inner
    value = ast.literal_eval(node)
    if value is Ellipsis or isinstance(value, (set, dict, bytes)):
        raise ValueError("not plain data")
    return value


def doc_tasks(doc: ApiDoc, constructor: str = "") -> tuple[list[Task], Counter]:
    """One Task per set of parameters that the doc's judgeable example calls pass, and the skip counts."""
    calls, skipped = doc_calls(doc, constructor)
    groups: dict[tuple, list[DocCall]] = {}
    for call in calls:
        groups.setdefault(tuple((name, by_position) for name, _, by_position in call.args), []).append(call)
    fields = parse_doc(doc)
    tasks = [_task(fields, i, group) for i, group in enumerate(groups.values())]
    return tasks, skipped


def _task(fields: DocFields, index: int, calls: list[DocCall]) -> Task:
    names = [name for name, _, _ in calls[0].args]
    unique = list({_inputs(c): c for c in calls}.values())
    cases = [{"input": _inputs(c), "output": printed(c.expected)} for c in unique]
    passed = ", ".join(name if by_position else f"{name}={name}" for name, _, by_position in calls[0].args)
    return Task(
        task_id=f"doc:{fields.name}:{index}",
        split="train",
        kind="single",
        query=_query(fields, names),
        function_name=f"def {ENTRY_POINT}({', '.join(names)}):",
        entry_point=ENTRY_POINT,
        example=f">>> {ENTRY_POINT}({cases[0]['input']})\n{cases[0]['output']}",
        test_cases=cases,
        right_exe_result="#".join(case["output"] for case in cases),
        selected_functions=[fields.name],
        reference_solution=f"import {fields.package}\n\n\ndef {ENTRY_POINT}({', '.join(names)}):\n"
                           f"    return {fields.name}({passed})\n",
        expected=[c.expected for c in unique],
    )


def _inputs(call: DocCall) -> str:
    return ", ".join(f"{name}={source}" for name, source, _ in call.args)


def _query(fields: DocFields, names: list[str]) -> str:
    """The doc's summary and what it says of each argument (its first description line)."""
    lines = fields.section("Parameters").splitlines()
    notes = []
    for name in names:
        at = next((i for i, ln in enumerate(lines) if ln.split(":")[0].strip() == name), None)
        described = lines[at + 1].strip() if at is not None and at + 1 < len(lines) else ""
        notes.append(f"- `{name}`: {described}" if described else f"- `{name}`")
    return (f"{fields.summary}\n\nWrite `{ENTRY_POINT}` so that it does this to its arguments with the package "
            f"and returns the result.\nArguments:\n" + "\n".join(notes))


def distill_prompts(train_tasks: list[Task], docs: list[ApiDoc], docs_only: list[str],
                    constructor: str = "") -> DistillPrompts:
    """The training tasks that mention no docs-only function, then the doc-made tasks of every studied
    function (`docs`); a docs-only function's prompts come from its doc alone, since it has no tasks."""
    prompts = DistillPrompts(tasks_without(train_tasks, docs_only))
    hidden = set(docs_only)
    for doc in docs:
        tasks, skipped = doc_tasks(doc, constructor)
        prompts.skipped.update(skipped)
        if doc.name not in hidden:
            kept = tasks_without(tasks, docs_only)
            prompts.skipped["mentions a docs-only function"] += len(tasks) - len(kept)
            tasks = kept
        prompts.tasks += tasks
    return prompts

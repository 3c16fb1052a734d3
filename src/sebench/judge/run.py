"""`sebench judge`: rollouts file -> verdicts file (+ summary), locally or on sandbox servers.

Rollouts are our Rollout records (task_id, sample_idx, mode, model, response, ...) or the original
benchmark's format (query, response, test_cases, right_exe_result), matched to the instance's tasks by
query (whitespace-normalised), or made from their own test cases when no task has that query; the
original records get sample_idx = their rank among the records of
the same task. Every rollout gets exactly one verdict, in input order.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import logging
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from sebench.cliflags import check_ranges
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.judge.extract import extract_code
from sebench.judge.summary import summarize
from sebench.outputs import OutputLock, check_file_target, check_own_output, refuse_same_file, write_text_atomic
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS
from sebench.protocols import get as get_protocol
from sebench.records import Rollout, Task, Verdict, from_dict, iter_json_lines, write_records

log = logging.getLogger(__name__)

CHUNK = 256

__all__ = ["JudgeConfig", "judge_records", "summarize", "run", "read_rollouts"]


def _opt(default: Any, help: str, **extra: Any):
    return field(default=default, metadata={"help": help, **extra})


@dataclass
class JudgeConfig:
    """The options of `sebench judge`; each field is one flag (underscores become dashes)."""

    data: Path = _opt(None, "the instance directory (written by `sebench build`)", required=True)
    rollouts: Path = _opt(None, "rollouts (JSONL): ours, or the original's query/response/test_cases format",
                          required=True)
    out: Path = _opt(None, "the verdicts file to write (JSONL)", required=True)
    summary: Path | None = _opt(None, "also write the summary as JSON here")
    workers: int | None = _opt(None, "programs judged at once (default: the number of CPUs)", minimum=1)
    timeout: float = _opt(3.0, "wall-clock seconds per program (all its test cases)", above=0.0)
    sandbox_url: list | None = _opt(None, "judge on this `sebench sandbox serve` server (repeat for several)",
                                    multiple=True, metavar="URL")
    no_bwrap: bool = _opt(False, "do not use bubblewrap even if installed (fallback layers only)")
    memory_mb: int = _opt(1024, "address-space limit per program, in MiB", minimum=16)
    protocol: str = _opt(DEFAULT_PROTOCOL, "sebench: sebench's rules (test cases run one by one, strict package "
                         "checks); original: the original benchmark's judge, exactly (docs/protocols.md)",
                         choices=tuple(PROTOCOLS))
    progress: bool = _opt(True, "show a progress bar", cli=False)


def config_fields():
    return [f for f in fields(JudgeConfig) if f.metadata.get("cli", True)]


def _norm_query(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def read_rollouts(path: Path) -> list[Rollout | dict]:
    """Our Rollout records, or the original's records (kept as dicts with a "query")."""
    rows: list[Rollout | dict] = []
    for lineno, obj in iter_json_lines(path):
        where = f"{path}:{lineno}"
        if isinstance(obj, dict) and "task_id" in obj:
            rows.append(from_dict(Rollout, obj, where))
        elif isinstance(obj, dict) and "query" in obj and "response" in obj:
            rows.append(obj)
        else:
            raise SebenchError(f"{where}: neither a rollout record (task_id, sample_idx, response, ...) nor the "
                               "original format (query, response, test_cases, right_exe_result)")
    return rows


def judge_records(instance: Instance | Path, rollouts: list, workers: int | None = None, *,
                  sandbox_urls: list[str] | None = None, timeout_s: float = 3.0, bwrap: bool | None = None,
                  memory_mb: int = 1024, progress: bool = False, protocol: str = DEFAULT_PROTOCOL) -> list[Verdict]:
    """One verdict per rollout (Rollout records or original-format dicts), in input order, judged under
    `protocol`'s rules (sebench.protocols)."""
    from sebench.judge.core import Judge, _verdict
    from sebench.judge.original import OriginalJudge

    instance = instance if isinstance(instance, Instance) else Instance.open(instance)
    tasks = instance.all_tasks()
    by_id = {t.task_id: t for t in tasks}
    by_query = {}
    for t in tasks:
        by_query.setdefault(_norm_query(t.query), t)
    items, slots, verdicts = [], [], [None] * len(rollouts)
    seen: dict[str, int] = {}
    original = get_protocol(protocol).judge == "original"
    for i, r in enumerate(rollouts):
        if isinstance(r, Rollout):
            task, idx, extra = by_id.get(r.task_id), r.sample_idx, {"mode": r.mode, "model": r.model}
            missing = f"no task '{r.task_id}' in {instance.root}"
            response = r.response if r.response else (f"```python\n{r.code}\n```" if r.code else "")
        else:
            response = str(r.get("response") or "")
            task = by_query.get(_norm_query(r.get("query", "")))
            if task is None:
                task, missing = _task_from_original(r, instance, i, response)
            elif original:
                task = _with_own_tests(task, r)
            idx = seen.get(task.task_id, 0) if task else 0
            extra = {k: r[k] for k in ("mode", "model") if isinstance(r.get(k), str)}
        if task is None:
            stub = Task(str(getattr(r, "task_id", "") or f"unmatched-{i}"), "unknown", "unknown", "", "", "", "",
                        [], "", [])
            verdicts[i] = _with(_verdict(stub, idx, "judge_error", 0, message=missing), {**extra, "protocol": protocol})
            continue
        if not isinstance(r, Rollout):
            seen[task.task_id] = idx + 1
        items.append((task, response, idx))
        slots.append((i, extra))
    if get_protocol(protocol).judge == "original":
        if sandbox_urls:
            raise SebenchError("--protocol original judges with a local sandbox; leave out --sandbox-url")
        judge = OriginalJudge(instance, workers, timeout_s=timeout_s, bwrap=bwrap, memory_mb=memory_mb)
    else:
        judge = Judge(instance, workers=workers, sandbox_urls=sandbox_urls, timeout_s=timeout_s, bwrap=bwrap,
                      memory_mb=memory_mb)
    slots = [(i, {**extra, "protocol": protocol}) for i, extra in slots]
    with judge, _bar(progress, len(rollouts)) as bar:
        bar.update(len(rollouts) - len(items))
        for start in range(0, len(items), CHUNK):
            chunk = judge.judge_many(items[start:start + CHUNK])
            for (i, extra), v in zip(slots[start:start + CHUNK], chunk):
                verdicts[i] = _with(v, extra)
            bar.update(len(chunk))
    return verdicts


def _task_from_original(record: dict, instance: Instance, i: int, response: str) -> tuple[Task | None, str]:
    """A task made from an unmatched original-format record's own test cases (None and why if it can't).

    The entry point is the record's `function_name`, else the function of the answer that the test
    inputs' keywords fit.
    """
    from sebench.tasks.official import convert_row

    if not record.get("test_cases"):
        return None, "no task with this query in the instance, and the record has no test_cases"
    row = {"example": "", **record}
    if not row.get("function_name"):
        # no function fits (or no code at all): the program is then judged as it stands, against "solve"
        row["function_name"] = _signature_for(extract_code(response) or "", row["test_cases"]) or "def solve():"
    known = bool(row.get("selected_functions"))
    if not known:
        row["selected_functions"] = ["array"]  # unknown: a valid placeholder, emptied below
    try:
        task = convert_row(row, instance.mapping(), f"rollout {i + 1}", "unknown")
    except SebenchError as exc:
        return None, f"no task with this query in the instance, and its own test cases are unusable: {exc}"
    selected = task.selected_functions if known else []
    return Task(**{**task.__dict__, "task_id": f"query-{_query_hash(task.query)}",
                   "selected_functions": selected}), ""


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


def _query_hash(query: str) -> str:
    return hashlib.sha256(_norm_query(query).encode()).hexdigest()[:12]


def _with(v: Verdict, extra: dict) -> Verdict:
    """The verdict with the rollout's mode and model (its typed join keys)."""
    return dataclasses.replace(v, **extra)


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


def _bar(enabled: bool, total: int):
    if not enabled or total < 50:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc="judge", unit="sample")


def run(cfg: JudgeConfig) -> Path:
    """Judges cfg.rollouts, writes cfg.out (and cfg.summary); returns cfg.out."""
    return run_with_summary(cfg)[0]


def run_with_summary(cfg: JudgeConfig) -> tuple[Path, dict]:
    check_ranges(cfg)
    instance = Instance.open(cfg.data)
    out, rollouts_path = Path(cfg.out), Path(cfg.rollouts)
    summary_path = Path(cfg.summary) if cfg.summary else None
    inputs = [("--rollouts", rollouts_path)] + [("--data", p) for p in instance.files()]
    check_file_target(out)
    refuse_same_file(out, inputs)
    check_own_output(out, _is_verdict, "verdicts")
    if summary_path:
        check_file_target(summary_path, "--summary")
        refuse_same_file(summary_path, inputs + [("--out", out)], "--summary")
    if not cfg.sandbox_url:
        instance.require_package()
    with OutputLock(out):
        rollouts = read_rollouts(rollouts_path)
        if not rollouts:
            raise SebenchError(f"{cfg.rollouts}: no rollouts to judge")
        verdicts = judge_records(instance, rollouts, cfg.workers, sandbox_urls=cfg.sandbox_url or None,
                                 timeout_s=cfg.timeout, bwrap=False if cfg.no_bwrap else None,
                                 memory_mb=cfg.memory_mb, progress=cfg.progress, protocol=cfg.protocol)
        write_records(out, verdicts)
        summary = summarize(verdicts)
        if summary_path:
            write_text_atomic(summary_path, json.dumps(summary, indent=2) + "\n")
    log.info("%s: %d verdicts, accuracy %.1f%%", cfg.out, len(verdicts), 100 * summary["overall"]["accuracy"])
    return out, summary


def _is_verdict(obj: object) -> bool:
    return isinstance(obj, dict) and {"task_id", "sample_idx", "verdict"} <= obj.keys()

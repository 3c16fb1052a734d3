"""`sebench judge`: rollouts file -> verdicts file (+ summary), locally or on sandbox servers.

Rollouts are our Rollout records (task_id, sample_idx, mode, model, response, ...) or the original
benchmark's format (query, response, test_cases, right_exe_result), which the tasks stage makes into a
rollout and its task before judging (`sebench.tasks.original_format`). Every rollout gets exactly one
verdict, in input order.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from sebench.cliflags import check_ranges, option
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.judge.summary import summarize
from sebench.judge.verdict import make_verdict
from sebench.output_files import OutputLock, check_file_target, check_own_output, refuse_same_file, write_text_atomic
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS
from sebench.protocols import get as get_protocol
from sebench.records import (
    NUMPY_MODE,
    Rollout,
    Task,
    UniqueRecords,
    Verdict,
    from_dict,
    iter_json_lines,
    write_records,
)
from sebench.tasks import is_original_record, original_answers

log = logging.getLogger(__name__)

CHUNK = 256


@dataclass
class JudgeConfig:
    """The options of `sebench judge`; each field is one flag (underscores become dashes)."""

    data: Path = option(None, "the instance directory (written by `sebench build`)", required=True)
    rollouts: Path = option(None, "rollouts (JSONL): ours, or the original's query/response/test_cases format",
                          required=True)
    out: Path = option(None, "the verdicts file to write (JSONL)", required=True)
    summary: Path | None = option(None, "also write the summary as JSON here")
    workers: int | None = option(None, "programs judged at once (default: the number of CPUs)", minimum=1, speed=True)
    timeout: float = option(3.0, "wall-clock seconds per program (all its test cases)", above=0.0)
    sandbox_url: list | None = option(None, "judge on this `sebench sandbox serve` server (repeat for several)",
                                    multiple=True, metavar="URL", speed=True)
    no_bwrap: bool = option(False, "do not use bubblewrap even if installed (fallback layers only)", speed=True)
    memory_mb: int = option(1024, "address-space limit per program, in MiB", minimum=16)
    protocol: str = option(DEFAULT_PROTOCOL, "sebench: sebench's rules (test cases run one by one, strict package "
                         "checks); original: the original benchmark's judge, exactly (docs/protocols.md)",
                         choices=tuple(PROTOCOLS))
    progress: bool = option(True, "show a progress bar", cli=False, speed=True)



def read_rollouts(path: Path, instance: Instance, protocol: str = DEFAULT_PROTOCOL) -> tuple[list[Rollout], list[Task | str]]:
    """The file's rollouts and the task each is judged against, or why it has none: our Rollout records against
    the instance's task of their task_id, the original's records against the task the tasks stage gives them
    (`sebench.tasks.original_answers`, under `protocol`'s rule for own test cases)."""
    rows: list[Rollout | dict] = []
    seen = UniqueRecords(path, ("task_id", "mode", "model", "sample_idx"))  # one verdict a sample
    for lineno, obj in iter_json_lines(path, named=True):  # the file the user gave --rollouts
        where = f"{path}:{lineno}"
        if isinstance(obj, dict) and "task_id" in obj:
            rows.append(from_dict(Rollout, obj, where))
            seen.add(rows[-1], lineno)
        elif is_original_record(obj):
            rows.append(obj)
        else:
            raise SebenchError(f"{where}: neither a rollout record (task_id, sample_idx, response, ...) nor the "
                               "original format (query, response, test_cases, right_exe_result)")
    own_tests = get_protocol(protocol).judge == "original"
    answers = iter(original_answers([r for r in rows if isinstance(r, dict)], instance, own_tests=own_tests))
    rollouts: list[Rollout] = []
    own: list[Task | str | None] = []  # an original-format record's own task, or why it has none
    for row in rows:
        if isinstance(row, Rollout):
            rollouts.append(row)
            own.append(None)
        else:
            answer = next(answers)
            rollouts.append(answer.rollout)
            own.append(answer.task or answer.problem)
    return rollouts, [mine or task for mine, task in zip(own, instance_tasks(instance, rollouts))]


def instance_tasks(instance: Instance, rollouts: list[Rollout]) -> list[Task | str]:
    """The instance's task of each rollout's task_id, or why there is none."""
    by_id = {t.task_id: t for t in instance.all_tasks()}
    return [by_id.get(r.task_id) or f"no task '{r.task_id}' in {instance.root}" for r in rollouts]


def judge_records(instance: Instance | Path, rollouts: list[Rollout], workers: int | None = None, *,
                  tasks: list[Task | str] | None = None, sandbox_urls: list[str] | None = None, timeout_s: float = 3.0,
                  bwrap: bool | None = None, memory_mb: int = 1024, progress: bool = False,
                  protocol: str = DEFAULT_PROTOCOL) -> list[Verdict]:
    """One verdict per rollout, in input order, judged under `protocol`'s rules (sebench.protocols) against
    tasks[i], its task (default: the instance's task of its task_id); where tasks[i] is a text (why the
    rollout has no task), the verdict is judge_error with that message. Rollouts of the numpy mode are judged
    with real NumPy as the library (Judge's `library`)."""
    from sebench.judge.core import Judge
    from sebench.judge.original import OriginalJudge

    instance = instance if isinstance(instance, Instance) else Instance.open(instance)
    tasks = instance_tasks(instance, rollouts) if tasks is None else tasks
    items, slots, verdicts = [], [], [None] * len(rollouts)
    for i, (rollout, task) in enumerate(zip(rollouts, tasks)):
        extra = {"mode": rollout.mode, "model": rollout.model, "protocol": protocol}
        if isinstance(task, str):
            stub = Task(rollout.task_id, "unknown", "unknown", "", "", "", "", [], "", [])
            verdicts[i] = _with(make_verdict(stub, rollout.sample_idx, "judge_error", 0, message=task), extra)
            continue
        response = rollout.response if rollout.response else (f"```python\n{rollout.code}\n```" if rollout.code else "")
        items.append((task, response, rollout.sample_idx))
        slots.append((i, extra))
    library = judged_library(rollouts)
    if get_protocol(protocol).judge == "original":
        if library == "numpy":
            raise SebenchError("--protocol original has no numpy mode; judge it under --protocol sebench")
        if sandbox_urls:
            raise SebenchError("--protocol original judges with a local sandbox; leave out --sandbox-url")
        judge = OriginalJudge(instance, workers, timeout_s=timeout_s, bwrap=bwrap, memory_mb=memory_mb)
    else:
        judge = Judge(instance, workers=workers, sandbox_urls=sandbox_urls, timeout_s=timeout_s, bwrap=bwrap,
                      memory_mb=memory_mb, library=library)
    with judge, _bar(progress, len(rollouts)) as bar:
        bar.update(len(rollouts) - len(items))
        for start in range(0, len(items), CHUNK):
            chunk = judge.judge_many(items[start:start + CHUNK])
            for (i, extra), v in zip(slots[start:start + CHUNK], chunk):
                verdicts[i] = _with(v, extra)
            bar.update(len(chunk))
    return verdicts


def judged_library(rollouts: list[Rollout]) -> str:
    """"numpy" for rollouts of the numpy mode, else "package"; a file may not mix the two."""
    numpy = {r.mode == NUMPY_MODE for r in rollouts}
    if len(numpy) > 1:
        raise SebenchError(f"the rollouts mix mode {NUMPY_MODE} with other modes; judge each mode's file on its own")
    return "numpy" if numpy == {True} else "package"


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


def write_verdicts(cfg: JudgeConfig) -> tuple[Path, dict]:
    """Judges cfg.rollouts, writes cfg.out (and cfg.summary); returns cfg.out and the summary."""
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
        refuse_same_file(summary_path, [*inputs, ("--out", out)], "--summary")
    if not cfg.sandbox_url:
        instance.require_package()
    with OutputLock(out):
        rollouts, tasks = read_rollouts(rollouts_path, instance, cfg.protocol)
        if not rollouts:
            raise SebenchError(f"{cfg.rollouts}: no rollouts to judge")
        verdicts = judge_records(instance, rollouts, cfg.workers, tasks=tasks, sandbox_urls=cfg.sandbox_url or None,
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

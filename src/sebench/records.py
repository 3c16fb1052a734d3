"""The typed records that the stages exchange, and their JSONL input/output, in one place.

Stages meet only through these records (see docs/architecture.md). Reading validates every line and fails with
one line naming the file, the line number and the field; writing appends whole lines and flushes, so a
crash leaves at most one half-written last line, which `repair_tail` removes before a resumed run.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sebench.errors import SebenchError
from sebench.files import open_plain, parse_json

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

LINE_LIMIT = 64 << 20  # bytes of one JSONL line (a rollout with a whole package's docs in its prompt is a few MB)
SPLITS = ("train", "single_test", "multiple_test")
MODES = ("closed", "open", "full-doc", "retrieval", "memory", "numpy")
NUMPY_MODE = "numpy"  # specificity: the same tasks asked and judged with real NumPy instead of the package
HELPED_MODES = ("open", "full-doc", "retrieval", "memory")  # the model given the docs or its experiences
VERDICTS = (
    "correct",
    "wrong_answer",
    "runtime_error",
    "timeout",
    "memory_limit",
    "no_code",
    "syntax_error",
    "not_using_package",
    "forbidden_import",
    "forbidden_access",
    "judge_error",
)


@dataclass(frozen=True)
class ApiDoc:
    """One function's documentation as shown to models: `name` is the public dotted name."""

    name: str  # e.g. "zwc.rfx.quvohe"
    signature: str  # e.g. "quvohe(a)"
    doc: str  # rewritten docstring (description, parameters, returns, examples)


@dataclass(frozen=True)
class Task:
    """A coding problem: the original benchmark's fields plus ours (docs/architecture.md, Records)."""

    task_id: str
    split: str  # one of SPLITS
    kind: str  # "single" | "multiple"
    query: str  # the problem statement shown to the model
    function_name: str  # the signature line to complete, e.g. "def solve(readings, k):"
    entry_point: str  # the function's name, e.g. "solve"
    example: str  # one example call with its expected output, for the prompt
    test_cases: list  # [{"input": "readings=[[1.5, 2.0]], k=2", "output": "[3.5]"}, ...]
    right_exe_result: str  # the printed outputs joined by "#", as in the original
    selected_functions: list  # public names used by the reference, e.g. ["zwc.kocito"]
    is_valid: bool = True
    reference_solution: str = ""  # a complete program using the package
    expected: list = field(default_factory=list)  # plain-JSON outputs, one per test case


@dataclass(frozen=True)
class Rollout:
    """One sampled answer of a model to a task."""

    task_id: str
    sample_idx: int
    mode: str  # one of MODES
    model: str
    prompt: Any  # the chat messages (list of {"role", "content"}) or a plain string
    response: str  # the raw model output, kept beside the extracted code
    code: str | None  # the extracted python code, None when there was no code block
    finish_reason: str  # "stop" | "length" | "error" | ...
    usage: dict = field(default_factory=dict)  # {"prompt_tokens", "completion_tokens"}
    seconds: float = 0.0
    error: str | None = None  # why generation failed (finish_reason "error"), else None
    searches: list = field(default_factory=list)  # retrieval mode: the model's search queries, in order
    protocol: str = ""  # the protocol whose prompts asked it (sebench.protocols); "" in older files

    @staticmethod
    def upgrade(data: dict) -> dict:
        """Older files kept `error` and `searches` inside `usage`: lifts them to their own fields."""
        return _lift(data, "usage", ("error", "searches"))


@dataclass(frozen=True)
class Verdict:
    """The judge's decision on one rollout."""

    task_id: str
    sample_idx: int
    verdict: str  # one of VERDICTS
    tests_passed: int
    tests_total: int
    detail: dict = field(default_factory=dict)  # per-test results, messages, sandbox layers
    mode: str = ""  # the rollout's prompt mode (one of MODES), "" when unknown
    model: str = ""  # the rollout's model spec, "" when unknown
    split: str = ""  # the task's split (one of SPLITS), "unknown" for tasks made from the rollout itself
    kind: str = ""  # the task's kind: "single" | "multiple"
    protocol: str = ""  # the protocol that judged it (sebench.protocols); "" in files from before protocols
    outcome: str = ""  # under protocol "original": its outcome (right, result_error, numpy, exe_error, without_zwc)

    @staticmethod
    def upgrade(data: dict) -> dict:
        """Older files kept mode, model, split and kind inside `detail`: lifts them to their own fields."""
        return _lift(data, "detail", ("mode", "model", "split", "kind"))

    def why_invalid(self) -> str | None:
        """Why no judge gives this verdict, naming the field (an unknown verdict, a negative sample, more tests
        passed than there are); None when it could be one."""
        if self.verdict not in VERDICTS:
            return f"field 'verdict': {self.verdict!r} is not a verdict (one of {', '.join(VERDICTS)})"
        if self.sample_idx < 0:
            return f"field 'sample_idx': must be >= 0 (got {self.sample_idx})"
        if self.tests_total < 0:
            return f"field 'tests_total': must be >= 0 (got {self.tests_total})"
        if not 0 <= self.tests_passed <= self.tests_total:
            return (f"field 'tests_passed': must lie between 0 and tests_total ({self.tests_total}) "
                    f"(got {self.tests_passed})")
        return None


def _lift(data: dict, inner: str, names: tuple[str, ...]) -> dict:
    """`data` with `names` moved out of the dict `data[inner]` to the top level (where empty or absent there)."""
    nested = data.get(inner)
    if not isinstance(nested, dict) or not any(name in nested for name in names):
        return data
    lifted = {name: nested[name] for name in names if name in nested and not data.get(name)}
    rest = {key: value for key, value in nested.items() if key not in lifted}
    return {**data, inner: rest, **lifted}


R = TypeVar("R", bound="DataclassInstance")  # a record class


def to_dict(record: Any) -> dict:
    """A record as a plain dict, ready for json.dumps."""
    return dataclasses.asdict(record)


def _type_ok(value: Any, hint: Any) -> bool:
    """Whether `value` fits the (simple) annotation `hint`; bool is never taken for a number."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, arg) for arg in typing.get_args(hint))
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    target = origin or hint
    return isinstance(value, target)


def from_dict(cls: type[R], data: Any, where: str = "") -> R:
    """Builds record `cls` from a parsed JSON object; errors name `where` and the field."""
    prefix = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise SebenchError(f"{prefix}expected a JSON object for a {cls.__name__} record")
    upgrade = getattr(cls, "upgrade", None)
    if upgrade is not None:
        data = upgrade(data)
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise SebenchError(f"{prefix}field '{f.name}': missing (required in a {cls.__name__})")
            continue
        value = data[f.name]
        if not _type_ok(value, hints[f.name]):
            raise SebenchError(
                f"{prefix}field '{f.name}': expected {_hint_name(hints[f.name])}, got {type(value).__name__}"
            )
        if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity or 1e999: nothing counts or sums it
            raise SebenchError(f"{prefix}field '{f.name}': not a finite number (got {value})")
        kwargs[f.name] = value
    record = cls(**kwargs)
    why_invalid = getattr(record, "why_invalid", None)  # a record's own rule across its fields, if it has one
    why = why_invalid() if callable(why_invalid) else None
    if why:
        raise SebenchError(f"{prefix}{why}")
    return record


def _hint_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def iter_lines(path: str | Path, named: bool = False) -> Iterator[tuple[int, str]]:
    """Yields (line number, text) for each non-blank line of a regular file (files.open_plain: a link, a FIFO or
    a device is refused); a file that cannot be opened, a line over LINE_LIMIT bytes or one not UTF-8 is one
    line naming the file (and the line). `named`: the path is the user's own choice on the command line (not
    found in a folder), opened as given: a link or a pipe they name is theirs to read."""
    path = Path(path)
    try:
        handle = path.open("rb") if named else open_plain(path)
    except OSError as exc:
        raise SebenchError(f"{path}: cannot open ({exc.strerror})") from None
    with handle:
        for lineno, raw in enumerate(iter(lambda: handle.readline(LINE_LIMIT + 1), b""), start=1):
            if len(raw) > LINE_LIMIT:
                raise SebenchError(f"{path}:{lineno}: a line over {LINE_LIMIT >> 20} MiB; not read")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SebenchError(f"{path}:{lineno}: not UTF-8 text (byte {exc.start} of the line)") from None
            if line.strip():
                yield lineno, line


def iter_json_lines(path: str | Path, named: bool = False) -> Iterator[tuple[int, Any]]:
    """Yields (line number, parsed object) for each non-blank line (`named`: as iter_lines); a bad line names
    file and line."""
    for lineno, line in iter_lines(path, named):
        yield lineno, parse_json(line, f"{path}:{lineno}")


def read_records(path: str | Path, cls: type[R], unique: tuple[str, ...] = (), named: bool = False) -> list[R]:
    """All records of a JSONL file, validated; the first bad line stops with file:line: field. `unique`: fields
    no two records may share all of (`UniqueRecords`); `named`: as iter_lines."""
    seen = UniqueRecords(path, unique)
    records = []
    for lineno, obj in iter_json_lines(path, named):
        records.append(from_dict(cls, obj, f"{path}:{lineno}"))
        seen.add(records[-1], lineno)
    return records


def read_verdicts(path: str | Path) -> list[Verdict]:
    """The verdicts of one evaluation (one model, mode and split, its folder's): a sample of a task at most once,
    whatever its `mode` and `model` fields say (the report counts every line of the file in the folder's row)."""
    return read_records(path, Verdict, unique=("task_id", "sample_idx"))


class UniqueRecords:
    """Refuses a record of a file that repeats an earlier one's values of `fields` (one sample of one task judged
    twice, say: a resumed stage never writes one twice), naming both lines and the last field."""

    def __init__(self, path: str | Path, fields: tuple[str, ...]):
        self.path, self.fields = path, fields
        self.lines: dict[tuple, int] = {}

    def add(self, record: Any, lineno: int) -> None:
        if not self.fields:
            return
        key = tuple(getattr(record, name) for name in self.fields)
        first = self.lines.setdefault(key, lineno)
        if first != lineno:
            values = ", ".join(f"{name} {value!r}" for name, value in zip(self.fields, key))
            raise SebenchError(f"{self.path}:{lineno}: field '{self.fields[-1]}': {values} repeats line {first}; "
                               "a file holds each once (remove one of the two)")


def write_records(path: str | Path, records: Iterable[Any]) -> None:
    """Writes records to a JSONL file atomically (a temporary file renamed into place)."""
    from sebench.output_files import atomic_text  # a unique temporary name, so two writers never share one

    with atomic_text(Path(path)) as handle:
        for record in records:
            handle.write(dumps_line(record))


def dumps_line(record: Any) -> str:
    """One record (dataclass or dict) as a JSON line with its newline."""
    data = to_dict(record) if dataclasses.is_dataclass(record) else record
    return json.dumps(data, ensure_ascii=False, sort_keys=False) + "\n"


class RecordAppender:
    """Appends whole records to a JSONL file, flushing and fsyncing each one (for resumable runs)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_tail(self.path)
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, record: Any) -> None:
        self._handle.write(dumps_line(record))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> RecordAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def repair_tail(path: str | Path) -> bool:
    """Cuts a half-written last line (no newline, or not JSON) left by a crash; True if it cut."""
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb+") as handle:
        data = handle.read()
        end = len(data)
        if data.endswith(b"\n"):
            last_start = data.rfind(b"\n", 0, end - 1) + 1
            try:
                json.loads(data[last_start:end])
                return False
            except ValueError:
                cut = last_start
        else:
            cut = data.rfind(b"\n") + 1
        handle.truncate(cut)
    return True

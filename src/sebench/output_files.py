"""Safe outputs: no command's input or earlier output is destroyed by writing, resuming or racing.

- `atomic_text`: a whole file is written to a unique temporary file beside it and renamed into place.
- `refuse_same_file`: an output that is one of the command's inputs is refused; `refuse_inside`: so is an
  output folder inside an input folder (but the folder's own place for it, a run's `report/`).
- `OutputLock`: one writer per output; OUT.lock holds the writer's pid (and an flock, so a dead writer's
  lock is taken over and two takers cannot both win).
- `check_own_output` / `prepare_resume`: a file is appended to or replaced only when its first record is
  of the kind the command writes; on resume only a half-written last line of such a file is dropped.
- `settings_differences`: what changed between a file's recorded settings and this run's.
- `refuse_fewer_records`: a non-empty record file is replaced by fewer records only with --overwrite.
"""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO, cast

from sebench.errors import SebenchError
from sebench.files import parse_json

log = logging.getLogger(__name__)


# ---- where an output may go ---------------------------------------------------------------------


def same_file(a: Path, b: Path) -> bool:
    """True when `a` and `b` name the same file (links and relative spellings included)."""
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def refuse_same_file(out: Path, inputs: Iterable[tuple[str, Path | None]], flag: str = "--out") -> None:
    """Refuses `out` when it is the same file as one of `inputs` ((flag, path) pairs)."""
    for name, path in inputs:
        if path is not None and same_file(out, path):
            raise SebenchError(f"{out}: {flag} is the same file as the input {name} {path}; writing it would "
                               f"destroy the input; choose another {flag}")


def refuse_inside(out: Path, inputs: Iterable[tuple[str, Path | None]], own: str = "", flag: str = "--out") -> None:
    """Refuses the folder `out` when it lies inside one of the input folders `inputs` ((flag, path) pairs):
    files added there change what the input holds (a sealed run's evaluations, an instance). `own`: the
    sub-folder of an input where the output goes by design (a run's "report")."""
    target = Path(out).resolve()
    for name, path in inputs:
        if path is None:
            continue
        root = Path(path).resolve()
        if target.is_relative_to(root) and not (own and target.is_relative_to(root / own)):
            where = f" (its own place is {Path(path) / own})" if own else ""
            raise SebenchError(f"{out}: {flag} lies inside the input {name} {path}; writing there would change the "
                               f"input{where}; choose another {flag}")


def check_file_target(out: Path, flag: str = "--out") -> None:
    """Refuses a file output that is a directory or lies under a file."""
    out = Path(out)
    if out.is_dir():
        raise SebenchError(f"{out}: {flag} is a directory; give a file path, e.g. {out / 'out.jsonl'}")
    _check_parents(out, flag)


def check_dir_target(out: Path, flag: str = "--out") -> None:
    """Refuses a folder output that is an existing file."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SebenchError(f"{out}: {flag} is an existing file, but a folder is expected; choose another {flag}")
    _check_parents(out, flag)


def _check_parents(out: Path, flag: str) -> None:
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SebenchError(f"{out}: {parent} is a file, not a folder; choose another {flag}")
            return


# ---- writing whole files ------------------------------------------------------------------------


@contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A text handle on a unique temporary file beside `path`, renamed onto `path` when the block ends
    without an error (and removed when it does not), so readers see the old file or the whole new one (and a
    link left at `path` is replaced, never written through)."""
    with _atomic(path, "w") as handle:
        yield cast(TextIO, handle)


@contextmanager
def atomic_bytes(path: Path) -> Iterator[BinaryIO]:
    """As atomic_text, a binary handle (a figure's PNG)."""
    with _atomic(path, "wb") as handle:
        yield cast(BinaryIO, handle)


@contextmanager
def _atomic(path: Path, mode: str) -> Iterator[IO[Any]]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    with atomic_text(path) as handle:
        handle.write(text)


# ---- one writer per output ----------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class OutputLock:
    """Holds OUT.lock (the holder's pid, under an flock) while a command writes OUT; a second writer is
    refused with one line; a lock left by a process that is gone is taken over."""

    def __init__(self, out: Path):
        out = Path(out)
        self.out = out
        self.path = out.with_name(out.name + ".lock")
        self._fd: int | None = None

    def __enter__(self) -> OutputLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                raise self._busy(pid) from None
            try:
                if os.fstat(fd).st_ino != os.stat(self.path).st_ino:  # removed by its holder meanwhile
                    os.close(fd)
                    continue
            except FileNotFoundError:
                os.close(fd)
                continue
            pid = _read_pid(fd)
            if pid is not None and _pid_alive(pid):
                os.close(fd)
                raise self._busy(pid)
            if pid is not None:
                log.warning("%s: taking over the lock of process %d, which is no longer running", self.out, pid)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._fd = fd
            return self
        raise SebenchError(f"{self.out}: could not take the lock {self.path}; try again")

    def _busy(self, pid: int | None) -> SebenchError:
        who = f"process {pid}" if pid is not None else "another process"
        return SebenchError(f"{self.out}: {who} is writing this output (lock file {self.path}); wait for it to "
                            f"finish or choose another --out (delete the lock file only if no such run is going on)")

    def __exit__(self, *exc: object) -> None:
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 64, 0).decode("ascii", "replace").strip())
    except ValueError:
        return None


# ---- is this file our own output? ---------------------------------------------------------------


def first_record(path: Path) -> tuple[int, object] | None:
    """(line number, parsed JSON or None when the line is not JSON) of the first non-blank line, or None
    for a file with no such line."""
    with Path(path).open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            if raw.strip():
                return lineno, _parse(raw)
    return None


def check_own_output(path: Path, is_kind: Callable[[object], bool], kind: str, action: str = "write over") -> None:
    """Refuses to touch an existing non-empty `path` whose first record is not a `kind` record."""
    path = Path(path)
    if not path.is_file():
        return
    first = first_record(path)
    if first is None:
        return
    lineno, obj = first
    if obj is None or not is_kind(obj):
        raise SebenchError(f"{path}:{lineno}: not a {kind} file (its first line is not a {kind} record); "
                           f"refusing to {action} it; choose another --out, or move the file away")


def prepare_resume(path: Path, is_kind: Callable[[object], bool], kind: str, first_key: str) -> bool:
    """Checks that `path` is this command's own output before appending to it, and drops its last line only
    when that line is half-written (no newline, not a whole record); True if it dropped one.

    A file whose first line is not a `kind` record, or with a complete line that is not JSON, is refused and
    left as it is. `first_key`: the first field of a `kind` record, which tells a half-written first line.
    """
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return False
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline, else its unterminated last line
    half_written = bool(tail.strip()) and _parse(tail) is None
    own_first = tail.lstrip().startswith(b'{"' + first_key.encode() + b'"')
    if any(raw.strip() for raw in lines) or not (half_written and own_first):
        check_own_output(path, is_kind, kind, "append to")
    for lineno, raw in enumerate(lines, start=1):
        if raw.strip() and _parse(raw) is None:
            raise SebenchError(f"{path}:{lineno}: not valid JSON before the last line, so not the mark of an "
                               f"interrupted run; refusing to append to it; fix or move the file")
    if not tail:
        return False
    if not half_written:  # a whole record that lost only its newline: keep it
        with path.open("ab") as handle:
            handle.write(b"\n")
        return False
    with path.open("rb+") as handle:
        handle.truncate(len(data) - len(tail))
    log.warning("%s: dropped a half-written last line (%d bytes) left by an interrupted run", path, len(tail))
    return True


def _parse(raw: bytes) -> object | None:
    """The JSON value of a line, or None when it is not JSON (not UTF-8, nested too deep, cut off)."""
    try:
        return parse_json(raw, "line")
    except SebenchError:
        return None


# ---- settings and sizes -------------------------------------------------------------------------


def settings_differences(old: dict, new: dict) -> list[str]:
    """"name: old -> new" for each setting that differs (settings missing from `old` are not compared)."""
    return [f"{k}: {old[k]!r} -> {new[k]!r}" for k in new if k in old and old[k] != new[k]]


def count_records(path: Path) -> int:
    """Non-blank lines of a JSONL file (0 when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return 0
    with path.open("rb") as handle:
        return sum(1 for raw in handle if raw.strip())


def refuse_fewer_records(path: Path, new_count: int, overwrite: bool, what: str = "tasks") -> None:
    """Refuses to replace a non-empty `path` with fewer records unless `overwrite`."""
    old = count_records(path)
    if new_count < old and not overwrite:
        raise SebenchError(f"{path}: would replace {old} {what} with {new_count}; pass --overwrite to replace them "
                           f"(nothing was written)")

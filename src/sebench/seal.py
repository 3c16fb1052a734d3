"""Tamper-evident runs: the sha256 of every file a later stage trusts, and the check that nothing changed.

Each finished stage's record (RUN_DIR/stages/<stage>.json) keeps `files`: {path: digest} for every entry of
its outputs (paths relative to the run, or absolute for an instance outside it): a regular file's sha256; a
symbolic link as "link:TARGET", never followed; a FIFO, a socket or a device as its type ("fifo", "socket",
"device"), never opened; an empty folder as "folder". `Seal` holds those in memory as the study made them
and compares the disk, and the records, with them; `check_run` compares a run's files with its records alone
(`sebench report`). An entry changed, added or removed since its stage finished stops the study with one
line naming it.

A file is hashed again only when its size, inode, modification or change time differ from the last time it
was hashed in this process: the kernel sets the change time on every write, rename and `utime`, so no
ordinary system call edits a file without it.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import entries_beneath, plain_matches, read_json_object, tree_sha256

_HASHED: dict[str, tuple[tuple[int, int, int, int], str]] = {}  # path -> (stat key, sha256)


def file_hash(path: Path) -> str:
    """sha256 of a regular file, from this process's memory while its stat is unchanged; read without
    following a link (what is not a regular file by then is named by its type, as `_digest` does)."""
    st = os.lstat(path)
    key = (st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHED.get(str(path))
    if stat.S_ISREG(st.st_mode) and known and known[0] == key:
        return known[1]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENXIO):  # a link, a socket
            raise
        return _type(os.lstat(path), path)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return _type(st, path)
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    _HASHED[str(path)] = ((st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns), digest.hexdigest())
    return digest.hexdigest()


def _name(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


_TYPES = {stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket", stat.S_IFCHR: "device", stat.S_IFBLK: "device"}


def _digest(path: Path) -> str | None:
    """An entry's digest (the module's docstring), never following a link (a link a method left in its folder
    may name anything on the machine) nor opening what is not a regular file; None for a folder with entries
    and for what is not there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode):
        return file_hash(path)
    if stat.S_ISDIR(st.st_mode):
        with os.scandir(path) as entries:
            return None if any(entries) else "folder"
    return _type(st, path)


def _type(st: os.stat_result, path: Path) -> str:
    """The digest of what is not a regular file or a folder: a link's target, else its type."""
    return f"link:{os.readlink(path)}" if stat.S_ISLNK(st.st_mode) else _TYPES.get(stat.S_IFMT(st.st_mode), "other")


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def files_of(root: Path, outputs: list[Path]) -> dict[str, str]:
    """{name: digest} of every file, link, special file and empty folder beneath `outputs` (each a file or a
    folder); a folder with entries is not listed itself."""
    found: dict[str, str] = {}
    for out in outputs:
        paths = sorted(entries_beneath(out)) if _is_folder(out) else [out]
        found.update({_name(root, p): d for p in paths if (d := _digest(p)) is not None})
    return found


def tree_of(root: Path, out: Path, files: dict[str, str]) -> str:
    """files.tree_sha256 of `out`, from the digests in `files` (made by files_of)."""
    if not _is_folder(out):
        return files[_name(root, out)]
    prefix = _name(root, out) + "/"
    digest = hashlib.sha256()
    for name in sorted((n for n in files if n.startswith(prefix)), key=lambda n: n.split("/")):  # as Path sorts
        digest.update(f"{name[len(prefix):]}\0{files[name]}\n".encode())
    return digest.hexdigest()


def _path(root: Path, name: str) -> Path:
    return Path(name) if os.path.isabs(name) else root / name


def changes(root: Path, stage: str, files: dict[str, str], outputs: list[str]) -> str | None:
    """The first difference between a stage's `files` and the disk, as one line; None when they match."""
    for name, digest in sorted(files.items()):
        path = _path(root, name)
        found = _digest(path)
        if digest == "folder" and _is_folder(path):
            continue  # a folder that got entries since: they are added, below
        if found is None:
            return f"{path} was removed after stage '{stage}' finished"
        if found != digest:
            return f"{path} changed after stage '{stage}' finished"
    now = files_of(root, [_path(root, o) for o in outputs if os.path.lexists(_path(root, o))])
    added = sorted(set(now) - set(files))
    return f"{_path(root, added[0])} appeared after stage '{stage}' finished" if added else None


class Tampered(SebenchError):
    """A file a finished stage wrote or trusted changed: the study stops (no regime goes on without it)."""


def _refuse(root: Path, why: str) -> Tampered:
    return Tampered(f"run {root} was changed outside its stages: {why}; its results cannot be trusted "
                        "(redo the stage with --overwrite, or start a new run)")


class Seal:
    """The files of a run's finished stages, as the study recorded them."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.stages: dict[str, tuple[dict[str, str], list[str]]] = {}  # stage -> (files, outputs)

    def add(self, record: dict) -> None:
        if record.get("status") == "done" and "files" in record and not record.get("derived"):
            self.stages[record["stage"]] = (record["files"], list(record.get("outputs", {})))

    def forget(self, stage: str) -> None:
        self.stages.pop(stage, None)

    def check(self, records: list[dict]) -> None:
        """Every sealed stage's files against the disk, and its record against memory."""
        on_disk = {r.get("stage"): r for r in records}
        for stage, (files, outputs) in self.stages.items():
            record = on_disk.get(stage)
            if record is None or record.get("files") != files:
                raise _refuse(self.root, f"the record of stage '{stage}' was rewritten")
            why = changes(self.root, stage, files, outputs)
            if why:
                raise _refuse(self.root, why)


def check_run(root: Path) -> None:
    """A run's files against its stage records (records without `files`: their outputs' tree hashes)."""
    root = Path(root)
    for path in plain_matches(root, "stages/*.json"):
        record = read_json_object(path)
        if record.get("status") != "done" or record.get("derived"):
            continue
        if "files" in record:
            why = changes(root, record["stage"], record["files"], list(record.get("outputs", {})))
        else:
            why = next((f"{root / name} changed after stage '{record['stage']}' finished"
                        for name, digest in record.get("outputs", {}).items()
                        if (root / name).exists() and tree_sha256(root / name) != digest), None)
        if why:
            raise _refuse(root, why)

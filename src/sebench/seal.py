"""Tamper-evident runs: the sha256 of every file a later stage trusts, and the check that nothing changed.

Each finished stage's record (RUN_DIR/stages/<stage>.json) keeps `files`: {path: sha256} for every file of
its outputs (a symbolic link is kept as its target's name, never followed) (paths relative to the run, or absolute for an instance outside it). `Seal` holds those
hashes in memory as the study made them and compares the files, and the records, with them; `check_run`
compares a run's files with its records alone (`sebench report`). A file changed, added or removed since
its stage finished stops the study with one line naming it.

A file is hashed again only when its size, inode, modification or change time differ from the last time it
was hashed in this process: the kernel sets the change time on every write, rename and `utime`, so no
ordinary system call edits a file without it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import file_sha256, tree_sha256

_HASHED: dict[str, tuple[tuple[int, int, int, int], str]] = {}  # path -> (stat key, sha256)


def file_hash(path: Path) -> str:
    """sha256 of a file, from this process's memory while its stat is unchanged."""
    st = os.stat(path)
    key = (st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHED.get(str(path))
    if known and known[0] == key:
        return known[1]
    digest = file_sha256(path)
    _HASHED[str(path)] = (key, digest)
    return digest


def _name(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _digest(path: Path) -> str:
    """A file's sha256, or "link:TARGET" for a symbolic link, which is never followed (a link a method left
    in its folder may name anything on the machine)."""
    return f"link:{os.readlink(path)}" if path.is_symlink() else file_hash(path)


def files_of(root: Path, outputs: list[Path]) -> dict[str, str]:
    """{name: digest} of every file and link beneath `outputs` (a file or a folder each)."""
    found: dict[str, str] = {}
    for out in outputs:
        if out.is_symlink() or out.is_file():
            paths = [out]
        else:
            paths = sorted(p for p in out.rglob("*") if p.is_symlink() or p.is_file())
        found.update({_name(root, p): _digest(p) for p in paths})
    return found


def tree_of(root: Path, out: Path, files: dict[str, str]) -> str:
    """files.tree_sha256 of `out`, from the hashes in `files` (made by files_of)."""
    if out.is_symlink() or out.is_file():
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
        if not path.is_symlink() and not path.is_file():
            return f"{path} was removed after stage '{stage}' finished"
        if _digest(path) != digest:
            return f"{path} changed after stage '{stage}' finished"
    now = files_of(root, [_path(root, o) for o in outputs if _path(root, o).exists()])
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
    for path in sorted((root / "stages").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
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

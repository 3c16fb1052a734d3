"""Small file helpers that several stages share: the cache folder, atomic JSON writes and sha256 digests of
files and trees."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any


def cache_root() -> Path:
    """Where sebench caches what it can reuse across runs (warm-up checkpoints, self-play's first writes):
    $SEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/sebench, else ~/.cache/sebench."""
    if os.environ.get("SEBENCH_CACHE_DIR"):
        return Path(os.environ["SEBENCH_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sebench"


def write_json(path: str | Path, data: Any, indent: int = 1) -> None:
    """Writes `data` as JSON atomically (a temporary file renamed into place), so a kill never leaves
    half a file; values JSON cannot hold (paths, dates) are written as their str()."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)  # never written through a link left there (a method's folder is its own)
    tmp.write_text(json.dumps(data, indent=indent, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def entries_beneath(folder: Path) -> list[Path]:
    """Every entry beneath `folder`, as Path.rglob("*") finds them (following no link to a folder), in a loop
    rather than a recursion: a method's folders may be nested thousands deep."""
    found: list[Path] = []
    left = [Path(folder)] if Path(folder).is_dir() else []  # as rglob: nothing beneath a file or a missing path
    while left:
        try:
            entries = os.scandir(left.pop())
        except PermissionError:  # as rglob: a folder it may not list is passed over
            continue
        with entries:
            for entry in entries:
                found.append(Path(entry.path))
                if entry.is_dir(follow_symlinks=False):
                    left.append(Path(entry.path))
    return found


def remove_tree(path: str | Path, ignore_errors: bool = False) -> None:
    """shutil.rmtree, for a tree of any depth too: one nested deeper than Python's recursion limit (a method's
    folders may be) is removed by `rm -rf`, which follows no link either."""
    try:
        shutil.rmtree(path, ignore_errors=ignore_errors)
    except RecursionError:
        subprocess.run(["rm", "-rf", "--", str(path)], check=not ignore_errors, capture_output=True)


def file_sha256(path: str | Path) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_sha256(path: str | Path) -> str:
    """sha256 of a file, or of a directory's sorted (relative path, file sha256) list."""
    path = Path(path)
    if path.is_file():
        return file_sha256(path)
    digest = hashlib.sha256()
    for child in sorted(p for p in entries_beneath(path) if p.is_file()):
        digest.update(f"{child.relative_to(path).as_posix()}\0{file_sha256(child)}\n".encode())
    return digest.hexdigest()

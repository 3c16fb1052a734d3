"""Small file helpers that several stages share: the cache folder, atomic JSON writes, sha256 digests of
files and trees, and reading a file someone else may have made (`open_plain`, `read_json_object`): a regular
file only, never followed through a symbolic link nor waited on (a FIFO, a device), within a size."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any, BinaryIO

from sebench.errors import SebenchError

JSON_LIMIT = 64 << 20  # bytes of a JSON document read by `read_json_object` (a record, a manifest)


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


def open_plain(path: str | Path) -> BinaryIO:
    """`path` opened for reading in binary, when it is a regular file reached without following a symbolic link
    in its last part; a link (to a secret, to /dev/zero), a FIFO, a device or a folder is one line naming it."""
    plain = f"{path}: not a plain file (a link, a FIFO, a device, a folder?); refused (copy the file in its place)"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):  # a link, a socket, a folder
            raise SebenchError(plain) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SebenchError(plain)
    return os.fdopen(fd, "rb")


def read_json_object(path: str | Path, limit: int = JSON_LIMIT) -> dict:
    """The JSON object in the file at `path`, read as `open_plain` does, of at most `limit` bytes of UTF-8;
    else one line naming the file (not plain, too large, not UTF-8, not JSON, nested too deep, not an object)."""
    with open_plain(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise SebenchError(f"{path}: over the {limit >> 20} MiB this file may have; not read")
    value = parse_json(data, str(path))
    if not isinstance(value, dict):
        raise SebenchError(f"{path}: not a JSON object")
    return value


def parse_json(text: str | bytes, where: str, error: type[SebenchError] = SebenchError, **hooks: Any) -> Any:
    """The JSON value of `text` (`hooks`: json.loads' parse_* arguments); else one `error` line naming `where`
    and why: not UTF-8, not JSON (where in the text), nested too deep, a number too long to read."""
    try:
        return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text, **hooks)
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise error(f"{where}: {json_error(exc)}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deep to read (refused)") from None
    except ValueError as exc:  # a number too long to read, a lone surrogate
        raise error(f"{where}: not valid JSON ({str(exc)[:120]})") from None


def json_error(exc: json.JSONDecodeError) -> str:
    """Why a text is not JSON: the parser's reason and where (the column alone for a text of one line)."""
    place = (f"line {exc.lineno}, column {exc.colno}" if "\n" in exc.doc.rstrip("\n") else f"column {exc.colno}")
    return f"not valid JSON ({exc.msg} at {place})"


def plain_matches(root: str | Path, pattern: str) -> list[Path]:
    """The sorted paths beneath `root` that match the glob `pattern`; a match reached through a symbolic link
    beneath `root` (a folder or the file a link) is one line naming the link: what someone else's folder links
    to (a home folder, another run) is never read as its own."""
    root = Path(root)
    return [plain_path(root, path.relative_to(root)) for path in sorted(root.glob(pattern))]


def plain_path(root: str | Path, rel: str | Path) -> Path:
    """`root / rel` for a relative path named by a file in `root` (a run's schedule, say), refused with one line
    when it leaves `root` (absolute, `..`) or passes a symbolic link beneath `root`."""
    root, rel = Path(root), Path(rel)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise SebenchError(f"{root}: {str(rel)!r} is not a path inside it (refused)")
    for part in [*reversed(rel.parents[:-1]), rel]:
        if (root / part).is_symlink():
            raise SebenchError(f"{root / part}: a symbolic link inside {root}; refused (copy what it links to "
                               "in its place)")
    return root / rel

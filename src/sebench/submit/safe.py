"""Reading a stranger's bundle without trusting it: bounded bytes, plain names, shallow JSON.

- bytes: the compressed file, each member and all members together are capped; the tar stream is read
  through a reader that stops at the cap, so a decompression bomb costs at most the cap in time and memory;
- names: a member is a regular file whose name is already in canonical relative form (no leading `/`, no
  empty, `.` or `..` part, no backslash, only `A-Z a-z 0-9 _ . - + = @ ,`); links, devices, folders and fifos
  are refused, and so is a name given twice; nothing but zeros follows the archive's end (check_end);
- JSON: at most MAX_DEPTH levels of nesting, checked without recursion; every number finite (no NaN, no
  Infinity, no 1e999, no integer of 309 digits that no float holds), which the board could neither compare
  nor draw; no key twice in one object (`sebench submit` never writes one, and JSON readers differ on which
  of the two they keep: a reader of the file could see another record than the verifier checked).

Every refusal is a BundleError: one line naming the bundle and the member.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import tarfile
import zlib
from pathlib import Path
from typing import Any

from sebench import files
from sebench.errors import SebenchError

MAX_FILE = 64 * 2**20  # the compressed bundle
MAX_MEMBER = 64 * 2**20  # one member, uncompressed
MAX_TOTAL = 256 * 2**20  # every member (and the tar headers) together, uncompressed
MAX_MEMBERS = 20_000
MAX_DEPTH = 32  # nesting of a JSON value
PART = re.compile(r"[A-Za-z0-9_.+=@,-]+")


class BundleError(SebenchError):
    """A bundle that cannot be read safely: malformed, oversized, or with a member that is not a plain file."""


class _Capped(io.RawIOBase):
    """A read-only stream that refuses to give more than `limit` bytes of `inner`."""

    def __init__(self, inner: io.BufferedIOBase, limit: int, where: Path) -> None:
        self.inner, self.left, self.where = inner, limit, where

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        data = self.inner.read(min(len(view), self.left + 1))
        if len(data) > self.left:
            raise BundleError(f"{self.where}: more than {MAX_TOTAL // 2**20} MiB once decompressed; not read")
        self.left -= len(data)
        view[:len(data)] = data
        return len(data)


def check_name(name: str, where: Path) -> str:
    """`name` when it is a canonical relative path of plain parts; else a BundleError naming it."""
    parts = name.split("/")
    if not name or "\\" in name or not all(p not in (".", "..") and PART.fullmatch(p) for p in parts):
        raise BundleError(f"{where}: member {name!r}: not a plain relative name (refused)")
    return name


def read_file(path: Path) -> bytes:
    """The bytes of the file at `path`, read once and at most MAX_FILE of them: whatever is checked, hashed and
    shown of a bundle is taken from them, never from a second read, which could find other bytes (a file
    replaced meanwhile, a pipe)."""
    path = Path(path)
    if path.is_dir():  # a run directory given where its bundle was meant
        raise BundleError(f"{path}: a directory, not a bundle; `sebench submit RUN_DIR --method LABEL --out BUNDLE` "
                          "makes one")
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise BundleError(f"{path}: larger than {MAX_FILE // 2**20} MiB; not a bundle from `sebench submit`")
    return data


def read_members(path: Path, data: bytes | None = None) -> dict[str, bytes]:
    """Every member of the tar.gz `data` (default: read from `path`), within the caps (module docstring)."""
    path = Path(path)
    data = read_file(path) if data is None else data
    members: dict[str, bytes] = {}
    total = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb") as unzipped, \
                tarfile.open(fileobj=io.BufferedReader(_Capped(unzipped, MAX_TOTAL, path)), mode="r|") as tar:
            for info in tar:
                name = check_name(info.name, path)
                if not info.isreg():
                    raise BundleError(f"{path}: member {name}: a link, device or folder, not a plain file (refused)")
                if name in members or len(members) >= MAX_MEMBERS:
                    raise BundleError(f"{path}: member {name}: given twice, or more than {MAX_MEMBERS} members")
                total += info.size
                if info.size > MAX_MEMBER or total > MAX_TOTAL:
                    raise BundleError(f"{path}: member {name}: declares {info.size} bytes, over the "
                                      f"{MAX_MEMBER // 2**20} MiB cap of a member or the bundle's; not read")
                handle = tar.extractfile(info)
                data = handle.read(info.size + 1) if handle else b""
                if len(data) != info.size:
                    raise BundleError(f"{path}: member {name}: holds {len(data)} bytes, not the {info.size} it declares")
                members[name] = data
            check_end(tar, path)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as exc:
        raise BundleError(f"{path}: not a bundle (a tar.gz from `sebench submit`): {exc}") from None
    return members


def check_end(tar: tarfile.TarFile, where: Path) -> None:
    """Nothing but zeros follows the archive's end (the padding of its last record): bytes after it, a second
    archive say, are read by `tar --ignore-zeros` (its members over the ones verified) and never by the verifier."""
    while chunk := tar.fileobj.read(2**20):  # type: ignore[union-attr]  # within the stream's cap
        if chunk.count(0) != len(chunk):
            raise BundleError(f"{where}: data after the archive's end, which the verifier does not read but "
                              "`tar --ignore-zeros` does (refused)")


def parse_json(text: str, where: str) -> Any:
    """The JSON value of `text`, at most MAX_DEPTH deep; else a BundleError naming `where`."""
    try:
        value = files.parse_json(text, where, BundleError, parse_constant=_not_finite, parse_float=_finite,
                                 parse_int=_finite_int, object_pairs_hook=_once_each)
    except _NotFinite as exc:
        raise BundleError(f"{where}: {str(exc)[:40]} is not a finite number (refused)") from None
    except _Twice as exc:
        raise BundleError(f"{where}: key {str(exc)[:80]!r} given twice in one object (refused)") from None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise BundleError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels (refused)")
            stack += [(v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)]
    return value


class _NotFinite(Exception):
    """A JSON number that is NaN or infinite."""


class _Twice(Exception):
    """A JSON object that gives one key twice."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object's pairs as a dict, each key once."""
    value: dict = {}
    for key, item in pairs:
        if key in value:
            raise _Twice(key)
        value[key] = item
    return value


def _not_finite(text: str) -> float:
    raise _NotFinite(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _finite_int(text: str) -> int:
    """An integer a float can hold (below 2**1024): a longer one stops every comparison with a float."""
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _NotFinite(text) from None
    return value


def inside(folder: Path, name: str) -> Path:
    """`folder / name`, refused unless it resolves inside `folder` (after every normalisation)."""
    root = Path(folder).resolve()
    target = (root / check_name(name, root)).resolve()
    if not target.is_relative_to(root) or target == root:
        raise BundleError(f"{folder}: member {name!r} reaches outside the folder (refused)")
    return target

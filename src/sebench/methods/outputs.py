"""What comes out of a method is taken as data: copied, never followed; served only where the user said.

A user's method (a file, a module, an entry point) writes in its folder, FOLDER = RUN_DIR/train/LABEL. When
its process has ended, the study copies what it returned into RUN_DIR/outputs/LABEL/, a folder no method's
process can write: a checkpoint into `checkpoint/`, an agent's state (FOLDER/agent) into `agent/`. The
evaluation, the name recall and a submission's bundle read that copy; an agent at test time reads its state
from there. The copy walks the method's folder one name at a time from a folder's descriptor, following no
link on any component: it takes regular files and folders only, and refuses with one line naming the file
a symbolic link, a FIFO, a socket, a device, a file with other hard links, and a copy over its limits
(`FILE_LIMIT` a file, `max_output_gib` in all, `ENTRIES_LIMIT` entries, `DEPTH_LIMIT` folders deep). A
checkpoint that is the start model, or lies in a path the method was given to read, is evaluated where it
is; anywhere else it is refused. sebench's built-in methods (its own code) are evaluated where they wrote.

An `Endpoint` is evaluated only at the URL the user declared for the method (`methods.LABEL.endpoint`); any
other is refused, and no request goes to it. The study sends it a credential only when the user names one
for it (`methods.LABEL.endpoint_key`: the environment variable holding it), never the study's own key.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from sebench.errors import SebenchError

GIB = 1 << 30
FILE_LIMIT = 40 * GIB  # one file: a float32 8B model in one file is 30.5 GiB
TOTAL_LIMIT_GIB = 64  # all of it, unless methods.LABEL.max_output_gib says otherwise: a float32 8B checkpoint
ENTRIES_LIMIT = 100_000  # files and folders
DEPTH_LIMIT = 32  # folders within folders
OUTPUT_KEYS = ("endpoint", "endpoint_key", "max_output_gib")  # settings of methods.LABEL read here
_REFUSED_TYPES = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
                  stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


@dataclass(frozen=True)
class OutputRules:
    """What the user lets come out of a method: the server it may return (`endpoint`), the environment variable
    whose value the study sends that server as its key (`endpoint_key`), and the size of a copy in GiB."""

    endpoint: str | None = None
    endpoint_key: str | None = None
    max_output_gib: float = TOTAL_LIMIT_GIB

    def record(self) -> dict:
        """The settings the user gave (for the stage's record: absent when none, so earlier records match)."""
        return {k: v for k, v in vars(self).items() if v != getattr(OutputRules(), k)}


def output_rules(label: str, settings: dict) -> OutputRules:
    """The OutputRules of methods.LABEL; a malformed setting is refused with one line."""
    endpoint, key = settings.get("endpoint"), settings.get("endpoint_key")
    if endpoint is not None:
        endpoint = base_url(endpoint, f"methods.{label}.endpoint")
    if key is not None and (not isinstance(key, str) or not key.strip()):
        raise SebenchError(f"methods.{label}.endpoint_key: {key!r} is not the name of an environment variable")
    if key is not None and endpoint is None:
        raise SebenchError(f"methods.{label}.endpoint_key: names a key for no server (set methods.{label}.endpoint)")
    limit = settings.get("max_output_gib", TOTAL_LIMIT_GIB)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit <= 0:
        raise SebenchError(f"methods.{label}.max_output_gib: {limit!r} is not a positive number of GiB")
    return OutputRules(endpoint, key, limit)


def base_url(url: object, where: str) -> str:
    """An OpenAI-compatible server's base URL as the openai backend uses it: http(s), one server, a bare host
    given /v1, no trailing slash."""
    parsed = urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname or "," in str(url) \
            or any(c.isspace() for c in str(url)) or parsed.username or parsed.password:
        raise SebenchError(f"{where}: {url!r} is not the http(s) base URL of one server (e.g. http://host:8000/v1)")
    url = str(url).rstrip("/")
    return url + "/v1" if parsed.path in ("", "/") else url


def served_endpoint(label: str, rules: OutputRules, result: dict) -> str:
    """The base URL to evaluate a returned Endpoint at: the one the user declared, when the method returned it;
    else one line that names the server it returned."""
    returned = str(result.get("url"))
    if rules.endpoint is None:
        raise SebenchError(f"it returned an Endpoint ({returned}) the user did not declare; sebench sends nothing "
                           f"to it (declare the server with --set methods.{label}.endpoint=URL)")
    try:
        same = base_url(returned, "the returned Endpoint") == rules.endpoint
    except SebenchError:
        same = False
    if not same:
        raise SebenchError(f"it returned an Endpoint ({returned}) that is not the server declared for it "
                           f"({rules.endpoint}); sebench sends nothing to it")
    return rules.endpoint


@dataclass
class _Entry:
    """A file or folder the survey found: its name, its stat, and a folder's entries (None for a file)."""

    name: str
    st: os.stat_result
    entries: list[_Entry] | None = None


@dataclass
class _Copy:
    """One copy out of a method's folder, within its limits."""

    limit_gib: float
    size: int = 0
    count: int = 0

    def survey(self, fd: int, where: Path, depth: int = 0) -> list[_Entry]:
        """The entries of the folder open as `fd` (shown as `where`), recursively, each checked; nothing
        is opened but folders, with O_NOFOLLOW."""
        if depth > DEPTH_LIMIT:
            raise SebenchError(f"{where}: folders nested more than {DEPTH_LIMIT} deep; {_TAKEN}")
        found = []
        for name in sorted(os.listdir(fd)):
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            path = where / name
            _check(st, path, fd, name)
            self.count += 1
            self.size += st.st_size if stat.S_ISREG(st.st_mode) else 0
            if self.count > ENTRIES_LIMIT:
                raise SebenchError(f"{path}: more than {ENTRIES_LIMIT:,} files and folders; {_TAKEN}")
            if self.size > self.limit_gib * GIB:
                raise SebenchError(f"{path}: the copy passes {self.limit_gib:g} GiB (raise it with "
                                   "methods.LABEL.max_output_gib)")
            entry = _Entry(name, st)
            if stat.S_ISDIR(st.st_mode):
                sub = _open_folder(name, fd, path)
                try:
                    entry.entries = self.survey(sub, path, depth + 1)
                finally:
                    os.close(sub)
            found.append(entry)
        return found

    def copy(self, fd: int, where: Path, entries: list[_Entry], dest: Path) -> None:
        """The surveyed `entries` of the folder open as `fd` into `dest` (made here); a file that is no longer
        the one surveyed is refused."""
        dest.mkdir(mode=0o755)
        for entry in entries:
            path = where / entry.name
            if entry.entries is not None:
                sub = _open_folder(entry.name, fd, path)
                try:
                    _same(os.fstat(sub), entry.st, path)
                    self.copy(sub, path, entry.entries, dest / entry.name)
                finally:
                    os.close(sub)
                continue
            try:
                src = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
            except OSError as exc:  # replaced by a link or a socket since the survey, or not readable
                raise (_changed(path) if exc.errno in (errno.ELOOP, errno.ENXIO, errno.ENOENT)
                       else SebenchError(f"{path}: {exc.strerror}")) from None
            try:
                _same(os.fstat(src), entry.st, path)
                out = os.open(dest / entry.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    _copy_bytes(src, out, entry.st.st_size, path)
                finally:
                    os.close(out)
            finally:
                os.close(src)


_TAKEN = "the study takes a method's outputs as regular files and folders only, following no link"


def _check(st: os.stat_result, path: Path, fd: int, name: str) -> None:
    """Refuses an entry that is not a regular file with one link or a folder, or a file over FILE_LIMIT."""
    kind = _REFUSED_TYPES.get(stat.S_IFMT(st.st_mode))
    if kind == "a symbolic link":
        kind += f" (to {os.readlink(name, dir_fd=fd)})"
    elif stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        kind = f"a file with {st.st_nlink - 1} other hard link{'s' if st.st_nlink > 2 else ''}"
    elif not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        kind = "neither a file nor a folder"
    if kind:
        raise SebenchError(f"{path} is {kind}; {_TAKEN}")
    if stat.S_ISREG(st.st_mode) and st.st_size > FILE_LIMIT:
        raise SebenchError(f"{path}: {st.st_size / GIB:.1f} GiB, over the {FILE_LIMIT // GIB} GiB a file may have")


def _same(now: os.stat_result, surveyed: os.stat_result, path: Path) -> None:
    """Refuses a file or folder that is no longer the one surveyed (another inode, type or size, or a file that
    gained a hard link)."""
    def key(st: os.stat_result) -> tuple:
        return st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), *((st.st_size, st.st_nlink) if stat.S_ISREG(st.st_mode) else ())

    if key(now) != key(surveyed):
        raise _changed(path)


def _changed(path: Path) -> SebenchError:
    return SebenchError(f"{path} changed while the study copied it; {_TAKEN}")


def _open_folder(name: str, fd: int | None, path: Path) -> int:
    """A folder's descriptor, opened without following a link (`fd`: the folder it is in; None: `name` is
    absolute); a link, a file or a missing name is refused with one line."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            kind = _REFUSED_TYPES.get(stat.S_IFMT(mode), "a file, not a folder")
            raise SebenchError(f"{path} is {kind}; {_TAKEN}") from None
        raise SebenchError(f"{path}: {exc.strerror}") from None


def _copy_bytes(src: int, out: int, size: int, path: Path) -> None:
    """`size` bytes from `src` to `out`, in the kernel where it can (copy_file_range), else read and write."""
    left = size
    fast = hasattr(os, "copy_file_range")
    while left:
        if fast:
            try:
                done = os.copy_file_range(src, out, min(left, GIB))
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM):
                    raise
                fast = False
                continue
        else:
            block = os.read(src, min(left, 1 << 20))
            done = len(block)
            view = memoryview(block)
            while view:
                view = view[os.write(out, view):]
        if not done:
            raise _changed(path)
        left -= done


def within(path: Path, folders: list[Path]) -> bool:
    """Whether `path` (a real path) is one of `folders` or lies beneath one (each taken as its real path)."""
    return any(path == f or f in path.parents for f in (Path(os.path.realpath(f)) for f in folders))


def copy_out(folder: Path, returned: Path, dest: Path, rules: OutputRules) -> None:
    """Copies `returned`, a folder beneath the method's `folder`, into `dest` (which must not exist), opening
    `folder` itself and every component beneath it without following links; refuses with one line."""
    rel = returned.relative_to(folder)
    fd = _open_folder(str(folder), None, folder)
    try:
        where = folder
        for part in rel.parts:
            where = where / part
            sub = _open_folder(part, fd, where)
            os.close(fd)
            fd = sub
        taking = _Copy(rules.max_output_gib)
        entries = taking.survey(fd, where)
        free = shutil.disk_usage(dest.parent).free
        if taking.size > free:
            raise SebenchError(f"{where}: {taking.size / GIB:.1f} GiB to copy, and {dest.parent} has "
                               f"{free / GIB:.1f} GiB free")
        try:
            taking.copy(fd, where, entries, dest)
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
    finally:
        os.close(fd)

"""Linux Landlock through its three system calls: an allow-list for the file system and TCP, applied to the
calling process and everything it starts (it cannot be lifted).

What each ABI adds, as the kernel documents it: 1 the file rights, 2 REFER (links and renames across
folders), 3 TRUNCATE, 4 TCP bind and connect by port, 5 IOCTL_DEV, 6 scopes (abstract UNIX sockets and
signals to processes outside the sandbox). `restrict` uses what the running kernel's ABI has.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
import sys
from collections.abc import Iterable
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_ABI1_FS = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a file may hold
READ = EXECUTE | READ_FILE | READ_DIR
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1
SCOPES = (1 << 0) | (1 << 1)  # abstract UNIX sockets, signals


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none."""
    if sys.platform != "linux":
        return 0
    return max(0, int(_libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))))


def handled_fs(version: int) -> int:
    """Every file-system right the ABI `version` knows."""
    rights = _ABI1_FS
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read: Iterable[Path], write: Iterable[Path], devices: Iterable[Path] = (),
             ports: Iterable[int] | None = (), listed: Iterable[Path] = ()) -> int:
    """Allows reading beneath `read`, everything beneath `write`, reading, writing and controlling (ioctl) the
    device files `devices`, listing the folders `listed` (not reading their files), and TCP connections to
    `ports` only (None: TCP is not restricted); everything else handled is refused from now on. Returns the ABI used; raises OSError where Landlock could not be applied."""
    version = abi()
    if version < 1:
        raise OSError("this kernel has no Landlock")
    fs = handled_fs(version)
    net = BIND_TCP | CONNECT_TCP if version >= 4 and ports is not None else 0
    libc, ruleset = _libc(), _ruleset(version, fs, net, SCOPES if version >= 6 else 0)
    try:
        for path in read:
            _add_path(libc, ruleset, path, READ & fs)
        for path in listed:
            _add_path(libc, ruleset, path, READ_DIR)
        for path in devices:
            _add_path(libc, ruleset, path, (READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV) & fs)
        for path in write:
            _add_path(libc, ruleset, path, fs)
        _add_ports(libc, ruleset, ports if net else ())
        _restrict_self(libc, ruleset)
    finally:
        os.close(ruleset)
    return version


def restrict_network(ports: Iterable[int]) -> int:
    """TCP: connections to `ports` only, no bind (ABI 4+); abstract UNIX sockets and signals scoped to the
    caller's own processes (ABI 6+); the file system is left as it is."""
    version = abi()
    if version < 4:
        raise OSError("this kernel's Landlock has no network rules (ABI 4+)")
    libc, ruleset = _libc(), _ruleset(version, 0, BIND_TCP | CONNECT_TCP, SCOPES if version >= 6 else 0)
    try:
        _add_ports(libc, ruleset, ports)
        _restrict_self(libc, ruleset)
    finally:
        os.close(ruleset)
    return version


def _ruleset(version: int, fs: int, net: int, scoped: int) -> int:
    fields = [fs] + ([net] if version >= 4 else []) + ([scoped] if version >= 6 else [])
    attr = struct.pack(f"<{len(fields)}Q", *fields)
    ruleset = _libc().syscall(_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    return int(ruleset)


def _add_ports(libc: ctypes.CDLL, ruleset: int, ports: Iterable[int]) -> None:
    for port in ports:
        rule = struct.pack("<QQ", CONNECT_TCP, port)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.c_char_p(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock rule for TCP port {port} failed")


def _restrict_self(libc: ctypes.CDLL, ruleset: int) -> None:
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")


def _add_path(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    """A rule for `path` (followed if it is a symlink: the caller names what it means to allow); a path that
    does not exist is skipped."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = struct.pack("<Qi", rights, fd)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.c_char_p(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock rule for {path} failed")
    finally:
        os.close(fd)

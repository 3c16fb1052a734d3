"""A seccomp filter for a method's process with the network off: which sockets it may make, kept by the kernel.

A seccomp filter sees a system call's number and its scalar arguments, never the memory they point to: it
can check `socket(family, type, protocol)`, but not the address given to `connect`, `sendto` or `sendmsg`.
So the rule is on the sockets a process may make at all (`socket`; `socketpair` makes only a connected pair):

- AF_UNIX: allowed (multiprocessing and torch's workers pass file descriptors over them); abstract addresses
  stay inside the method's Landlock domain (ABI 6+) or its network namespace (bubblewrap); a pathname socket
  is found through the file system, which Landlock does not check on `connect` (the audit hook refuses
  Python's `connect` to a socket file outside the method's writable folders; docs/methods.md, the layers);
- AF_INET, AF_INET6: SOCK_STREAM with protocol 0 or TCP only (Landlock's TCP rules, or bubblewrap's network
  namespace, decide where it connects); UDP, raw sockets, SCTP and MPTCP are refused;
- AF_NETLINK's NETLINK_ROUTE: allowed (it carries nothing off the machine; torch and NCCL list the network
  interfaces through it, and bubblewrap brings up the loopback of its own network namespace through it, so a
  judge's sandbox inside a method keeps bubblewrap);
- every other family (AF_PACKET, other netlink protocols, AF_VSOCK, Bluetooth, ...): refused;
- `io_uring_setup`: refused (io_uring makes sockets without the `socket` system call);
- a system call of another architecture (32-bit x86 through int 0x80, x32): refused.

A refused call fails with EACCES. The filter is a short classic-BPF program installed with prctl through
ctypes: libseccomp (and its Python bindings) is not on every machine, and the rule fits in twenty
instructions. It is installed under every layer on Linux (x86-64 and AArch64); elsewhere `install` returns False
and the other layers hold.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import socket
import struct
import sys

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _AND_K, _RET_K = 0x20, 0x15, 0x35, 0x54, 0x06
_NR, _ARCH, _ARG0, _ARG1, _ARG2 = 0, 4, 16, 24, 32  # offsets in struct seccomp_data (the low 32 bits of each arg)
# machine: (its audit architecture, socket's number, io_uring_setup's number, the first number not its own)
_ARCHES = {"x86_64": (0xC000003E, 41, 425, 0x40000000), "aarch64": (0xC00000B7, 198, 425, 0x40000000)}
_SOCK_TYPE_MASK = 0xF  # SOCK_NONBLOCK and SOCK_CLOEXEC are higher bits
_IPPROTO_TCP = 6
_AF_NETLINK, _NETLINK_ROUTE = 16, 0


def program(machine: str) -> bytes | None:
    """The filter for `machine` (platform.machine()), as struct sock_filter entries; None where unknown."""
    if machine not in _ARCHES:
        return None
    arch, nr_socket, nr_uring, foreign = _ARCHES[machine]
    steps: list[tuple] = [  # (label, code, k, where to go if true, where if false); None: the next step
        ("", _LD_W_ABS, _ARCH, None, None), ("", _JEQ_K, arch, None, "deny"),
        ("", _LD_W_ABS, _NR, None, None), ("", _JGE_K, foreign, "deny", None), ("", _JEQ_K, nr_uring, "deny", None),
        ("", _JEQ_K, nr_socket, None, "allow"),
        ("", _LD_W_ABS, _ARG0, None, None), ("", _JEQ_K, socket.AF_UNIX, "allow", None),
        ("", _JEQ_K, _AF_NETLINK, "netlink", None),
        ("", _JEQ_K, socket.AF_INET, "inet", None), ("", _JEQ_K, socket.AF_INET6, "inet", "deny"),
        ("inet", _LD_W_ABS, _ARG1, None, None), ("", _AND_K, _SOCK_TYPE_MASK, None, None),
        ("", _JEQ_K, socket.SOCK_STREAM, None, "deny"),
        ("", _LD_W_ABS, _ARG2, None, None), ("", _JEQ_K, 0, "allow", None), ("", _JEQ_K, _IPPROTO_TCP, "allow", "deny"),
        ("netlink", _LD_W_ABS, _ARG2, None, None), ("", _JEQ_K, _NETLINK_ROUTE, "allow", "deny"),
        ("allow", _RET_K, _RET_ALLOW, None, None), ("deny", _RET_K, _RET_ERRNO | errno.EACCES, None, None),
    ]
    at = {label: i for i, (label, *_) in enumerate(steps) if label}

    def jump(i: int, to: str | None) -> int:
        return 0 if to is None else at[to] - i - 1

    return b"".join(struct.pack("<HBBI", code, jump(i, yes), jump(i, no), k)
                    for i, (_, code, k, yes, no) in enumerate(steps))


def install() -> bool:
    """Applies the filter to the calling thread's process and everything it starts (it cannot be lifted);
    False where this machine's architecture is not known. Raises OSError where the kernel refuses it."""
    code = program(platform.machine()) if sys.platform == "linux" else None
    if code is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(code, len(code))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if (libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            or libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0):
        raise OSError(ctypes.get_errno(), "the seccomp filter could not be installed")
    return True

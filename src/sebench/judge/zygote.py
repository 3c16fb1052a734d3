"""The sandbox's zygote: a warm process that has imported the generated package and forks one child per
program. Runs as a standalone script (`python -I -S zygote.py CONFIG`), never imported by the judge.

The zygote never sees task data, code, inputs or results: the judge sends it, over a SOCK_SEQPACKET
control socket, only a job id, limits and three file descriptors (job pipe, output pipe, result pipe),
as binary messages whose struct formats come with the configuration (sandbox.WIRE). After warm-up it
installs its own seccomp filter and then only forks: a child owns the three pipes; the zygote kills the
child's process group at the wall-clock limit and reports how the child ended. The child locks itself
down (new session, parent-death signal, fds 0-3 only, rlimits, its own seccomp filter, an audit hook),
then reads its job from fd 0 (nonce, entry point, code, and each test input with its compiled form from
the judge), runs it, writes the program's output to fd 1/2 and one result frame per test case to fd 3,
and leaves with os._exit. Between two forks the zygote does as little as it can: every page it writes
while a child shares it is copied.

Result frames are lines "NONCE JSON". Values are encoded with exact types only (type(v) is int, float,
complex, bool, str, NoneType, list, tuple, dict; package objects through the package's own `_plain`),
with tags for what plain JSON cannot hold: {"__complex__": [re, im]}, {"__float__": "nan"|"inf"|"-inf"},
{"__tuple__": [...]}, {"__dict__": [[k, v], ...]} (dicts whose keys are not all str) and, for a plain
dict that happens to use one of the tag names as its only key, {"__dict__": ...} as well. Rows made only
of exact ints, floats and bools go through the C JSON encoder, where NaN and infinities are the tokens
NaN, Infinity and -Infinity (read back by Python's json).
"""

import builtins
import ctypes
import errno
import gc
import io
import json
import linecache
import marshal
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
import traceback
import types

# Captured before any user code runs: user code may replace module attributes, never these locals.
_type = type
_len = len
_str = str
_isinstance = isinstance
_float_repr = float.__repr__
_int_repr = int.__repr__
_enc_str = json.encoder.encode_basestring_ascii
_os_write = os.write
_os_exit = os._exit
_fmt_exc = traceback.format_exception
_fmt_exc_only = traceback.format_exception_only
_eval = eval
_exec = exec
_compile = compile
_marshal_loads = marshal.loads

# Preloaded so that children never need to read the standard library (the allowlist of static.py).
PRELOAD = (
    "math", "cmath", "itertools", "functools", "collections", "collections.abc", "operator", "typing",
    "heapq", "bisect", "string", "re", "copy", "dataclasses", "enum", "numbers", "random", "time",
    "datetime", "textwrap", "abc", "__future__", "warnings", "contextlib", "pprint", "keyword",
    "decimal", "fractions", "statistics", "array", "unicodedata", "traceback", "linecache", "json",
)
# Submodules that NumPy loads lazily: children may be unable to read files later (uid drop, landlock).
# Preloaded when the package imported NumPy (a package of another library never loads NumPy).
PRELOAD_NUMPY = (
    "numpy.ma", "numpy.polynomial", "numpy.fft", "numpy.random", "numpy.lib.stride_tricks",
    "numpy.lib.recfunctions", "numpy.char", "numpy.rec", "numpy.strings", "numpy.emath",
)

MAX_DEPTH = 64
MAX_PRINTED = 20_000

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


# --------------------------------------------------------------------------------------------- seccomp

AUDIT_ARCH_X86_64 = 0xC000003E
# x86_64 numbers of the syscalls a child may not make (EPERM). Special cases are handled below:
# clone (threads only), kill/tgkill (own process only), open/openat (read-only), prlimit64 (read only).
DENY_X86_64 = {
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "socket": 41, "socketpair": 53,
    "connect": 42, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "tkill": 200,
    "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "setsid": 112, "setpgid": 109, "mount": 165, "umount2": 166, "pivot_root": 155,
    "chroot": 161, "unshare": 272, "setns": 308, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "keyctl": 250, "add_key": 248, "request_key": 249, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "swapon": 167,
    "swapoff": 168, "acct": 163, "quotactl": 179, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "prctl": 157, "setrlimit": 160, "setuid": 105, "setgid": 106,
    "setreuid": 113, "setregid": 114, "setresuid": 117, "setresgid": 119, "setgroups": 116,
    "setfsuid": 122, "setfsgid": 123, "capset": 126, "personality": 135, "creat": 85, "openat2": 437,
    "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "mkdir": 83,
    "mkdirat": 258, "rmdir": 84, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266, "chmod": 90,
    "fchmod": 91, "fchmodat": 268, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
    "truncate": 76, "mknod": 133, "mknodat": 259, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
    "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "utime": 132, "utimes": 235,
    "utimensat": 280, "futimesat": 261, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "fanotify_init": 300, "vhangup": 153, "syslog": 103, "settimeofday": 164, "clock_settime": 227,
    "adjtimex": 159, "clock_adjtime": 305, "sethostname": 170, "setdomainname": 171, "iopl": 172,
    "ioperm": 173, "mbind": 237, "migrate_pages": 256, "move_pages": 279, "lookup_dcookie": 212,
    "memfd_secret": 447, "process_madvise": 440, "mount_setattr": 442, "move_mount": 429,
    "open_tree": 428, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
}
NR_CLONE, NR_CLONE3, NR_KILL, NR_TGKILL, NR_OPEN, NR_OPENAT, NR_PRLIMIT64 = 56, 435, 62, 234, 2, 257, 302
CLONE_THREAD = 0x00010000
OPEN_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC

RET_ALLOW = 0x7FFF0000
RET_KILL = 0x80000000
RET_EPERM = 0x00050000 | errno.EPERM
RET_EACCES = 0x00050000 | errno.EACCES
RET_ENOSYS = 0x00050000 | errno.ENOSYS


def _stmt(code, k):
    return (code, 0, 0, k)


def _jeq(k, jt, jf):
    return (0x15, jt, jf, k)


def _jset(k, jt, jf):
    return (0x45, jt, jf, k)


def _ld(offset):
    return _stmt(0x20, offset)


def _ret(k):
    return _stmt(0x06, k)


def _arg_lo(i):
    return 16 + 8 * i  # seccomp_data.args[i], low 32 bits (little-endian)


# What only the zygote (and a child before it locks itself down) may do: the zygote's filter lets these
# through, each child's own filter denies them (with clone of processes, signals to others and new limits).
ZYGOTE_ONLY = ("setsid", "prctl", "setrlimit", "pidfd_open")


def _head():
    return [_ld(4), _jeq(AUDIT_ARCH_X86_64, 1, 0), _ret(RET_KILL), _ld(0),
            (0x35, 0, 1, 0x40000000), _ret(RET_EPERM)]  # x32 ABI: jge 0x40000000


def zygote_seccomp_program():
    """The BPF program (list of (code, jt, jf, k)) that the zygote installs on itself once, inherited by
    every child: DENY_X86_64 but ZYGOTE_ONLY, clone3 (ENOSYS), and opening files for writing."""
    prog = _head()
    for nr in sorted(nr for name, nr in DENY_X86_64.items() if name not in ZYGOTE_ONLY):
        prog += [_jeq(nr, 0, 1), _ret(RET_EPERM)]
    prog += [_jeq(NR_CLONE3, 0, 1), _ret(RET_ENOSYS)]  # glibc then falls back to clone
    # open/openat: read-only.
    for nr, arg in ((NR_OPEN, 1), (NR_OPENAT, 2)):
        prog += [_jeq(nr, 0, 4), _ld(_arg_lo(arg)), _jset(OPEN_WRITE_FLAGS, 0, 1), _ret(RET_EACCES),
                 _ret(RET_ALLOW)]
    prog.append(_ret(RET_ALLOW))
    return prog


def child_seccomp_program(own_pid):
    """The BPF program that a child whose pid is `own_pid` stacks on the zygote's: ZYGOTE_ONLY, clone of
    anything but threads, signals to other processes, setting limits. Both together: the child's policy."""
    prog = _head()
    for name in ZYGOTE_ONLY:
        prog += [_jeq(DENY_X86_64[name], 0, 1), _ret(RET_EPERM)]
    # clone: threads only.
    prog += [_jeq(NR_CLONE, 0, 4), _ld(_arg_lo(0)), _jset(CLONE_THREAD, 0, 1), _ret(RET_ALLOW), _ret(RET_EPERM)]
    # kill: own pid, own group (0 or -pid) only.
    neg = (-own_pid) & 0xFFFFFFFF
    prog += [_jeq(NR_KILL, 0, 6), _ld(_arg_lo(0)), _jeq(own_pid, 2, 0), _jeq(0, 1, 0), _jeq(neg, 0, 1),
             _ret(RET_ALLOW), _ret(RET_EPERM)]
    prog += [_jeq(NR_TGKILL, 0, 4), _ld(_arg_lo(0)), _jeq(own_pid, 0, 1), _ret(RET_ALLOW), _ret(RET_EPERM)]
    # prlimit64: reading limits (new_limit == NULL) only.
    prog += [_jeq(NR_PRLIMIT64, 0, 6), _ld(_arg_lo(2)), _jeq(0, 0, 3), _ld(_arg_lo(2) + 4), _jeq(0, 0, 1),
             _ret(RET_ALLOW), _ret(RET_EPERM)]
    prog.append(_ret(RET_ALLOW))
    return prog


class _Filter:
    """A BPF program in memory, ready for prctl(PR_SET_SECCOMP)."""

    def __init__(self, prog):
        raw = b"".join(struct.pack("<HBBI", *ins) for ins in prog)
        self.buf = ctypes.create_string_buffer(raw, len(raw))

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        self.fprog = SockFprog(len(prog), ctypes.addressof(self.buf))
        self.address = ctypes.addressof(self.fprog)

    def install(self, no_new_privs=True):
        if no_new_privs and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self.address, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


class PreparedSeccomp(_Filter):
    """The child's filter assembled once in the zygote; a child only patches in its pid and installs it
    (no_new_privs is already set: the zygote set it to install its own filter)."""

    SENTINEL = 0x7FFFFF01

    def __init__(self):
        prog = child_seccomp_program(self.SENTINEL)
        super().__init__(prog)
        neg = (-self.SENTINEL) & 0xFFFFFFFF
        self.own = [8 * i + 4 for i, ins in enumerate(prog) if ins[3] == self.SENTINEL]
        self.negs = [8 * i + 4 for i, ins in enumerate(prog) if ins[3] == neg]

    def install_for(self, own_pid):
        for offset in self.own:
            struct.pack_into("<I", self.buf, offset, own_pid)
        for offset in self.negs:
            struct.pack_into("<I", self.buf, offset, (-own_pid) & 0xFFFFFFFF)
        self.install(no_new_privs=False)


def install_zygote_seccomp():
    _Filter(zygote_seccomp_program()).install()


def install_seccomp(own_pid):
    """Both filters, as a child has them: the policy of a child whose pid is `own_pid`."""
    install_zygote_seccomp()
    PreparedSeccomp().install_for(own_pid)


# -------------------------------------------------------------------------------------------- landlock

LL_READ = (1 << 0) | (1 << 2) | (1 << 3)  # EXECUTE, READ_FILE, READ_DIR
LL_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)


def install_landlock(read_paths):
    """Restricts this process and its children to reading `read_paths` (no writes anywhere)."""
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return False
    handled = (1 << 13) - 1
    if abi >= 2:
        handled |= 1 << 13
    if abi >= 3:
        handled |= 1 << 14
    if abi >= 5:
        handled |= 1 << 15
    attr = struct.pack("<Q", handled)
    fd = libc.syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if fd < 0:
        return False
    try:
        for path in read_paths:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                import stat as _stat
                rights = LL_READ if _stat.S_ISDIR(os.fstat(pfd).st_mode) else LL_READ & LL_FILE_RIGHTS
                rule = struct.pack("<Qi", rights, pfd)
                if libc.syscall(445, fd, 1, ctypes.c_char_p(rule), 0) != 0:
                    return False
            finally:
                os.close(pfd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(446, fd, 0) == 0
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------------- encoding

class EncodeError(Exception):
    pass


TAGS = ("__complex__", "__float__", "__tuple__", "__dict__")
_NUMBERS = frozenset({int, float, bool})
_set = set
_map = map
_fast_dumps = json.JSONEncoder(allow_nan=True, separators=(",", ":"), check_circular=False).encode


def make_encoder(pkg_name, plain, value_modules=()):
    """An encoder of values to JSON text that trusts exact types only (see the module docstring); values of
    the package, and of `value_modules` (NumPy's in the numpy mode), go through `plain`."""
    own = (pkg_name, *value_modules)

    def enc_float(v):
        if v != v:
            return '{"__float__":"nan"}'
        if v in (float("inf"), float("-inf")):
            return '{"__float__":"%s"}' % ("inf" if v > 0 else "-inf")
        return _float_repr(v)

    def enc_items(v, depth, head, tail):
        # Rows of exact ints, floats and bools go through the C encoder in one call (NaN and infinities
        # then appear as the tokens NaN, Infinity, -Infinity, which Python's json reads back).
        if _set(_map(_type, v)) <= _NUMBERS:
            return head + _fast_dumps(v)[1:-1] + tail
        return head + ",".join([enc(x, depth + 1) for x in v]) + tail

    def is_package_type(t):
        mod = getattr(t, "__module__", None)
        if _type(mod) is not _str:
            return False
        for m in own:  # noqa: SIM110 - no builtin calls here, as elsewhere in the encoder
            if mod == m or mod.startswith(m + "."):
                return True
        return False

    def enc(v, depth):
        if depth > MAX_DEPTH:
            raise EncodeError("result nested too deeply")
        t = _type(v)
        if v is None:
            return "null"
        if t is bool:
            return "true" if v else "false"
        if t is int:
            return _int_repr(v)
        if t is float:
            return enc_float(v)
        if t is complex:
            return '{"__complex__":[' + enc_float(v.real) + "," + enc_float(v.imag) + "]}"
        if t is str:
            return _enc_str(v)
        if t is list:
            return enc_items(v, depth, "[", "]")
        if t is tuple:
            return enc_items(v, depth, '{"__tuple__":[', "]}")
        if t is dict:
            items = list(dict.items(v))
            if all(_type(k) is _str for k, _ in items) and not (_len(items) == 1 and items[0][0] in TAGS):
                return "{" + ",".join([_enc_str(k) + ":" + enc(x, depth + 1) for k, x in items]) + "}"
            pairs = ["[" + enc(k, depth + 1) + "," + enc(x, depth + 1) + "]" for k, x in items]
            return '{"__dict__":[' + ",".join(pairs) + "]}"
        if plain is not None and is_package_type(t):
            converted = plain(v)
            if _type(converted) is t:
                raise EncodeError(f"cannot convert {t.__name__} to plain data")
            return enc(converted, depth + 1)
        raise EncodeError(f"unsupported result type {t.__module__}.{t.__qualname__}")

    return enc


# ------------------------------------------------------------------------------------------ the child

class Child:
    """Runs one job inside a freshly forked child; never returns.

    What is the same for every job is made once in the zygote and inherited: the child's seccomp filter
    (its pid patched in), the program's own builtins module and __main__, the output stream, the
    namespace that test inputs are evaluated in. Children only use them; the zygote never does.
    """

    def __init__(self, cfg, pkg, encoder):
        self.cfg = cfg
        self.pkg = pkg
        self.encoder = encoder
        self.wire = _Wire(cfg["wire"])
        self.seccomp = PreparedSeccomp() if cfg.get("seccomp") else None
        # The program gets its own __main__ and its own copy of the builtins module: patching them changes
        # nothing for the harness, the package or the standard library, which keep the real ones.
        self.own_builtins = types.ModuleType("builtins")
        self.own_builtins.__dict__.update(builtins.__dict__)
        self.main = types.ModuleType("__main__")
        self.main.__dict__["__builtins__"] = self.own_builtins
        self.input_env = {"__builtins__": builtins, cfg["package"]: pkg, "nan": float("nan"), "inf": float("inf"),
                          "__args__": lambda *a, **k: (a, k)}
        # The program's streams. The output stream is made on fd 1 while fd 1 is a pipe, as the child's
        # will be (a stream remembers what its file was: seekable or not, its block size).
        read_end, write_end = os.pipe()
        saved = os.dup(1)
        os.dup2(write_end, 1)
        try:
            self.out = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace")
        finally:
            os.dup2(saved, 1)
            for fd in (saved, read_end, write_end):
                os.close(fd)
        # the original's sandbox captured stderr apart from stdout (its reward fails any output there)
        self.err = _ErrSink() if cfg.get("semantics") == "original" else None
        self.stdin = io.StringIO("")

    def lock_down(self, fds, cpu, mem):
        os.setsid()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        job_r, out_w, res_w = fds
        for target, fd in ((0, job_r), (1, out_w), (2, out_w), (3, res_w)):
            os.dup2(fd, target, inheritable=False)
        os.closerange(4, 1 << 16)
        for res, value in ((resource.RLIMIT_AS, (mem, mem)), (resource.RLIMIT_CPU, (cpu, cpu + 1)),
                           (resource.RLIMIT_FSIZE, (0, 0)), (resource.RLIMIT_NOFILE, (32, 32)),
                           (resource.RLIMIT_CORE, (0, 0))):
            resource.setrlimit(res, value)
        if self.seccomp is not None:
            self.seccomp.install_for(os.getpid())
        elif os.getuid() != 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        sys.addaudithook(_audit_hook)

    def run(self, fds, cpu, mem):
        try:
            self.lock_down(fds, cpu, mem)
        except BaseException:
            _os_exit(70)
        try:
            self.serve()
        except BaseException as exc:  # a harness failure: say why on the output pipe
            try:
                _os_write(1, ("sandbox harness error: " + _tb(exc)).encode("utf-8", "replace"))
            except BaseException:
                pass
            _os_exit(71)
        _os_exit(0)

    def serve(self):
        nonce, printed, entry, code, inputs = self.wire.read_job(_read_all(0))
        write = _frame_writer(nonce)
        out, err = self.out, self.err
        sys.stdout, sys.stderr = out, err or out
        sys.stdin = self.stdin
        calls = [self.parse_input(compiled, text) for compiled, text in inputs]
        try:
            self.execute(code, entry, printed, calls, write)
        finally:
            try:
                out.flush()
            except BaseException:  # the program may have closed its output
                pass
            if err is not None:
                write({"stderr": err.text()})

    def execute(self, code, entry, printed, calls, write):
        sys.modules["builtins"] = self.own_builtins
        sys.modules["__main__"] = self.main
        ns = self.main.__dict__
        linecache.cache["<solution>"] = (len(code), None, code.splitlines(True), "<solution>")  # tracebacks
        try:
            _exec(_compile(code, "<solution>", "exec"), ns)
        except BaseException as exc:  # the program's own failure, reported
            if not entry and _isinstance(exc, SystemExit) and exc.code in (None, 0):
                write({"done": True})  # a script that ends with sys.exit(0) ended normally
                return
            write({"module_error": _describe(exc), "traceback": _tb(exc, skip=1), "memory": _is_memory(exc)})
            return
        self.want_printed = printed
        if entry:
            fn = ns.get(entry)
            if not callable(fn):
                write({"module_error": f"NameError: entry point '{entry}' is not defined", "traceback": "",
                       "memory": False})
                return
            for i, call in enumerate(calls):
                write(self.run_case(i, fn, call))
        write({"done": True})

    def parse_input(self, compiled, text):
        """The (args, kwargs) of one test input: `compiled` is the judge's compile() of the same call, as
        marshal data (None: the judge could not compile it, and compiling it here gives the error)."""
        try:
            if compiled is None:
                compiled = _compile(f"__args__({text})", "<input>", "eval")
            else:
                compiled = _marshal_loads(compiled)
            return _eval(compiled, self.input_env.copy())
        except BaseException as exc:
            return exc

    def run_case(self, i, fn, call):
        if _isinstance(call, BaseException):
            return {"i": i, "ok": False, "error": "bad test input: " + _describe(call), "memory": False}
        args, kwargs = call
        try:
            value = fn(*args, **kwargs)
            text = self.encoder(value, 0)
            printed = _str(value)[:MAX_PRINTED] if self.want_printed else None
        except BaseException as exc:
            return {"i": i, "ok": False, "error": _describe(exc), "memory": _is_memory(exc)}
        return {"i": i, "ok": True, "value": text, "printed": printed}


class _Wire:
    """The binary messages between the judge and the zygote, and the job a child reads from its pipe;
    their struct formats come from the judge (sandbox.py, WIRE), in the zygote's configuration."""

    def __init__(self, formats):
        self.job = struct.Struct(formats["job"])
        self.cancel = struct.Struct(formats["cancel"])
        self.report = struct.Struct(formats["report"])
        self.job_head = struct.Struct(formats["job_head"])
        self.input_head = struct.Struct(formats["input_head"])

    def read_job(self, raw):
        """nonce, printed, entry, code, [(compiled or None, text)] from the bytes of a job."""
        view = memoryview(raw)
        nonce, printed, n_entry, n_code, n_inputs = self.job_head.unpack_from(view)
        at = self.job_head.size
        entry = _str(view[at:at + n_entry], "utf-8", "surrogatepass")
        at += n_entry
        code = _str(view[at:at + n_code], "utf-8", "surrogatepass")
        at += n_code
        inputs = []
        for _ in range(n_inputs):
            n_compiled, n_text = self.input_head.unpack_from(view, at)
            at += self.input_head.size
            compiled = view[at:at + n_compiled].tobytes() if n_compiled else None
            at += n_compiled
            inputs.append((compiled, _str(view[at:at + n_text], "utf-8", "surrogatepass")))
            at += n_text
        return nonce, bool(printed), entry, code, inputs


def _describe(exc):
    text = "".join(_fmt_exc_only(_type(exc), exc)).strip()
    return text[:2000]


def _tb(exc, skip=0):
    tb = exc.__traceback__
    for _ in range(skip):  # the harness's own frames
        tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb
    return "".join(_fmt_exc(_type(exc), exc, tb))[-8000:]


def _is_memory(exc):
    return _isinstance(exc, MemoryError)


class _ErrSink(io.TextIOBase):
    """The program's stderr when it is kept apart from stdout: its first ERR_KEEP characters, then a count."""

    ERR_KEEP = 65536

    def __init__(self):
        self.parts, self.kept, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        text = _str(text)
        room = self.ERR_KEEP - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self):
        more = f"\n[... {self.dropped} more characters]" if self.dropped else ""
        return "".join(self.parts) + more


def _frame_writer(nonce):
    """Writes one result line; serialises flat frames itself (no json module the program could patch)."""

    def scalar(v):
        t = _type(v)
        if v is None:
            return "null"
        if t is bool:
            return "true" if v else "false"
        if t is int:
            return _int_repr(v)
        return _enc_str(_str(v))

    def write(obj):
        parts = []
        for key, value in dict.items(obj):
            parts.append(_enc_str(key) + ":" + (value if key == "value" else scalar(value)))
        data = nonce + b" {" + ",".join(parts).encode("ascii") + b"}\n"
        view = memoryview(data)
        while view:
            try:
                n = _os_write(3, view)
            except InterruptedError:
                continue
            except OSError:
                _os_exit(72)
            view = view[n:]

    return write


def _read_all(fd):
    chunks = []
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            return b"".join(chunks)
        chunks.append(data)


_BLOCKED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
    "subprocess.Popen", "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function", "ctypes.addressof",
    "ctypes.create_string_buffer", "ctypes.string_at", "ctypes.wstring_at", "ctypes.seh_exception",
    "os.chmod", "os.chown", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link",
    "os.truncate", "shutil.rmtree", "signal.pthread_kill", "sys.setprofile", "sys.settrace",
    "sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "function.__new__", "code.__new__",
})
_WRITE_MODES = frozenset("wax+")


def _audit_hook(event, args):
    """Python-level layer (in front of seccomp): refuses process, network, ctypes and write events."""
    if event == "open":
        if _type(args[0]) is int:  # wrapping an fd this process already has
            return
        mode = args[1] if _len(args) > 1 else "r"
        flags = args[2] if _len(args) > 2 else 0
        if (_type(mode) is _str and (_WRITE_MODES & set(mode))) or \
                (_type(flags) is int and flags & OPEN_WRITE_FLAGS):
            raise PermissionError("sandbox: writing files is not allowed")
        return
    if event in _BLOCKED_EVENTS:
        raise PermissionError(f"sandbox: '{event}' is not allowed")


# ------------------------------------------------------------------------------------------ the zygote

class Zygote:
    """Imports the package, locks itself down, then forks a child per job (struct messages, a bare poll
    loop and few objects: each page it writes while a child shares it costs a copy)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.ctl = socket.socket(fileno=cfg["ctl_fd"])
        self.ctl_fd = self.ctl.fileno()
        self.children = {}  # pidfd -> [pid, job_id, deadline, timed_out]
        self.poller = select.poll()

    def warm_up(self):
        sys.path[:0] = self.cfg["paths"]
        os.environ["SEBENCH_PACKAGE_SEMANTICS"] = self.cfg.get("semantics", "sebench")  # read at import
        pkg = __import__(self.cfg["package"])
        plain = getattr(pkg, "_plain", None)
        import pkgutil
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            try:
                __import__(info.name)
            except Exception:  # an optional submodule; the package decides
                pass
        for name in PRELOAD + (PRELOAD_NUMPY if "numpy" in sys.modules else ()):
            try:
                __import__(name)
            except ImportError:
                pass
        encoder = make_encoder(self.cfg["package"], plain, tuple(self.cfg.get("value_modules", ())))
        self.child = Child(self.cfg, pkg, encoder)
        self.wire = self.child.wire
        layers = list(self.cfg.get("layers_outside", []))
        if os.getuid() == 0 and self.cfg.get("drop_uid"):
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        layers.append(f"uid:{os.getuid()}")
        if self.cfg.get("landlock") and install_landlock(self.cfg["landlock"]):
            layers.append("landlock")
        if self.cfg.get("seccomp"):
            install_zygote_seccomp()
            layers.append("seccomp")
        layers += ["rlimits", "audit-hook"]
        # Objects alive now are never collected: the children's garbage collector then leaves them alone
        # instead of touching (and copying) every page of the inherited heap.
        gc.collect()
        gc.freeze()
        return layers

    def serve(self):
        layers = self.warm_up()
        self.ctl.send(json.dumps({"ready": True, "layers": layers, "pid": os.getpid()}).encode())
        poll = self.poller.poll
        self.poller.register(self.ctl_fd, select.POLLIN)
        while True:
            deadlines = [c[2] for c in self.children.values() if not c[3]]  # of children not killed yet
            timeout = max(0.0, min(deadlines) - _now()) * 1000 + 1 if deadlines else None  # ms
            for fd, _event in poll(timeout):
                if fd == self.ctl_fd:
                    if not self.receive():
                        return self.shutdown()
                else:
                    self.reap(fd)
            if self.children:
                self.enforce_deadlines()

    def receive(self):
        try:
            msg, fds, _flags, _addr = _recv_fds(self.ctl, 64, 3)
        except OSError:
            return False
        if not msg:
            return False
        if msg[:1] == b"c":  # the judge no longer wants this job: it dies at the next deadline check
            for fd in fds:
                os.close(fd)
            (job_id,) = self.wire.cancel.unpack(msg[1:])
            for entry in self.children.values():
                if entry[1] == job_id:
                    entry[2] = _now()
            return True
        job_id, timeout, cpu, mem = self.wire.job.unpack(msg[1:])
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            self.report(job_id, REPORT_ERROR, len(fds))
            return True
        pid = os.fork()
        if pid == 0:
            self.in_child(fds, cpu, mem)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = [pid, job_id, _now() + timeout, False]
        self.poller.register(pidfd, select.POLLIN)
        return True

    def in_child(self, fds, cpu, mem):
        # Objects owning zygote fds must never be finalized in the child: a garbage-collected socket or
        # poll object would close an fd number that now belongs to the child's own pipes.
        _KEEP.extend([self.ctl, self.poller])
        try:
            self.ctl.detach()
        except OSError:
            pass
        self.child.run(fds, cpu, mem)

    def reap(self, pidfd):
        pid, job_id, _deadline, timed_out = self.children.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        if os.WIFSIGNALED(status):
            how, code = REPORT_SIGNAL, os.WTERMSIG(status)
        else:
            how, code = REPORT_EXIT, os.WEXITSTATUS(status)
        self.report(job_id, how, code, timed_out, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)

    def enforce_deadlines(self):
        now = _now()
        for entry in self.children.values():
            if not entry[3] and now >= entry[2]:
                entry[3] = True
                for kill in (os.killpg, os.kill):
                    try:
                        kill(entry[0], signal.SIGKILL)
                    except OSError:
                        pass

    def report(self, job_id, how, code, timed_out=False, maxrss_kb=0, cpu_s=0.0):
        try:
            self.ctl.send(b"r" + self.wire.report.pack(job_id, how, code, timed_out, maxrss_kb, cpu_s))
        except OSError:
            self.shutdown()

    def shutdown(self):
        for pid, *_ in self.children.values():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        _os_exit(0)


# How a job ended, in a report: its exit code, the signal that killed it, or no job (code: fds received).
REPORT_EXIT, REPORT_SIGNAL, REPORT_ERROR = 0, 1, 2
_KEEP = []
_now = time.monotonic
_recv_fds = socket.recv_fds


def main():
    cfg = json.loads(sys.argv[1])
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    try:
        Zygote(cfg).serve()
    except Exception:
        traceback.print_exc()
        _os_exit(3)


if __name__ == "__main__":
    main()

"""The sandbox does once what is the same for every program (bench/judge_throughput.py measures why): the
zygote's own seccomp filter (each child stacks a small one with its pid), the child's streams, builtins and
input namespace, the compiled test inputs (marshal data from the judge). Each test checks that a program
still meets what it met when these were made per program, and that the two filters together are the policy
that one filter per child used to be."""

from __future__ import annotations

import errno
import importlib.util
import os
import sys
import traceback

import pytest

from sebench.judge.sandbox import ZYGOTE, Sandbox

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux sandbox")


@pytest.fixture(params=["strongest", "fallback"])
def sb(request):
    return request.getfixturevalue("sandbox" if request.param == "strongest" else "fallback_sandbox")


@pytest.fixture(scope="module")
def zygote():
    spec = importlib.util.spec_from_file_location("zygote_filters_under_test", ZYGOTE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------ seccomp filters

def _run_bpf(prog, nr, args, arch):
    """Classic BPF as seccomp runs it, for the instructions the filters use."""
    data = {0: nr, 4: arch}
    for i, value in enumerate(args):
        data[16 + 8 * i] = value & 0xFFFFFFFF
        data[20 + 8 * i] = (value >> 32) & 0xFFFFFFFF
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        pc += 1
        if code == 0x20:  # ld [k]
            acc = data[k]
        elif code == 0x06:  # ret k
            return k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset
            hit = acc == k if code == 0x15 else acc >= k if code == 0x35 else bool(acc & k)
            pc += jt if hit else jf
        else:
            raise AssertionError(f"instruction {code:#x} not modelled")


def _stacked(results):
    """The kernel's choice among stacked filters: the strongest action; on a tie, the newest filter's."""
    rank = {0x80000000: 0, 0x00000000: 1, 0x00030000: 2, 0x00050000: 3, 0x7FC00000: 4, 0x7FF00000: 5,
            0x7FFC0000: 6, 0x7FFF0000: 7}
    best = None
    for value in results:  # oldest first
        if best is None or rank[value & 0xFFFF0000] <= rank[best & 0xFFFF0000]:
            best = value
    return best


def _policy(z, nr, args, arch, pid):
    """A child's policy, written out rule by rule (the sandbox module's docstring)."""
    if arch != z.AUDIT_ARCH_X86_64:
        return z.RET_KILL
    if nr >= 0x40000000 or nr in z.DENY_X86_64.values():
        return z.RET_EPERM
    if nr == z.NR_CLONE3:
        return z.RET_ENOSYS
    if nr == z.NR_CLONE:
        return z.RET_ALLOW if args[0] & z.CLONE_THREAD else z.RET_EPERM
    if nr == z.NR_KILL:
        return z.RET_ALLOW if args[0] & 0xFFFFFFFF in (pid, 0, -pid & 0xFFFFFFFF) else z.RET_EPERM
    if nr == z.NR_TGKILL:
        return z.RET_ALLOW if args[0] == pid else z.RET_EPERM
    if nr in (z.NR_OPEN, z.NR_OPENAT):
        flags = args[1] if nr == z.NR_OPEN else args[2]
        return z.RET_EACCES if flags & z.OPEN_WRITE_FLAGS else z.RET_ALLOW
    if nr == z.NR_PRLIMIT64:
        return z.RET_ALLOW if args[2] == 0 else z.RET_EPERM
    return z.RET_ALLOW


def test_the_zygote_and_child_filters_together_are_the_childs_policy(zygote):
    pid = 4321
    both = [zygote.zygote_seccomp_program(), zygote.child_seccomp_program(pid)]
    arg_sets = [(0, 0, 0), (zygote.CLONE_THREAD, 0, 0), (pid, 9, 0), (-pid, 9, 0), (pid + 1, 9, 0), (1, 9, 0),
                (0, 0, os.O_WRONLY), (0, os.O_RDWR, 0), (0, os.O_CREAT, os.O_TRUNC), (0, 0, 0x7FFF0000),
                (0, 0, 1 << 32)]
    checked = 0
    for arch in (zygote.AUDIT_ARCH_X86_64, 0x40000003):
        for nr in [*range(460), 0x40000000 + 59]:
            for args in arg_sets:
                got = _stacked([_run_bpf(prog, nr, args, arch) for prog in both])
                assert got == _policy(zygote, nr, args, arch, pid), (nr, args, hex(arch))
                checked += 1
    assert checked > 10_000


def test_the_zygote_filter_leaves_the_zygote_its_own_work(zygote):
    prog = zygote.zygote_seccomp_program()
    run = lambda name, args=(0, 0, 0): _run_bpf(prog, zygote.DENY_X86_64.get(name, name), args,  # noqa: E731
                                                zygote.AUDIT_ARCH_X86_64)
    for name in zygote.ZYGOTE_ONLY:
        assert run(name) == zygote.RET_ALLOW, name
    assert run(zygote.NR_CLONE) == zygote.RET_ALLOW  # fork
    assert run(zygote.NR_KILL, (12345, 9, 0)) == zygote.RET_ALLOW  # killing a child at its deadline
    for name in ("execve", "socket", "fork", "ptrace", "unshare", "mount", "setuid"):
        assert run(name) == zygote.RET_EPERM, name


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="seccomp filter is x86_64 only")
def test_a_child_meets_the_denials_of_both_filters(sb):
    r = sb.run("""
import os, errno
def solve(a):
    found = []
    for name, call in (("fork", os.fork), ("setsid", os.setsid), ("kill", lambda: os.kill(os.getppid(), 0)),
                       ("pidfd", lambda: os.pidfd_open(os.getppid()))):
        try:
            call()
            found.append(name + " allowed")
        except OSError as exc:
            found.append(name + " " + errno.errorcode.get(exc.errno, "?"))
    return found
""", "solve", ["a=0"], 3.0)
    assert r.status == "ok" and r.cases[0].ok, r
    assert not any(item.endswith("allowed") for item in r.cases[0].value), r.cases[0].value
    assert r.cases[0].value[3] == "pidfd " + errno.errorcode[errno.EPERM]  # the child's filter, not the hook


# -------------------------------------------------------------------------------- inputs and streams

def test_test_inputs_are_evaluated_one_by_one_as_before(sb):
    inputs = ["a=[1, 2]", "a=(x := 5)", "a=x", "a=", "a=[nan, inf]", "a=zwc.yitaf([1, 2])", "a='é\\n'",
              "a=[1,\n 2]", "b=2"]
    r = sb.run("def solve(a):\n    return repr(a)\n", "solve", inputs, 3.0)
    cases = r.cases
    assert [c.ok for c in cases] == [True, True, False, False, True, True, True, True, False], r
    assert cases[0].value == "[1, 2]" and cases[1].value == "5" and cases[4].value == "[nan, inf]"
    assert cases[5].value == "Qoravet([1, 2])" and cases[6].value == repr("é\n") and cases[7].value == "[1, 2]"
    assert "NameError" in cases[2].error  # each input has its own namespace: x is not left over
    try:
        compile("__args__(a=)", "<input>", "eval")
    except SyntaxError as exc:
        expected = "bad test input: " + "".join(traceback.format_exception_only(type(exc), exc)).strip()
    assert cases[3].error == expected
    assert "unexpected keyword argument 'b'" in cases[8].error


def test_large_inputs_still_work(sb):
    numbers = list(range(30_000))  # more text than the judge keeps compiled
    r = sb.run("def solve(a):\n    return sum(a)\n", "solve", [f"a={numbers}", "a=[1]"], 5.0)
    assert r.status == "ok" and [c.value for c in r.cases] == [sum(numbers), 1], r


def test_the_program_streams_behave_as_pipes(sb):
    r = sb.run("""
import sys
def solve(a):
    print("hello")
    return [sys.stdout.seekable(), sys.stdout.isatty(), sys.stdout.encoding, sys.stdout.errors,
            sys.stderr is sys.stdout, sys.stdin.read(), sys.stdout.writable()]
""", "solve", ["a=0"], 3.0)
    assert r.status == "ok" and r.cases[0].value == [False, False, "utf-8", "replace", True, "", True], r
    assert r.stdout == "hello\n"


def test_many_programs_one_after_another(mini_instance):
    """Job ids run past one byte (the zygote's reports are binary): every one still gets its own report."""
    with Sandbox(mini_instance / "package", "zwc", workers=2, bwrap=False) as sandbox:
        results = [sandbox.run(f"def f():\n    return {i}\n", "f", [""], 3.0) for i in range(300)]
    assert [r.cases[0].value for r in results] == list(range(300))
    assert all(r.status == "ok" for r in results) and sandbox.restarts == 0

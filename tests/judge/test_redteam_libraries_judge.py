"""Hostile programs on a built more-itertools instance: each reaches the original library (or the builtins
it would need to) without an underscore attribute, getattr or an import, computes the task's answer with
the original's function and calls the package only so that the data-flow rule is met. Each must be
refused before it runs, under bubblewrap and without it."""

from __future__ import annotations

import re

import pytest

from sebench.instance import Instance
from sebench.judge import Judge
from sebench.judge.static import Rules, check_code

from .conftest import fenced

# Each escape defines BUILTINS, the builtins' dict reached without an underscore name, or `orig(name)`, the
# original library's function of that name.
ESCAPES = {
    "own generator frame": '''
def gen():
    yield 1

BUILTINS = gen().gi_frame.f_builtins
''',
    "coroutine frame": '''
async def co():
    return 1

c = co()
BUILTINS = c.cr_frame.f_builtins
c.close()
''',
    "traceback of an exception given to __exit__": '''
BOX = []

class Catch:
    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        BOX.append(tb.tb_frame.f_builtins)
        return True

with Catch():
    1 / 0
BUILTINS = BOX[0]
''',
    "string.Formatter resolving a dunder field": '''
import string

BOX = []

class Grab(string.Formatter):
    def format_field(self, value, spec):
        BOX.append(value)
        return ""

def probe():
    return 1

Grab().format("{0." + "_" * 2 + "builtins" + "_" * 2 + "}", probe)
BUILTINS = BOX[0]
''',
    "Formatter.get_field": '''
from string import Formatter

def probe():
    return 1

BUILTINS = Formatter().get_field("0." + "_" * 2 + "builtins" + "_" * 2, (probe,), {})[0]
''',
    "a class pattern's keyword reading a dunder attribute": '''
def probe():
    return 1

match probe:
    case object(__builtins__=found):
        BUILTINS = found
''',
    "a class pattern's keyword reading a frame": '''
def gen():
    yield 1

match gen():
    case object(gi_frame=object(f_builtins=found)):
        BUILTINS = found
''',
    "an allowed module's own import of sys": '''
import warnings

MEMBERS = dict(warnings.sys.modules["dataclasses"].inspect.getmembers(warnings.sys.modules["more" + "_" + "itertools"]))

def orig(name):
    return MEMBERS[name]
''',
    "an allowed module's own imports of sys and inspect, imported from it": '''
from dataclasses import inspect as look
from dataclasses import sys as system

def orig(name):
    return dict(look.getmembers(system.modules["more" + "_" + "itertools"]))[name]
''',
    "an allowed module reached through another one": '''
import typing

def orig(name):
    return dict(typing.sys.modules["dataclasses"].inspect.getmembers(typing.contextlib.sys.modules[
        "more" + "_" + "itertools"]))[name]
''',
    "a class pattern's positional field named by a built __match_args__": '''
class Always(type):
    def __instancecheck__(cls, instance):
        return True

Reader = Always("Reader", (), {"_" * 2 + "match" + "_" + "args" + "_" * 2: ("_" * 2 + "builtins" + "_" * 2,)})

def probe():
    return 1

match probe:
    case Reader(found):
        BUILTINS = found
''',
    "functools.update_wrapper copying a dunder attribute": '''
import functools

BOX = []

class Catch:
    def __setattr__(self, name, value):
        BOX.append(value)

def probe():
    return 1

functools.update_wrapper(Catch(), probe, ("_" * 2 + "builtins" + "_" * 2,), ())
BUILTINS = BOX[0]
''',
}

REFUSED = ("forbidden_access", "forbidden_import")


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("redteam-mi") / "instance"
    return Instance.open(build_instance(out, seed=3, task_sizes=TaskSizes(train=20, single=20, multiple=10),
                                        library="more-itertools"))


def _attack(instance: Instance, escape: str):
    """(task, program): the task's reference with every package call sent to the original instead."""
    task = instance.tasks("single_test")[0]
    functions = instance.mapping()["functions"]
    original = {public.rpartition(".")[2]: key.rpartition(".")[2] for key, public in functions.items()}
    package = instance.package_name
    guard = functions["more_itertools.all_equal"].rpartition(".")[2]
    body = re.sub(rf"\b{package}\.(\w+)\(", lambda m: f'orig("{original[m.group(1)]}")(', task.reference_solution)
    body = body.replace(f"def {task.entry_point}(", "def inner(")
    if "BUILTINS =" in escape:
        escape += ('MODULE = BUILTINS["_" * 2 + "import" + "_" * 2]("more" + "_" + "itertools")\n\n'
                   'def orig(name):\n    return BUILTINS["get" + "attr"](MODULE, name)\n')
    program = (f"import {package}\n{escape}\n"
               f"{body}\n\ndef {task.entry_point}(*args, **kwargs):\n"
               f"    if {package}.{guard}([1]):\n        return inner(*args, **kwargs)\n")
    return task, program


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_an_escape_to_the_builtins_is_refused_statically(instance, name):
    task, program = _attack(instance, ESCAPES[name])
    got = check_code(program, task.entry_point, Rules.of_instance(instance), task.selected_functions)
    assert got.verdict in REFUSED, (name, got)


@pytest.mark.parametrize("bwrap", [None, False], ids=["auto", "no-bwrap"])
def test_no_escape_gets_a_correct_verdict(instance, bwrap):
    items = [(_attack(instance, ESCAPES[name])[0], fenced(_attack(instance, ESCAPES[name])[1]), i)
             for i, name in enumerate(sorted(ESCAPES))]
    task = items[0][0]
    with Judge(instance, workers=2, timeout_s=5.0, bwrap=bwrap) as judge:
        verdicts = judge.judge_many(items)
        reference = judge.judge(task, fenced(task.reference_solution))
    assert all(v.verdict in REFUSED for v in verdicts), \
        [(name, v.verdict, v.detail.get("message")) for name, v in zip(sorted(ESCAPES), verdicts)]
    # the layers the escapes would have run under (each was judged correct under both before the rules held)
    assert reference.verdict == "correct" and ("bwrap" in reference.detail["layers"]) == (bwrap is None)


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_the_same_escapes_are_refused_for_a_numpy_package(mini_instance, name):
    program = (f"import zwc\n{ESCAPES[name]}\n"
               'MODULE = BUILTINS["_" * 2 + "import" + "_" * 2]("num" + "py")\n\n'
               "def solve(a):\n    return zwc.kocito(MODULE.asarray(a))\n")
    got = check_code(program, "solve", Rules.of_instance(Instance.open(mini_instance)), ["zwc.kocito"])
    assert got.verdict in REFUSED, (name, got)


@pytest.mark.parametrize("spelling", [
    'FIELD.format({package}.{function})',
    'str.format(FIELD, {package}.{function})',
    'FIELD.format_map({{"f": {package}.{function}}})',
    'FIELD.format',
])
def test_a_format_string_built_at_run_time_is_refused(instance, spelling):
    """"{0.__globals__[_S][words]}" built from pieces: the runtime's table, every original name with its public one."""
    task = instance.tasks("single_test")[0]
    public = instance.mapping()["functions"]["more_itertools.chunked"].rpartition(".")[2]
    call = spelling.format(package=instance.package_name, function=public)
    program = (f"import {instance.package_name}\n"
               'FIELD = "{0." + "_" * 2 + "globals" + "_" * 2 + "[" + "_" + "S][words]}"\n'
               f"{task.reference_solution}\nLEAK = {call}\n")
    got = check_code(program, task.entry_point, Rules.of_instance(instance), task.selected_functions)
    assert got.verdict == "forbidden_access", got
    literal = f'import {instance.package_name}\n{task.reference_solution}\nSHOWN = "{{:>4}}|{{0!r}}".format(3)\n'
    assert check_code(literal, task.entry_point, Rules.of_instance(instance), task.selected_functions).verdict is None


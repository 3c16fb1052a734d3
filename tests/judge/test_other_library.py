"""The judge on an instance of a library other than NumPy: every reference is correct; the original
library, its forbidden twins and each spelling of importing them are refused; the numpy mode is refused."""

from __future__ import annotations

import pytest
from other_library import REFERENCES, other_task, write_other_instance

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.judge import Judge
from sebench.judge.static import ALLOWED_MODULES, Rules, check_code

from .conftest import fenced


@pytest.fixture(scope="module")
def other_instance(tmp_path_factory):
    return write_other_instance(tmp_path_factory.mktemp("other-library"))


@pytest.fixture(scope="module")
def other_judge(other_instance):
    with Judge(other_instance, workers=2, timeout_s=5.0) as judge:
        yield judge


@pytest.mark.parametrize("bwrap", [None, False], ids=["auto", "no-bwrap"])
def test_every_reference_solution_is_correct(other_instance, bwrap):
    """The package imports the original inside the sandbox (bubblewrap's mounts, or landlock without it)."""
    items = [(other_task(t), fenced(REFERENCES[t][0]), 0) for t in REFERENCES]
    with Judge(other_instance, workers=2, timeout_s=5.0, bwrap=bwrap) as judge:
        verdicts = judge.judge_many(items)
    assert [(v.task_id, v.verdict) for v in verdicts] == [(t, "correct") for t in REFERENCES], \
        [v.detail for v in verdicts]
    assert ("bwrap" in verdicts[0].detail["layers"]) == (bwrap is None), verdicts[0].detail["layers"]


@pytest.mark.parametrize("program, verdict", [
    ("import more_itertools\ndef solve(values, n):\n    return list(more_itertools.first(values))", "forbidden_import"),
    ("import more_itertools as qx\ndef solve(values, n):\n    return qx.first(values)", "forbidden_import"),
    ("from more_itertools import first\ndef solve(values, n):\n    return first(values)", "forbidden_import"),
    ("from more_itertools.more import first\ndef solve(values, n):\n    return first(values)", "forbidden_import"),
    ("import more_itertools.recipes\ndef solve(values, n):\n    return 1", "forbidden_import"),
    ("import toolz\ndef solve(values, n):\n    return toolz.first(values)", "forbidden_import"),
    # a module of the allowlist that the library's mapping forbids
    ("import bisect, qel\ndef solve(values, n):\n    return qel.tarum(values, bisect.bisect(values, n))",
     "forbidden_import"),
    ("import importlib\ndef solve(values, n):\n    return importlib.import_module('more_itertools').first(values)",
     "forbidden_import"),
    ("def solve(values, n):\n    return __import__('more_itertools').first(values)", "forbidden_access"),
    ("import builtins\ndef solve(values, n):\n    return builtins.__import__('more_itertools').first(values)",
     "forbidden_import"),
    # the original through the package: a private or unlisted attribute
    ("import qel\ndef solve(values, n):\n    return qel._mi.first(values)", "forbidden_access"),
    ("import qel\ndef solve(values, n):\n    return qel.more_itertools.first(values)", "forbidden_access"),
    ("from qel import more_itertools\ndef solve(values, n):\n    return more_itertools.first(values)",
     "forbidden_access"),
])
def test_the_original_library_is_refused_however_it_is_imported(other_judge, program, verdict):
    got = other_judge.judge(other_task("head"), fenced(program))
    assert got.verdict == verdict, got.detail


def test_the_renamed_type_is_a_public_name_and_the_allowlist_loses_the_forbidden_modules(other_instance):
    rules = Rules.of_instance(Instance.open(other_instance))
    assert "qel.Wurad" in rules.public
    assert "bisect" in ALLOWED_MODULES and "bisect" not in rules.allowed_modules
    assert Rules.from_json(rules.to_json()) == rules  # a training view's rules file keeps the allowlist
    assert check_code("import heapq, qel\ndef solve(values, n):\n    return qel.tarum(heapq.nlargest(n, values))",
                      "solve", rules).verdict is None


def test_numpy_rules_keep_their_json_form(mini_instance):
    rules = Rules.of_instance(Instance.open(mini_instance))
    assert rules.allowed_modules == ALLOWED_MODULES and "allowed_modules" not in rules.to_json()


def test_the_numpy_mode_is_refused_for_another_library(other_instance):
    with pytest.raises(SebenchError, match="NumPy's instances only; this instance renames 'more-itertools'"):
        Judge(other_instance, library="numpy")

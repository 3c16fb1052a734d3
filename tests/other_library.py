"""A tiny hand-written instance of a non-NumPy library: package `qel` renaming three more-itertools
functions and one type, with the instance format of any library but NumPy (manifest "library", mapping
"module" and "forbidden_imports")."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from sebench.records import Task, write_records

PACKAGE_INIT = '''
import more_itertools as _mi

__all__ = ["bovix", "tarum", "lesop", "Wurad"]


class Wurad:
    def __init__(self, iterable):
        self._p = _mi.peekable(iterable)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._p)

    def vopa(self, default=None):
        return self._p.peek(default)


def bovix(iterable, n):
    return _mi.chunked(iterable, n)


def tarum(iterable, default=None):
    return _mi.first(iterable, default)


def lesop(iterable, n):
    return _mi.windowed(iterable, n)


def _plain(value):
    if isinstance(value, Wurad):
        return list(value._p)
    return value
'''

MAPPING = {
    "library": "more-itertools", "module": "more_itertools", "forbidden_imports": ["toolz", "bisect"],
    "package": "qel",
    "functions": {"more_itertools.chunked": "qel.bovix", "more_itertools.first": "qel.tarum",
                  "more_itertools.windowed": "qel.lesop"},
    "types": {"more_itertools.peekable": "qel.Wurad"},
}

REFERENCES = {  # task id -> (reference program, inputs, expected outputs, selected functions)
    "chunks": ("import qel\n\ndef solve(values, n):\n    return [list(c) for c in qel.bovix(values, n)]\n",
               ["values=[1, 2, 3, 4, 5], n=2", "values=[], n=3"], [[[1, 2], [3, 4], [5]], []], ["qel.bovix"]),
    "head": ("import qel\n\ndef solve(values, n):\n    return qel.tarum(values[n:], -1)\n",
             ["values=[4, 5, 6], n=1", "values=[4], n=3"], [5, -1], ["qel.tarum"]),
    "windows": ("from qel import lesop, tarum\n\ndef solve(values, n):\n"
                "    return [sum(w) for w in lesop(values, n)] + [tarum(values, 0)]\n",
                ["values=[1, 2, 3, 4], n=2", "values=[7], n=1"], [[3, 5, 7, 1], [7, 7]], ["qel.lesop", "qel.tarum"]),
    "peek": ("import qel\n\ndef solve(values, n):\n    p = qel.Wurad(values)\n    return [p.vopa(n)] + list(p)\n",
             ["values=[3, 1], n=0", "values=[], n=9"], [[3, 3, 1], [9]], ["qel.Wurad"]),
}


def other_task(task_id: str, split: str = "single_test") -> Task:
    program, inputs, expected, selected = REFERENCES[task_id]
    return Task(task_id=task_id, split=split, kind="single" if len(selected) == 1 else "multiple",
                query=f"Solve {task_id}.", function_name="def solve(values, n):", entry_point="solve",
                example=f"solve({inputs[0]})", test_cases=[{"input": i, "output": repr(e)} for i, e in zip(inputs, expected)],
                right_exe_result="#".join(repr(e) for e in expected), selected_functions=selected,
                reference_solution=program, expected=expected)


def write_other_instance(root: Path) -> Path:
    """The instance folder: package, manifest, mapping, and every reference as a single_test task."""
    pkg = root / "package" / "qel"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(PACKAGE_INIT))
    (root / "private").mkdir(exist_ok=True)
    (root / "private" / "mapping.json").write_text(json.dumps(MAPPING))
    (root / "manifest.json").write_text(json.dumps({"package": "qel", "seed": 0, "library": "more-itertools",
                                                    "library_version": "10.8.0"}))
    write_records(root / "datasets/test/single_test.jsonl", [other_task(t) for t in REFERENCES])
    return root


def _surface():
    from sebench.libraries import ApiFunction

    return tuple(ApiFunction(key) for key in MAPPING["functions"])


def _toy_library():
    from sebench.libraries import Library

    return Library(name="toy-itertools", module="more_itertools", surface=_surface, templates=lambda: (),
                   doc=lambda key: "", version=lambda: "10.8.0", forbidden_imports=("toolz", "bisect"))


TOY = _toy_library()  # `--library other_library:TOY`: a library given through the contract alone (no tasks)

"""A tiny hand-written instance (package zwc with an array type, a linalg module and `_plain`)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from sebench.records import Task

PACKAGE_INIT = '''
import numpy as _np
from . import rfx

__all__ = ["Qoravet", "yitaf", "kocito", "sumo", "dabel", "rfx"]


class Qoravet:
    def __init__(self, data):
        self._a = _np.asarray(data)

    def __repr__(self):
        return "Qoravet(" + repr(self._a.tolist()) + ")"

    def __str__(self):
        return str(self._a)


def _u(x):
    return x._a if isinstance(x, Qoravet) else _np.asarray(x)


def _out(r):
    return Qoravet(r) if isinstance(r, _np.ndarray) else r.item() if isinstance(r, _np.generic) else r


def yitaf(x):
    return Qoravet(x)


def kocito(a):
    return _out(_np.mean(_u(a)))


def sumo(a, axis=None):
    return _out(_np.sum(_u(a), axis=axis))


def dabel(a, b):
    return _out(_np.add(_u(a), _u(b)))


def _plain(value):
    if isinstance(value, Qoravet):
        return value._a.tolist()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
'''

RFX = '''
import numpy as _np


def quvohe(a):
    from . import Qoravet, _u
    return Qoravet(_np.linalg.inv(_u(a)))
'''

MAPPING = {
    "package": "zwc", "linalg": "rfx", "array_type": "Qoravet", "constructor": "zwc.yitaf",
    "functions": {"numpy.array": "zwc.yitaf", "numpy.mean": "zwc.kocito", "numpy.sum": "zwc.sumo",
                  "numpy.add": "zwc.dabel", "numpy.linalg.inv": "zwc.rfx.quvohe",
                  "numpy.put": "zwc.rexa"},
}


def write_instance(root: Path, tasks: list[Task] | None = None) -> Path:
    pkg = root / "package" / "zwc"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(PACKAGE_INIT))
    (pkg / "rfx.py").write_text(textwrap.dedent(RFX))
    (root / "private").mkdir(exist_ok=True)
    (root / "private" / "mapping.json").write_text(json.dumps(MAPPING))
    (root / "manifest.json").write_text(json.dumps({"package": "zwc", "linalg": "rfx", "seed": 0}))
    if tasks:
        from sebench.records import write_records

        for split in ("train", "single_test", "multiple_test"):
            rows = [t for t in tasks if t.split == split]
            if rows:
                path = root / {"train": "datasets/train/train.jsonl", "single_test": "datasets/test/single_test.jsonl",
                               "multiple_test": "datasets/test/multiple_test.jsonl"}[split]
                write_records(path, rows)
    return root


def make_task(task_id="t0", inputs=("a=[1, 2, 3]", "a=[[1.5, 2.5], [3.0, 4.0]]"), expected=(2.0, 2.75),
              split="single_test", kind="single", entry="solve", reference=None, selected=("zwc.kocito",)):
    reference = reference or "import zwc\n\ndef solve(a):\n    return zwc.kocito(a)\n"
    return Task(
        task_id=task_id, split=split, kind=kind, query=f"Compute the mean ({task_id}).",
        function_name=f"def {entry}(a):", entry_point=entry, example=f"{entry}({inputs[0]})",
        test_cases=[{"input": i, "output": str(e)} for i, e in zip(inputs, expected)],
        right_exe_result="#".join(str(e) for e in expected), selected_functions=list(selected),
        reference_solution=reference, expected=list(expected),
    )


def fenced(code: str) -> str:
    return "Here is my answer.\n```python\n" + textwrap.dedent(code).strip() + "\n```\n"


@pytest.fixture(scope="session")
def mini_instance(tmp_path_factory) -> Path:
    return write_instance(tmp_path_factory.mktemp("judge-instance"))


@pytest.fixture(scope="session")
def judge(mini_instance):
    from sebench.judge import Judge

    with Judge(mini_instance, workers=2, timeout_s=2.0) as j:
        yield j


@pytest.fixture(scope="session")
def sandbox(mini_instance):
    from sebench.judge.sandbox import Sandbox

    with Sandbox(mini_instance / "package", "zwc", workers=2) as sb:
        yield sb


@pytest.fixture(scope="session")
def fallback_sandbox(mini_instance):
    from sebench.judge.sandbox import Sandbox

    with Sandbox(mini_instance / "package", "zwc", workers=2, bwrap=False) as sb:
        yield sb

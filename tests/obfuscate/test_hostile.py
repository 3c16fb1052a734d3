"""Hostile access: from the public surface no NumPy object can be reached without an underscore name.

"Public surface" = the package module and everything reachable from it through attributes whose names
do not start with "_", container items, iteration, calling functions (every function on every
conformance case), and the exceptions the package raises. Anything whose type or module is NumPy's
(module, ndarray, NumPy scalar, dtype, ufunc, NumPy class or exception) is a leak.
"""

from __future__ import annotations

import types

import numpy as np

from sebench.obfuscate.surface import load_surface

SCALARS = (int, float, complex, bool, str, bytes, type(None))


def is_numpy_object(obj) -> bool:
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0] == "numpy"
    if isinstance(obj, (np.ndarray, np.generic, np.dtype, np.ufunc)):
        return True
    if isinstance(obj, type):
        return (obj.__module__ or "").split(".")[0] == "numpy"
    return (getattr(type(obj), "__module__", "") or "").split(".")[0] == "numpy"


def public_children(obj, gen):
    out = []
    if isinstance(obj, (tuple, list)):
        out += list(obj)
    elif isinstance(obj, dict):
        out += list(obj.keys()) + list(obj.values())
    if isinstance(obj, gen.array_type) and obj.ndim > 0 and obj.size > 0:
        out += list(obj)[:3]
    if isinstance(obj, SCALARS):
        return out
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            out.append(getattr(obj, name))
        except Exception as exc:  # noqa: BLE001 - a raised exception is part of the surface too
            out.append(exc)
    return out


def walk(roots, gen, depth=5):
    seen, leaks = set(), []
    frontier = [(r, label) for r, label in roots]
    for _ in range(depth):
        nxt = []
        for obj, label in frontier:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if is_numpy_object(obj):
                leaks.append(f"{label}: {type(obj).__module__}.{type(obj).__qualname__}")
                continue
            if isinstance(obj, BaseException):
                nxt += [(a, f"{label}.args") for a in obj.args]
                nxt.append((type(obj), f"{label}.<type>"))
            for child in public_children(obj, gen):
                nxt.append((child, f"{label}>{type(child).__name__}"))
        frontier = nxt
    return leaks, len(seen)


def test_module_attributes_reach_no_numpy(generated):
    for gen in generated:
        leaks, n = walk([(gen.module, gen.names.package)], gen)
        assert not leaks, leaks[:20]
        assert n > 290  # the functions, the submodule, the array type and its properties were walked


def test_results_and_errors_of_every_function_reach_no_numpy(gen0, numpy_cases):
    roots = []
    for fn in load_surface():
        for i, case in enumerate(numpy_cases.cases_for(fn)):
            result, _ = numpy_cases.package_call(fn, gen0, case)
            roots.append((result, f"{fn.key}[{i}]"))
    leaks, _ = walk(roots, gen0, depth=4)
    assert not leaks, leaks[:20]


def test_errors_carry_no_numpy_type_or_traceback(gen0):
    mk = gen0.fn("numpy.array")
    attempts = [
        lambda: gen0.fn("numpy.linalg.inv")(mk([[1.0, 2.0], [2.0, 4.0]])),
        lambda: gen0.fn("numpy.sum")(mk([1]), axis=2),
        lambda: gen0.fn("numpy.add")(mk([1]), "x"),
        lambda: gen0.fn("numpy.reshape")(mk([1, 2, 3]), (2, 2)),
        lambda: mk([1, 2])[mk([5])],
        lambda: bool(mk([1, 2])),
        lambda: mk([1, 2]).tolist,
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception as exc:  # noqa: BLE001
            assert not is_numpy_object(exc) and not is_numpy_object(type(exc))
            assert exc.__context__ is None and exc.__cause__ is None
            tb, files = exc.__traceback__, []
            while tb is not None:
                files.append(tb.tb_frame.f_code.co_filename)
                tb = tb.tb_next
            assert not any("/numpy/" in f.replace("\\", "/") for f in files), files
        else:
            raise AssertionError("expected an error")


def test_callbacks_receive_only_package_values(gen0):
    mk = gen0.fn("numpy.array")
    seen = []

    def record(*args, **kwargs):
        seen.extend(args)
        seen.extend(kwargs.values())
        return args[0]

    def record_pad(vector, pad_width, iaxis, kwargs):
        seen.extend([vector, pad_width, iaxis, kwargs])

    gen0.fn("numpy.piecewise")(mk([1.0, -1.0, 2.0]), [[True, False, True]], [record, record])
    gen0.fn("numpy.vectorize")(record)(mk([1.0, 2.0]))
    gen0.fn("numpy.vectorize")(lambda v: record(v)[0], signature="(n)->()")(mk([[1.0, 2.0], [3.0, 4.0]]))
    gen0.fn("numpy.pad")(mk([[1, 2], [3, 4]]), 1, mode=record_pad)
    gen0.fn("numpy.array2string")(mk([1.5, 2.5]), formatter={"float_kind": lambda x: str(record(x))})
    assert seen
    leaks, _ = walk([(v, "callback argument") for v in seen], gen0, depth=3)
    assert not leaks, leaks
    assert any(isinstance(v, gen0.array_type) for v in seen)


def test_vectorized_function_is_a_plain_callable(gen0):
    f = gen0.fn("numpy.vectorize")(lambda x: x + 1)
    assert isinstance(f, types.FunctionType)
    assert [n for n in dir(f) if not n.startswith("_")] == []

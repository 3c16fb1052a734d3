"""Cases for differential tests of the generated package against NumPy (used by test_conformance.py
and test_hostile.py, loaded through the `numpy_cases` fixture).

Each case is run twice, once on NumPy and once on the generated package, on the same inputs:
`A(data, dtype)` becomes an ndarray on the NumPy side and a package array on the package side, while
plain lists and scalars are passed as they are to both. Both sides must return the same values (same
dtype, shape and elements; NaN equals NaN; Python scalars where NumPy returns its scalars; tuples and
named results of the same fields) or both must raise (the package's error being an instance of the
builtin class behind NumPy's, with a message that names no NumPy name). Functions that write into an
argument are compared on that argument afterwards, too. Each function must succeed on some cases.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from sebench.obfuscate.package import numpy_function

nan, inf = float("nan"), float("inf")


class A:
    """An array input: an ndarray for NumPy, a package array for the package."""

    def __init__(self, data, dtype=None):
        self.data, self.dtype = data, dtype

    def __repr__(self):
        return f"A({self.data!r}{', ' + repr(self.dtype) if self.dtype else ''})"


def c(*args, **kwargs):
    return (args, kwargs, {})


def co(opts, *args, **kwargs):
    return (args, kwargs, opts)


F1 = [0.5, -1.25, 2.0, 3.5]
I1 = [3, -1, 4, 1, -5]
I1B = [2, 3, 1, 5, 2]
B1 = [True, False, True]
C1 = [1 + 2j, -0.5j, 3 + 0j]
NANS = [1.0, nan, inf, -inf, 0.0, -0.0]
U01 = [0.1, 0.5, 0.9, -0.3]
F2 = [[1.5, -2.0, 0.25], [3.0, 4.5, -1.0]]
I2 = [[1, 2, 3], [4, 5, 6]]
F3 = [[[1.0, 2.0, 3.0], [4.0, -5.0, 6.5]], [[0.0, 0.5, -1.5], [2.5, 3.0, 1.0]]]
SQ = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]
SING = [[1.0, 2.0], [2.0, 4.0]]
STACK = [[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 2.0]]]
MASK4 = [True, False, True, False]

UNARY_INPUTS = [3, 2.5, -0.0, True, 1 + 2j, F1, A(F1), A(I1), A(B1), A(C1), A(NANS), A([]), A(U01), A(F2),
                A(I2), A(F3), A(I1, "int8"), A(F1, "float32"), A([0, 1, 2, 255], "uint8")]
BINARY_INPUTS = [
    (A(F1), A(F1[::-1])), (A(I1), A(I1B)), (A(F2), A([1.0, 2.0, -1.0])), (3, A(I1)), (A(F1), 2.5),
    (A(B1), A([False, False, True])), (A(C1), A([1, 2, 3])), (A(NANS), A([1.0] * 6)), (A([]), A([])),
    (A(I2), 2), (F1, F1), (A(F3), A(F2[0])), (A(I1, "int8"), A(I1B, "int8")), (A(U01), A(U01)),
    (A([12, 18, 7, 0]), A([8, 27, 5, 3])), (A(F1), A([1, 2, 3, 0])),
]


def reductions(extra=()):
    cases = [c(x) for x in (A(F1), A(I1), A(B1), A(F2), A(F3), A(NANS), A([]), F2, 5, A(C1))]
    cases += [c(A(F2), axis=0), c(A(F3), axis=-1), c(A(F3), axis=(0, 2)), c(A(F2), axis=1, keepdims=True),
              c(A(F2), axis=2), c(A([]), axis=0), c(A(I2), axis=None)]
    return cases + list(extra)


def pad_edges(vector, pad_width, iaxis, kwargs):
    vector[: pad_width[0]] = 7
    if pad_width[1]:
        vector[-pad_width[1]:] = 9


def _vec_call(*args, **kwargs):
    return {"post": (args, kwargs)}


CASES = {
    "all": reductions(), "any": reductions(),
    "allclose": [c(A(F1), A(F1)), c(F1, [0.5, -1.25, 2.0, 3.5000001]), c(A(NANS), A(NANS), equal_nan=True),
                 c(A(F2), 1.5), c(A(F1), A(F2))],
    "amax": reductions([c(A(F2), axis=0, initial=2.0)]), "amin": reductions(),
    "max": reductions([c(A([]), initial=0.0)]), "min": reductions(),
    "arange": [c(5), c(1, 7, 2), c(0.0, 1.0, 0.25), c(5, dtype=float), c(3, dtype="int32"), c(-2, 2), c(0),
               c(1, 0, 0)],
    "argmax": reductions(), "argmin": reductions(),
    "argpartition": [c(A(I1), 2), c(A(F2), 1, axis=1), c(A(F1), [0, 2]), c(A(F1), 9)],
    "argsort": [c(A(I1)), c(A(F2), axis=0), c(A(NANS)), c(A(I1), kind="stable"), c(A(F2), axis=None), c(F1)],
    "argwhere": [c(A(I1)), c(A(F2)), c(A(B1)), c(A([])), c(3)],
    "around": [c(A(F1)), c(A(F1), 1), c(2.567, 2), c(A(I1), -1), c(A(C1)), c(A(NANS)), c(A(F2), decimals=1)],
    "array": [c(F1), c(I2), c(F2, dtype=int), c(3.5), c([]), c(A(F1)), c([[1, 2], [3, 4]], dtype="float32"),
              c(C1), c(B1), c([1, 2], ndmin=2), c([[1, 2], [3]]), c(["a", "bc"]), c([A(F1), A(F1)]),
              c(A(I2), dtype=bool), c(True), c([1, 2], dtype=complex)],
    "array2string": [c(A(F1)), c(A(F2), precision=2), c(A(I1), separator=", "), c(A([])), c(A(C1)),
                     c(A(F1), formatter={"float_kind": lambda x: f"{x:.1f}"})],
    "array_equal": [c(A(F1), F1), c(A(I2), A(I2)), c(A(NANS), A(NANS), equal_nan=True), c(A(F1), A(F2))],
    "array_equiv": [c(A(F2[0]), A(F2)), c(A([1, 2]), [[1, 2], [1, 2]]), c(A(F1), A(I1))],
    "array_repr": [c(A(F1)), c(A(F2)), c(A(I1, "int8")), c(A([])), c(A(F3)), c(A(F1), precision=2),
                   c(A(C1)), c(A(3.0))],
    "array_str": [c(A(F1)), c(A(F2), precision=1), c(A([])), c(A(C1))],
    "asanyarray": [c(F1), c(A(I2)), c(3), c(F2, dtype="float32"), c([])],
    "asarray": [c(F1), c(A(I2)), c(3), c(F2, dtype="float32"), c([]), c(A(F1), dtype=int)],
    "ascontiguousarray": [c(F1), c(A(I2)), c(3), c(F2, dtype="float32")],
    "asfortranarray": [c(F1), c(A(I2)), c(3), c(F2, dtype="float32")],
    "astype": [c(A(F1), int), c(A(I1), "float32"), c(A(F1), "complex128"), c(A(B1), int), c(F1, float),
               c(A(C1), float)],
    "atleast_1d": [c(3), c(A(F1)), c(A(F2)), c(A(F1), A(F2)), c(A(F3))],
    "atleast_2d": [c(3), c(A(F1)), c(A(F2)), c(A(F1), A(F2)), c(A(F3))],
    "atleast_3d": [c(3), c(A(F1)), c(A(F2)), c(A(F1), A(F2)), c(A(F3))],
    "average": reductions([c(A(F1), weights=[1, 2, 3, 4]), c(A(F2), axis=1, weights=[1, 0, 1]),
                           c(A(F1), returned=True), c(A(F1), weights=[0, 0, 0, 0])]),
    "base_repr": [c(10, 2), c(255, 16), c(-7, 3), c(5, 2, padding=3), c(5, 40)],
    "binary_repr": [c(10), c(-3, width=8), c(0), c(A(5))],
    "bincount": [c(A([0, 1, 1, 3])), c([0, 1, 1, 3], weights=[0.5, 1, 1, 2]), c(A([2, 2]), minlength=5),
                 c(A([-1])), c(A([], "int64")), c(A(F1))],
    "block": [c([A(I2), A(I2)]), c([[A([[1, 2]]), A([[3]])], [A([[4, 5]]), A([[6]])]]), c([1, 2, 3]),
              c([A(F1), A(F1)]), c([[A(F1)], A(F1)])],
    "broadcast_arrays": [c(A(F1), A([[1.0], [2.0]])), c(A(I2), 3), c(A(F1), A(I1))],
    "broadcast_to": [c(A([1, 2, 3]), (2, 3)), c(5, (2, 2)), c(A(F1), (3,)), c([1.5], 4)],
    "choose": [c([0, 1, 0], [[1, 2, 3], [10, 20, 30]]), c(A([2, 0, 1]), [A(F1[:3]), A(I1[:3]), A([7, 8, 9])]),
               c(A([3]), [[1], [2]]), c(A([3, -1]), [[1, 2], [3, 4]], mode="clip")],
    "clip": [c(A(F1), 0, 2), c(A(I1), -2, 2), c(A(F2), None, 1.0), c(A(NANS), 0, 1), c(F1, A([0, 0, 0, 0]), 1),
             c(3, 4, 5)],
    "compress": [c(MASK4, A(F1)), c([0, 1], A(F2), axis=0), c([1, 0, 1], A(F2), axis=1), c([1] * 9, A(F1), axis=0)],
    "concatenate": [c([A(F1), A(I1)]), c([A(F2), A(F2)], axis=1), c((A(F2), A(F2)), axis=None),
                    c([A(F1), A(F2)]), c([[1, 2], [3]]), c([A(F3), A(F3)], axis=-1)],
    "convolve": [c(A(F1), A([1, 0.5])), c([1, 2, 3], [0, 1, 0.5], mode="same"), c(A(I1), A([1, -1]), mode="valid"),
                 c(A([]), A([1]))],
    "copy": [c(A(F2)), c(F1), c(3), c(A([]))],
    "copyto": [co({"inplace": 0}, A([0.0] * 4), A(F1)), co({"inplace": 0}, A([0] * 4), A(F1)),
               co({"inplace": 0}, A([[0.0] * 3] * 2), 7), co({"inplace": 0}, A([0.0] * 4), A(F1), where=MASK4),
               co({"inplace": 0}, A([0] * 4), A(F1), casting="unsafe")],
    "corrcoef": [c(A(F2)), c(A(F1), A(I1[:4])), c(A(F3[0]), rowvar=False), c(A(F1))],
    "correlate": [c(A(F1), A([1, 0.5])), c([1, 2, 3], [0, 1, 0.5], "full"), c(A(C1), A(C1))],
    "count_nonzero": [c(A(I2)), c(A([[0, 1], [2, 0]]), axis=0), c(A(B1)), c(A([])), c(A(F2), axis=1, keepdims=True),
                      c(A(NANS))],
    "cov": [c(A(F2)), c(A(F1)), c(A(F2), rowvar=False), c(A(F1), A(I1[:4])), c(A(F2), ddof=0), c(A(F2), bias=True),
            c(A(F1), fweights=[1, 2, 1, 1])],
    "cross": [c([1, 2, 3], [4, 5, 6]), c(A(F2), A([[1, 0, 0], [0, 1, 0]])), c(A([1, 2, 3]), [1, 2, 3, 4]),
              c(A(F2), A(F2), axis=1)],
    "cumprod": reductions(), "cumsum": reductions(),
    "delete": [c(A(F1), 1), c(A(F2), 0, axis=0), c(A(F2), [0, 2], axis=1), c(A(I1), slice(1, 3)), c(A(F1), 10)],
    "diag": [c(A(F1)), c(A(SQ)), c(A(SQ), 1), c(A(F2), k=-1), c(A(F3)), c([1, 2])],
    "diagflat": [c([1, 2]), c(A(F2)), c([1, 2], 1), c(A(C1), k=-1)],
    "diagonal": [c(A(SQ)), c(A(F3)), c(A(F3), 1, 1, 2), c(A(F1)), c(A(F2), offset=-1)],
    "diff": [c(A(F1)), c(A(F2), axis=0), c(A(I1), n=2), c(A(F1), prepend=0), c(A(F1), n=0), c(A(B1)), c(5)],
    "digitize": [c(A(F1), [0, 1, 2]), c(A(F1), [3, 1, 0], right=True), c(A(NANS), [0, 1]), c(1.5, [1, 2])],
    "dot": [c(A(F1), A(F1)), c(A(F2), A(F2[0])), c(A(SQ), A(SQ)), c(3, A(F1)), c(A(C1), A(C1)), c(A(F2), A(F2)),
            c(2, 3)],
    "empty": [co({"values": False}, 3), co({"values": False}, (2, 3)), co({"values": False}, (2,), dtype=int),
              co({"values": False}, -1)],
    "empty_like": [co({"values": False}, A(F2)), co({"values": False}, A(I1), dtype=float),
                   co({"values": False}, F1)],
    "expand_dims": [c(A(F1), 0), c(A(F2), (0, 2)), c(A(F1), 5), c(3, 0)],
    "extract": [c(MASK4, A(F1)), c(A([[1, 0], [0, 1]]), A([[1, 2], [3, 4]])), c([], A([]))],
    "eye": [c(3), c(2, 3), c(3, k=1), c(2, dtype=int), c(0), c(-1)],
    "flip": [c(A(F1)), c(A(F2), 0), c(A(F3), (0, 2)), c(A(F2), axis=None), c(A(F1), 1)],
    "full": [c(3, 7), c((2, 2), 1.5), c(2, True), c((2,), 1, dtype=float), c(0, 5), c(2, A([1, 2]))],
    "full_like": [c(A(F2), 2), c(A(I1), 2.7), c(A(F1), 1, dtype=int), c(F1, nan)],
    "geomspace": [c(1, 1000, 4), c(1, 256, 9, endpoint=False), c(-1, -100, 3), c(0, 10, 3), c(1, 2j, 3)],
    "gradient": [c(A(F1)), c(A(F2)), c(A(F2), axis=0), c(A(F1), 2.0), c(A([1.0])), c(A(F1), edge_order=2),
                 c(A(F2), 1.0, [0.0, 1.0, 3.0])],
    "histogram": [c(A(F1)), c(A(F2), bins=3), c(A(I1), bins=[-5, 0, 5]), c(A(F1), bins=4, range=(0, 4)),
                  c(A(F1), density=True), c(A(NANS)), c(A(F1), weights=[1, 2, 1, 0])],
    "hstack": [c([A(F1), A(I1)]), c((A(F2), A(F2))), c([1, 2]), c([A(F1), A(F2)])],
    "identity": [c(3), c(2, dtype=int), c(0)],
    "imag": [c(A(C1)), c(3 + 4j), c(A(F1)), c(5)],
    "inner": [c(A(F1), A(F1)), c(A(F2), A(F2)), c(A(F1), 2), c(A(F1), A(I1))],
    "insert": [c(A(F1), 1, 9), c(A(F2), 1, [7, 8, 9], axis=0), c(A(I1), [0, 2], 0), c(A(F2), 1, 5),
               c(A(F1), 9, 1)],
    "interp": [c(2.5, [1, 2, 3], [3, 2, 0]), c(A(F1), [0, 1, 2, 3], [0, 10, 20, 30]),
               c(A(F1), [0, 1], [0, 1], left=-1, right=99), c([1.5], [1, 2], [1j, 2j]), c(1, [1, 2], [1])],
    "intersect1d": [c(A(I1), [1, 3, 7]), c(A(F2), A(F1)), c(A(I1), [3, -1], return_indices=True), c([], [])],
    "isclose": [c(A(F1), [0.5, -1.25, 2.0000001, 3.6]), c(A(NANS), A(NANS)), c(A(NANS), A(NANS), equal_nan=True),
                c(1.0, 1.0 + 1e-9), c(A(C1), A(C1))],
    "isreal": [c(A(C1)), c(A(F1)), c(3 + 0j), c(A([]))],
    "ix_": [c([0, 1], [2, 3]), c(A([1, 0]), A([True, False, True])), c(A(F2)), c()],
    "kron": [c(A([1, 2]), A([[1, 1], [1, 1]])), c(A(SQ), A(I1[:2])), c(2, A(F1))],
    "lexsort": [c([A([1, 2, 1]), A([3, 1, 2])]), c(A(I2)), c((F1, F1[::-1])), c(A(I1))],
    "linspace": [c(0, 1, 5), c(2, 3, 4, endpoint=False), c(0, 10, 5, retstep=True), c(0, 1, 3, dtype=int),
                 c(A([0, 1]), A([1, 2]), 3), c(0, 1, 0), c(0, 1, -1), c(0, 1, 3, axis=0)],
    "logspace": [c(0, 2, 3), c(0, 1, 4, base=2), c(1, 2, 3, endpoint=False), c(A([0, 1]), 2, 3)],
    "matmul": [c(A(SQ), A(SQ)), c(A(F2), A([[1.0], [2.0], [3.0]])), c(A(F3), A([[1.0], [0.5], [2.0]])),
               c([1, 2], [3, 4]), c(A(F2), A(F2))],
    "mean": reductions([c(A(I1), dtype=float), c(A(F2), where=[[True, False, True], [True, True, False]])]),
    "median": reductions([c(A(F2), axis=0, keepdims=True)]),
    "meshgrid": [c([1, 2, 3], [4, 5]), c(A(F1), A(I1), indexing="ij"), c(A(F1), sparse=True), c(),
                 c(A(F1), A(I1), copy=False)],
    "moveaxis": [c(A(F3), 0, -1), c(A(F3), [0, 1], [2, 0]), c(A(F2), 3, 0)],
    "nan_to_num": [c(A(NANS)), c(A(NANS), nan=0.5, posinf=9.0, neginf=-9.0), c(nan), c(A(C1)), c(A(I1)),
                   c(A([complex(nan, inf)]))],
    "nonzero": [c(A(I2)), c(A([[0, 1], [2, 0]])), c(A(B1)), c(A(F3)), c(A([]))],
    "ones": [c(3), c((2, 3)), c(2, dtype=int), c((2,), dtype=bool), c(0), c(-1)],
    "zeros": [c(3), c((2, 3)), c(2, dtype=int), c((2,), dtype=bool), c(0), c(-1), c(2, dtype="complex64")],
    "ones_like": [c(A(F2)), c(A(I1), dtype=float), c(F1), c(3)],
    "zeros_like": [c(A(F2)), c(A(I1), dtype=float), c(F1), c(3)],
    "outer": [c(A(F1), A(I1)), c([1, 2], [3, 4, 5]), c(A(F2), A([1.0, 2.0])), c(3, 4)],
    "pad": [c(A(F1), 1), c(A(F2), ((1, 0), (2, 1))), c(A(I1), 2, mode="edge"), c(A(F1), (1, 2), mode="reflect"),
            c(A(F1), 1, constant_values=9), c(A(F1), 2, mode="mean"), c(A(F2), 1, mode=pad_edges),
            c(A(F1), 1, mode="bogus")],
    "partition": [c(A(I1), 2), c(A(F2), 1, axis=1), c(A(F1), [0, 2]), c(A(F1), 9)],
    "percentile": [c(A(F1), 50), c(A(F2), [25, 75], axis=1), c(A(I1), 30, method="nearest"), c(A(F1), 150),
                   c(A(NANS), 50), c(F1, A([10, 90]))],
    "quantile": [c(A(F1), 0.5), c(A(F2), [0.25, 0.75], axis=1), c(A(I1), 0.3, method="lower"), c(A(F1), 1.5),
                 c(A(F3), 0.5, axis=(0, 1), keepdims=True)],
    "permute_dims": [c(A(F3)), c(A(F3), (1, 0, 2)), c(A(F1)), c(A(F2), (0,))],
    "transpose": [c(A(F3)), c(A(F3), (1, 0, 2)), c(A(F1)), c(A(F2), (0,)), c(F2)],
    "piecewise": [c(A(F1), [MASK4], [lambda x: x * 2, lambda x: x - 1]), c(A(F1), [MASK4], [lambda x: x ** 2, 0.5]),
                  c(A(I1), [[True, False, True, False, False], [False, True, False, False, True]], [1, 2, 3]),
                  c(2.0, [True], [lambda x: x + 1]), c(A(F1), [MASK4], [lambda x: x, 1, 2, 3])],
    "place": [co({"inplace": 0}, A(F1), MASK4, [9, 8]),
              co({"inplace": 0}, A(I2), A([[1, 0, 0], [0, 0, 1]], bool), [7]),
              co({"inplace": 0}, A(F1), MASK4, [])],
    "polyfit": [c([0, 1, 2, 3], [1, 3, 5, 7], 1), c(A(F1), A(I1[:4]), 2), c(A(F1), A(F1), 1, full=True),
                c([0, 1, 2, 3], [1, 2, 0, 1], 1, cov=True), c([0, 1], [1, 2], -1)],
    "polyval": [c([1, 2, 3], 2), c([1, -1], A(F1)), c(A([3, 0, 1]), A(F2)), c([], 3)],
    "prod": reductions([c(A(I1), dtype=float), c(A(F2), initial=2.0)]),
    "ptp": reductions(),
    "put": [co({"inplace": 0}, A(F1), [0, 2], [9, 8]), co({"inplace": 0}, A(I2), 1, 7),
            co({"inplace": 0}, A(F1), [10], [1]), co({"inplace": 0}, A(F1), [10], [1], mode="clip")],
    "putmask": [co({"inplace": 0}, A(F1), MASK4, [9, 8]), co({"inplace": 0}, A(I2), A(I2, bool), 0),
                co({"inplace": 0}, A(F1), [True], [1])],
    "ravel": [c(A(F2)), c(A(F3), order="F"), c(F2), c(3)],
    "real": [c(A(C1)), c(3 + 4j), c(A(F1)), c(5)],
    "repeat": [c(A(F1), 2), c(A(F2), [1, 2], axis=0), c(3, 4), c(A(F1), -1)],
    "reshape": [c(A(F2), (3, 2)), c(A(F3), -1), c(A(F1), (2, 2)), c(A(F1), (3,)), c(A(F2), (3, 2), order="F"),
                c(F1, (2, 2)), c(A(F1), shape=(4, 1))],
    "resize": [c(A(F1), (3, 3)), c(A(F2), 4), c([1, 2], (2, 3)), c(A(F1), -1)],
    "roll": [c(A(F1), 1), c(A(F2), -1, axis=1), c(A(F2), (1, 1), axis=(0, 1)), c(A(F2), 2), c(A([]), 3)],
    "rollaxis": [c(A(F3), 2), c(A(F3), 2, 1), c(A(F3), 5)],
    "roots": [c([1, -3, 2]), c([1, 0, 1]), c(A([2.0, -4.0])), c([0, 0]), c([[1, 2]]), c([1, 0, 0])],
    "rot90": [c(A(F2)), c(A(F2), 2), c(A(F3), 1, (0, 2)), c(A(F1))],
    "round": [c(A(F1)), c(A(F1), 1), c(2.567, 2), c(A(I1), -1), c(A(C1)), c(A(NANS))],
    "searchsorted": [c([1, 2, 3, 5], 3), c(A([1, 2, 3, 5]), A([0, 4, 6]), side="right"),
                     c(A(F1), 1.0, sorter=[1, 0, 2, 3]), c(A(F1), 1.0, side="middle")],
    "select": [c([[True, False, False], [False, True, False]], [[1, 2, 3], [4, 5, 6]], 0),
               c([A(B1), A([False, True, False])], [A(F1[:3]), 2], default=-1), c([], [])],
    "shape": [c(A(F3)), c(3), c(F2), c([])],
    "sinc": [c(A(F1)), c(0), c(A(I1)), c(A(NANS)), c(A(C1))],
    "size": [c(A(F3)), c(A(F2), 1), c(5), c([])],
    "sort": [c(A(I1)), c(A(F2), axis=0), c(A(F2), axis=None), c(A(NANS)), c(A(C1)), c(A(I1), kind="stable"), c(F1),
             c(A(F1), axis=3)],
    "sort_complex": [c(A(C1)), c(A(I1)), c([3, 1 + 1j, 1 - 1j])],
    "split": [c(A(F1), 2), c(A(F2), [1], axis=1), c(A(I1), 2), c(A(F1), [1, 3])],
    "squeeze": [c(A([[[1], [2]]])), c(A([[1.0]]), axis=0), c(A(F2), axis=0), c(3)],
    "stack": [c([A(F1), A(F1)]), c([A(F2), A(F2)], axis=2), c([A(F1), A(I1)]), c([1, 2]), c([A(F1), A(F1)], axis=-1)],
    "std": reductions([c(A(F2), ddof=1), c(A(F1), ddof=5)]),
    "var": reductions([c(A(F2), ddof=1, axis=0), c(A(F1), ddof=5)]),
    "sum": reductions([c(A(F2), axis=(0, 1)), c(A(I1), dtype=float), c(A(F2), initial=10),
                       c(A(F1), where=MASK4), c(A(B1))]),
    "swapaxes": [c(A(F3), 0, 2), c(A(F2), 0, 1), c(A(F1), 0, 1)],
    "take": [c(A(F1), [0, 2]), c(A(F2), 1, axis=1), c(A(F2), [[0, 1]], axis=0), c(A(F1), 7), c(A(F1), 7, mode="wrap"),
             c(A(F1), A([3, 0]))],
    "tensordot": [c(A(F2), A(F2), axes=([1], [1])), c(A(F3), A(F2), axes=2), c(A(F1), A(F1), 1), c(A(SQ), A(SQ)),
                  c(A(F1), A(F2), 1)],
    "tile": [c(A(F1), 2), c(A(F2), (2, 1)), c([1, 2], (2, 2)), c(3, 3), c(A(F1), 0)],
    "trace": [c(A(SQ)), c(A(F3)), c(A(F2), 1), c(A(F1)), c(A(SQ), dtype=int)],
    "trapz": [c([1, 2, 3]), c(A(F1), x=[0, 1, 3, 4]), c(A(F2), dx=0.5, axis=0), c(A(F2)), c(A(F1), x=[0, 1])],
    "tri": [c(3), c(2, 4, 1), c(3, dtype=int), c(0)],
    "tril": [c(A(SQ)), c(A(F2), 1), c(A(F3), -1), c(A(F1))],
    "triu": [c(A(SQ)), c(A(F2), 1), c(A(F3), -1), c(A(F1))],
    "union1d": [c(A(I1), [1, 3, 7]), c(A(F2), A(F1)), c([], [])],
    "unique": [c(A(I1 + I1)), c(A(F2), return_counts=True), c(A(I1), return_index=True, return_inverse=True),
               c(A([[1, 2], [1, 2], [0, 5]]), axis=0), c(A(NANS + NANS)), c(A(NANS + NANS), equal_nan=False), c([]),
               c(A(F2), axis=3)],
    "unravel_index": [c(5, (2, 3)), c(A([0, 4, 5]), (2, 3)), c(7, (2, 3)), c([1, 2], (2, 3), order="F")],
    "unwrap": [c([0, 3, 6.5, 0.5]), c(A(F2)), c(A(F1), period=4), c(A(I1)), c(A([]))],
    "vdot": [c(A(C1), A(C1)), c(A(F2), A(F2)), c(A(F1), A(I1))],
    "vectorize": [
        co(_vec_call(A(F1)), lambda x: x * 2 + 1),
        co(_vec_call(F1), lambda x: x * 2 + 1),
        co(_vec_call(A(F1), 1.0), lambda x, y: x if x > y else y),
        co(_vec_call(A(I1)), lambda x: x // 2, otypes=[float]),
        co(_vec_call(A(F2)), lambda v: v[0] + v[-1], signature="(n)->()"),
        co(_vec_call(A(F1)), lambda x: type(x).__name__ in ("float", "int")),
        co(_vec_call(A(F1)), lambda x: 1 / 0),
    ],
    "vstack": [c([A(F1), A(F1)]), c((A(F2), A(F2[0]))), c([1, 2]), c([A(F1), A(I1)])],
    "where": [c(A(B1), A(F1[:3]), 0), c([[True, False], [False, True]], 1, A([[5, 6], [7, 8]])), c(A(I2)), c(A(F1)),
              c(A(B1), 1)],
    # numpy.linalg
    "linalg.cholesky": [c(A(SQ)), c(A(SING)), c(A([[[4.0, 2.0], [2.0, 3.0]]])), c(A(F2)), c(A(SQ), upper=True)],
    "linalg.cond": [c(A(SQ)), c(A(SQ), "fro"), c(A(SQ), 1), c(A(SING)), c(A(F2)), c(A([[1.0, 0], [0, 0]]), -2),
                    c(A(F1))],
    "linalg.cross": [c(A([1.0, 2, 3]), A([4.0, 5, 6])), c(A(F2), A([[1.0, 0, 0], [0, 1, 0]])), c(A([1, 2]), A([3, 4]))],
    "linalg.det": [c(A(SQ)), c(A(SING)), c(A(STACK)), c(A(F2)), c([[1, 2], [3, 4]]), c(A([[1j, 0], [0, 2]]))],
    "linalg.diagonal": [c(A(SQ)), c(A(F3)), c(A(SQ), offset=1), c(A(F1))],
    "linalg.eig": [c(A(SQ)), c(A([[0.0, -1], [1, 0]])), c(A(F2)), c(A([[1.0, 2], [2, 1]])), c(A(STACK))],
    "linalg.eigh": [c(A(SQ)), c(A(SQ), UPLO="U"), c([[2, 1j], [-1j, 3]]), c(A(F2))],
    "linalg.eigvals": [c(A(SQ)), c(A([[0.0, -1], [1, 0]])), c(A(F2)), c(A(STACK))],
    "linalg.eigvalsh": [c(A(SQ)), c(A(SQ), UPLO="U"), c([[2, 1j], [-1j, 3]]), c(A(F2))],
    "linalg.inv": [c(A(SQ)), c(A(SING)), c([[1, 2], [3, 4]]), c(A(STACK)), c(A(F2))],
    "linalg.lstsq": [c(A([[1.0, 0], [1, 1], [1, 2]]), A([1.0, 2, 2.5])), c(A(SQ), A(F1[:3]), rcond=None),
                     c(A(F2), A([1.0, 2.0])), c(A(F2), A(F1))],
    "linalg.matmul": [c(A(SQ), A(SQ)), c(A(F2), A(SQ)), c(A(F1), A(F1)), c(A(F2), A(F2))],
    "linalg.matrix_norm": [c(A(SQ)), c(A(SQ), ord=1), c(A(F3), ord="nuc"), c(A(F1)), c(A(SQ), keepdims=True)],
    "linalg.matrix_power": [c(A(SQ), 3), c(A(SQ), 0), c(A(SQ), -1), c([[1, 1], [1, 0]], 5), c(A(SING), -1),
                            c(A(F2), 2)],
    "linalg.matrix_rank": [c(A(SQ)), c(A(SING)), c(A(F2)), c(A(F1)), c(A(SING), tol=0.5), c(A(STACK))],
    "linalg.matrix_transpose": [c(A(F2)), c(A(F3)), c(A(F1))],
    "linalg.multi_dot": [c([A(SQ), A(SQ), A(SQ)]), c([A(F1[:3]), A(SQ), A(F1[:3])]),
                         c([A(F2), A(SQ), [[1.0, 2.0], [0.0, 1.0], [1.0, 1.0]]]), c([A(F1)])],
    "linalg.norm": [c(A(F1)), c(A(F2)), c(A(F2), "fro"), c(A(SQ), 2), c(A(F1), ord=1), c(A(F1), ord=inf),
                    c(A(F2), axis=1), c(A(F3), axis=(1, 2)), c(A(C1)), c([]), c(A(F2), keepdims=True),
                    c(A(F3), ord=2)],
    "linalg.outer": [c(A(F1), A(I1)), c([1, 2], [3, 4]), c(A(F2), A(F1))],
    "linalg.pinv": [c(A(SQ)), c(A(F2)), c(A(SING)), c(A(SQ), hermitian=True), c(A(F1))],
    "linalg.qr": [c(A(SQ)), c(A(F2)), c(A(F2), mode="r"), c(A(F2), mode="complete"), c(A(F1)), c(A(STACK))],
    "linalg.slogdet": [c(A(SQ)), c(A(SING)), c([[0.0, 1.0], [1.0, 0.0]]), c(A(F2))],
    "linalg.solve": [c(A(SQ), A(F1[:3])), c(A(SQ), A(SQ)), c(A(SING), [1, 2]), c([[2, 0], [0, 4]], [1, 2])],
    "linalg.svd": [c(A(SQ)), c(A(F2)), c(A(F2), full_matrices=False), c(A(F2), compute_uv=False), c(A(F1)),
                   c(A(SQ), hermitian=True)],
    "linalg.svdvals": [c(A(SQ)), c(A(F2)), c(A(F3)), c(A(F1))],
    "linalg.tensordot": [c(A(F2), A(F2), axes=([1], [1])), c(A(F1), A(F1), axes=1), c(A(F1), A(F2), axes=1)],
    "linalg.tensorinv": [c(A(np.eye(4).reshape(4, 2, 2).tolist()), ind=1), c(A(SQ), ind=1), c(A(F2), ind=1)],
    "linalg.tensorsolve": [c(A(SQ), A(F1[:3])), c(A(np.eye(6).reshape(6, 2, 3).tolist()), A([1.0] * 6)),
                           c(A(SING), [1.0, 2.0])],
    "linalg.trace": [c(A(SQ)), c(A(F3)), c(A(SQ), offset=1), c(A(F1))],
    "linalg.vecdot": [c(A(F1), A(F1)), c(A(F2), A([1.0, 0, 2])), c(A(C1), A(C1)), c(A(F1), A(F2))],
    "linalg.vector_norm": [c(A(F1)), c(A(F2), axis=1), c(A(F2), ord=1), c(A(C1), ord=inf),
                           c(A(F3), keepdims=True), c([]), c(A(F2), axis=(0, 1), ord=0)],
}


def spec_key(fn) -> str:
    return ("linalg." if fn.linalg else "") + fn.name


def cases_for(fn) -> list:
    key = spec_key(fn)
    target = numpy_function(fn.key)
    if isinstance(target, np.ufunc) and key not in ("matmul",):
        if target.nin == 1:
            generic = [c(x) for x in UNARY_INPUTS]
            generic += [co({"inplace": "out"}, A([0.0] * 4), out=A([0.0] * 4)), c(A(F1), where=MASK4, out=A([9.0] * 4))]
        else:
            generic = [c(x, y) for x, y in BINARY_INPUTS]
            generic += [c(A(F1), A(F1), out=A([0.0] * 4)), c(A(I1), 2, dtype=float)]
        return generic + CASES.get(key, [])
    return CASES[key]


# ---------------------------------------------------------------- running one case on both sides

def to_side(v, make):
    if isinstance(v, A):
        return make(np.array(v.data, dtype=v.dtype))
    if isinstance(v, list):
        return [to_side(x, make) for x in v]
    if isinstance(v, tuple):
        return tuple(to_side(x, make) for x in v)
    if isinstance(v, dict):
        return {k: to_side(x, make) for k, x in v.items()}
    return copy.deepcopy(v) if isinstance(v, (list, dict)) else v


def norm_numpy(v):
    if isinstance(v, np.ndarray):
        return ("arr", str(v.dtype), v.shape, v.tolist())
    if isinstance(v, np.generic):
        x = v.item()
        return (type(x).__name__, x)
    if isinstance(v, tuple):
        return ("tuple", getattr(type(v), "_fields", None), [norm_numpy(x) for x in v])
    if isinstance(v, list):
        return ("list", None, [norm_numpy(x) for x in v])
    if isinstance(v, np.dtype):
        return ("str", str(v))
    if v is None or type(v) in (int, float, complex, bool, str):
        return (type(v).__name__, v)
    raise AssertionError(f"unexpected NumPy result type {type(v)}")


def norm_package(v, gen):
    if isinstance(v, gen.array_type):
        assert type(v.dtype) is str and type(v.shape) is tuple and all(type(s) is int for s in v.shape)
        return ("arr", v.dtype, v.shape, gen.module._plain(v))
    if isinstance(v, tuple):
        return ("tuple", getattr(type(v), "_fields", None), [norm_package(x, gen) for x in v])
    if isinstance(v, list):
        return ("list", None, [norm_package(x, gen) for x in v])
    if v is None or type(v) in (int, float, complex, bool, str):
        return (type(v).__name__, v)
    raise AssertionError(f"the package returned a {type(v).__module__}.{type(v).__qualname__}")


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, complex) and isinstance(b, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def strip_values(n):
    if n[0] == "arr":
        return n[:3]
    if n[0] in ("tuple", "list"):
        return (n[0], n[1], [strip_values(x) for x in n[2]])
    return n


LEAK_WORDS = ("numpy", "ndarray", "np.", "ufunc", "array(", "_dispatcher")


def run_both(fn, gen, case):
    args, kwargs, opts = case
    np_target = numpy_function(fn.key)
    if fn.key == "numpy.array_repr":
        ctor = gen.names.constructor.rsplit(".", 1)[1]
        sub = type(ctor, (np.ndarray,), {})

        def np_target(a, *rest, _f=np.array_repr, **kw):
            return _f(np.asarray(a).view(sub), *rest, **kw)

    np_args, np_kwargs = to_side(args, lambda a: a), to_side(kwargs, lambda a: a)
    pk_args, pk_kwargs = to_side(args, gen.module._wrap), to_side(kwargs, gen.module._wrap)
    results = []
    for call, a, k in ((np_target, np_args, np_kwargs), (gen.fn(fn.key), pk_args, pk_kwargs)):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                r = call(*a, **k)
                if "post" in opts:
                    pa, pk = opts["post"]
                    make = (lambda x: x) if call is np_target else gen.module._wrap
                    r = r(*to_side(pa, make), **to_side(pk, make))
                results.append(("ok", r))
            except Exception as e:  # noqa: BLE001 - both sides must agree on failures
                results.append(("err", e))
    (np_status, np_val), (pk_status, pk_val) = results
    where = f"{fn.key}{args!r}{kwargs!r}"
    if np_status == "err" or pk_status == "err":
        assert np_status == pk_status, f"{where}: NumPy {np_status} {np_val!r}, package {pk_status} {pk_val!r}"
        base = next(c for c in type(np_val).__mro__ if c.__module__ == "builtins")
        assert isinstance(pk_val, base), f"{where}: {type(pk_val)} is not a {base} (NumPy: {np_val!r})"
        assert not type(pk_val).__module__.startswith("numpy"), where
        msg = str(pk_val)
        assert not any(w in msg.lower() for w in LEAK_WORDS), f"{where}: message leaks: {msg}"
        return False
    expected, got = norm_numpy(np_val), norm_package(pk_val, gen)
    if opts.get("values", True) is False:
        expected, got = strip_values(expected), strip_values(got)
    assert same(list(expected), list(got)), f"{where}:\n NumPy   {expected}\n package {got}"
    if "inplace" in opts:
        idx = opts["inplace"]
        np_obj = np_kwargs["out"] if idx == "out" else np_args[idx]
        pk_obj = pk_kwargs["out"] if idx == "out" else pk_args[idx]
        assert same(list(norm_numpy(np_obj)), list(norm_package(pk_obj, gen))), f"{where}: argument after the call"
    return True


def package_call(fn, gen, case):
    """The package's result for a case (or the exception it raised), and the inputs it was given."""
    args, kwargs, opts = case
    pk_args, pk_kwargs = to_side(args, gen.module._wrap), to_side(kwargs, gen.module._wrap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = gen.fn(fn.key)(*pk_args, **pk_kwargs)
            if "post" in opts:
                pa, pk = opts["post"]
                r = r(*to_side(pa, gen.module._wrap), **to_side(pk, gen.module._wrap))
        except Exception as e:  # noqa: BLE001
            r = e
    return r, (pk_args, pk_kwargs)

"""Small examples synthesised from a function's signature, for docs whose own examples all had to go.

Candidates are built from the parameter names (a/x -> an array, shape -> (2, 3), n -> 3, ...); all are
run like any example, and the first that works and is stable is kept.
"""

from __future__ import annotations

import inspect

from sebench.obfuscate.docs_examples import Stmt, names_of
from sebench.obfuscate.surface import numpy_object

_VECTORS = ("[0.5, 1.25, 2.0]", "[1.0, 2.0, 3.0]", "[[1.0, 2.0], [3.0, 4.0]]", "[3, 1, 2]", "[True, False, True]")
_SECOND = {"[0.5, 1.25, 2.0]": "[4.0, 5.0, 6.0]", "[1.0, 2.0, 3.0]": "[4.0, 5.0, 6.0]", "[[1.0, 2.0], [3.0, 4.0]]": "[[2.0, 0.0], [1.0, 3.0]]",
           "[3, 1, 2]": "[2, 2, 1]", "[True, False, True]": "[True, True, False]"}
_SCALARS = {"shape": "(2, 3)", "newshape": "(3,)", "n": "3", "N": "3", "M": "3", "num": "4", "start": "0",
            "stop": "5", "step": "1", "fill_value": "7", "indices": "[0, 2]", "ind": "[0, 2]", "axis": "0",
            "repeats": "2", "reps": "2", "k": "1", "q": "50", "decimals": "1", "number": "5", "num_bits": "8",
            "width": "8", "base": "2", "deg": "1", "bins": "3", "dims": "(2, 3)", "shift": "1", "ord": "2",
            "source": "0", "destination": "1", "axis1": "0", "axis2": "1", "pad_width": "1", "new_shape": "(3,)",
            "indices_or_sections": "2", "sections": "2", "mask": "[True, False, True]", "vals": "[9.0, 8.0]",
            "values": "[9.0, 8.0]", "condition": "[True, False, True]", "obj": "1", "arr": None}
_SECOND_NAMES = {"x2", "b", "y", "ar2", "v", "xp", "fp", "bins", "p", "x", "c"}


def _required(obj) -> list[str]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ["a"]
    return [p.name for p in sig.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def candidates(fd, mapping: dict, checker) -> list[Stmt]:
    public, cons = fd.public, mapping.get("constructor", "")
    short = fd.key.rsplit(".", 1)[1]
    shape_fn = mapping["functions"].get("numpy.shape")
    out: list[str] = []
    names = _required(numpy_object(fd.key))
    if names[:1] == ["arrays"]:  # a sequence of arrays (multi_dot, stack, ...)
        mats = "[[1.0, 2.0], [3.0, 4.0]]", "[[2.0, 0.0], [1.0, 3.0]]", "[[0.0, 1.0], [1.0, 1.0]]"
        out.append(f"{public}([{', '.join(f'{cons}({m})' for m in mats)}])")
    for vec in _VECTORS:
        args, first = [], True
        for name in names:
            if name in _SCALARS and _SCALARS[name] is not None and not (first and name in ("condition", "x")):
                args.append(_SCALARS[name])
            elif first:
                args.append(f"{cons}({vec})")
                first = False
            else:
                args.append(f"{cons}({_SECOND[vec]})")
        call = f"{public}({', '.join(args)})"
        out.append(call)
        if shape_fn and short in ("empty", "empty_like"):
            out.insert(0, f"{shape_fn}({call})")
    stmts = []
    for src in dict.fromkeys(out):
        binds, loads = names_of(src)
        if not checker.code(src):
            stmts.append(Stmt(src, src, binds, loads))
    return stmts


def keep_first_working(fd) -> None:
    """Keeps the first synthesised statement that ran (and a second one, if it shows something else)."""
    kept = 0
    for st in fd.synthesized:
        if st.drop:
            continue
        if kept >= 1:
            st.drop = "spare candidate"
        kept += 1

"""Two rewrites that save NumPy examples the package could not run as written.

- Random data: `rng = np.random.default_rng()` vanishes and `rng.normal(size=(9, 6))`,
  `np.random.rand(3, 2)`, `rng.integers(0, 10, size=5)`, ... become short deterministic package
  expressions (sin of a range, reshaped), so the example still runs, and shows the same output every time.
- Array methods the package's array lacks (`a.reshape(2, 3)`, `a.T`, `a.sum(axis=0)`) become calls of the
  package's functions (`pkg.f(a, (2, 3))`, ...), rewritten through the AST.
"""

from __future__ import annotations

import ast
import math
import re

RNG_CREATE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:np|numpy)\.random\.(?:default_rng|RandomState)\(.*\)\s*$")
RNG_SEED = re.compile(r"^\s*(?:np|numpy)\.random\.seed\(.*\)\s*$")
_RANDOM_FLOAT = {"normal", "standard_normal", "random", "random_sample", "rand", "randn", "uniform", "integers",
                 "randint"}
# method -> NumPy function it stands for; how the receiver and the arguments are passed is below
METHODS = {
    "reshape": "reshape", "sum": "sum", "mean": "mean", "std": "std", "var": "var", "prod": "prod",
    "max": "max", "min": "min", "argmax": "argmax", "argmin": "argmin", "cumsum": "cumsum",
    "cumprod": "cumprod", "transpose": "transpose", "T": "transpose", "ravel": "ravel", "flatten": "ravel",
    "dot": "dot", "conj": "conj", "conjugate": "conjugate", "round": "round", "clip": "clip", "all": "all",
    "any": "any", "astype": "astype", "nonzero": "nonzero", "squeeze": "squeeze", "swapaxes": "swapaxes",
    "repeat": "repeat", "diagonal": "diagonal", "trace": "trace", "take": "take", "compress": "compress",
    "searchsorted": "searchsorted", "argsort": "argsort", "real": "real", "imag": "imag", "ptp": "ptp",
    "mT": "linalg.matrix_transpose", "copy": "copy",
}
_ATTRIBUTE_ONLY = {"T", "mT", "real", "imag"}
_STAR_SHAPE = {"reshape", "transpose"}  # a.reshape(2, 3) == reshape(a, (2, 3))


class CodeFixError(ValueError):
    """The statement cannot be rewritten (a random call we do not model, a bad size)."""


def _eval_size(node: ast.AST | None):
    if node is None:
        return None
    value = eval(compile(ast.Expression(node), "<size>", "eval"), {"__builtins__": {}})  # NumPy's own doc text
    if isinstance(value, int):
        return value
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return value
    raise CodeFixError("size")


def _data(public: dict, kind: str, size, low=None, high=None) -> str:
    """A deterministic package expression standing in for random data of `size`."""
    count = 1 if size is None else (size if isinstance(size, int) else math.prod(size))
    need = ["numpy.sin", "numpy.arange", "numpy.absolute", "numpy.reshape"]
    if any(k not in public for k in need):
        raise CodeFixError("no package functions to build data with")
    sin, arange, absolute, reshape = (public[k] for k in need)
    if kind == "integers":
        lo, hi = (0, low) if high is None else (low, high)
        expr = f"({arange}({count}) * 7 + 3) % {max(1, hi - lo)}" + (f" + {lo}" if lo else "")
    elif kind in ("random", "random_sample", "rand", "uniform"):
        expr = f"{absolute}({sin}({arange}(1.0, {count + 1}.0)))"
    else:
        expr = f"{sin}({arange}(1.0, {count + 1}.0))"
    if size is None:
        return f"{expr}[0]"
    if isinstance(size, tuple) and len(size) != 1:
        return f"{reshape}({expr}, {size!r})"
    return expr


def replace_random(source: str, rngs: set[str], public: dict) -> str:
    """Random calls replaced by deterministic data; CodeFixError for those we do not model."""
    roots = [*sorted(rngs), "np.random", "numpy.random"]
    pattern = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, roots))})\.([A-Za-z_]\w*)\(")
    while True:
        m = pattern.search(source)
        if not m:
            return source
        kind = m.group(1)
        end = _closing(source, m.end() - 1)
        if kind not in _RANDOM_FLOAT or end < 0:
            raise CodeFixError(kind)
        call = ast.parse("f" + source[m.end() - 1 : end + 1], mode="eval").body
        kw = {k.arg: k.value for k in call.keywords}
        args = call.args
        if kind in ("rand", "randn"):
            size = _eval_size(ast.Tuple(args, ast.Load())) if args else None
            size = size if size is None or len(size) != 1 else size[0]
            expr = _data(public, kind, size)
        elif kind in ("integers", "randint"):
            low = _eval_size(args[0]) if args else _eval_size(kw.get("low"))
            high = _eval_size(args[1]) if len(args) > 1 else _eval_size(kw.get("high"))
            size = _eval_size(args[2]) if len(args) > 2 else _eval_size(kw.get("size"))
            expr = _data(public, "integers", size, low, high)
        else:
            positional = {"normal": 2, "uniform": 2}.get(kind, 0)
            size = _eval_size(args[positional]) if len(args) > positional else _eval_size(kw.get("size"))
            expr = _data(public, kind, size)
            if kind in ("normal", "uniform") and (args[:2] or "loc" in kw or "scale" in kw or "low" in kw):
                raise CodeFixError("parameters")
        if kind in ("integers", "randint"):
            expr = f"({expr})"
        source = source[: m.start()] + expr + source[end + 1 :]


def _closing(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


class _Methods(ast.NodeTransformer):
    def __init__(self, public: dict, array_attrs: frozenset, skip_roots: set[str]):
        self.public, self.array_attrs, self.skip_roots = public, array_attrs, skip_roots
        self.changed = False

    def _target(self, attr: str, value: ast.AST) -> ast.AST | None:
        if attr not in METHODS or attr in self.array_attrs:
            return None
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.skip_roots:
            return None
        if isinstance(value, ast.Constant):  # "a,b".split(...), 1.5.real
            return None
        name = self.public.get("numpy." + METHODS[attr])
        return ast.parse(name, mode="eval").body if name else None

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr not in _ATTRIBUTE_ONLY:
            target = self._target(func.attr, func.value)
            if target is not None:
                args = list(node.args)
                if func.attr in _STAR_SHAPE and len(args) > 1:
                    args = [ast.Tuple(args, ast.Load())]
                self.changed = True
                return ast.Call(target, [func.value, *args], node.keywords)
        return node

    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if node.attr in _ATTRIBUTE_ONLY and isinstance(node.ctx, ast.Load):
            target = self._target(node.attr, node.value)
            if target is not None:
                self.changed = True
                return ast.Call(target, [node.value], [])
        return node


def replace_methods(source: str, public: dict, array_attrs: frozenset, skip_roots: set[str]) -> str:
    """Array methods the package lacks, as calls of its functions; the source unchanged if none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    fixer = _Methods(public, array_attrs, skip_roots)
    tree = fixer.visit(tree)
    if not fixer.changed:
        return source
    tree = ast.fix_missing_locations(tree)
    if len(tree.body) > 1 and all(not isinstance(n, _COMPOUND) for n in tree.body):
        return "; ".join(ast.unparse(n) for n in tree.body)  # `a = f(x); a` stays one line
    return ast.unparse(tree)


_COMPOUND = (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef, ast.ClassDef, ast.Try, ast.AsyncFunctionDef)


def replace_scalar_calls(source: str, aliases: set[str], constructor: str) -> str:
    """np.uint8(255) -> pkg.array(255, dtype='uint8'): NumPy scalar types called as constructors."""
    import numpy

    pattern = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, sorted(aliases)))})\.([A-Za-z_]\w*)\(")
    pos = 0
    while True:
        m = pattern.search(source, pos)
        if not m:
            return source
        obj = getattr(numpy, m.group(1), None)
        end = _closing(source, m.end() - 1)
        if not (isinstance(obj, type) and issubclass(obj, numpy.generic)) or end < 0 or not constructor:
            pos = m.end()
            continue
        inner = source[m.end() : end].strip()
        if not inner or ("," in inner and not inner.startswith(("[", "("))):
            pos = m.end()
            continue
        dtype = repr(numpy.dtype(obj).name)
        source = f"{source[: m.start()]}{constructor}({inner}, dtype={dtype}){source[end + 1 :]}"
        pos = m.start() + 1

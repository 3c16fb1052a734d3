"""A method's arguments, read before anything runs, and the check of the values a study gives them.

A method file's arguments are read from its source (`ast`), so that no code of the file runs outside the
method's fenced process: the constructor's keywords (`__init__`, or a dataclass's fields, its bases' in the
same file first), or a function's keywords after `ctx`. A built-in, an entry point or a module is imported
(installed code) and read with `inspect`. A value is checked against its argument's annotation where the
annotation is one of the plain types (int, float, str, bool, list, dict, Path, None and unions of them);
any other annotation accepts any value.
"""

from __future__ import annotations

import ast
import difflib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.methods.contract import MethodError
from sebench.methods.loader import MethodRef

# the contract's classes, whose constructors take no argument: a class deriving from one only takes none
CONTRACT_BASES = ("Method", "Agent")
_TYPES: dict[str, Any] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str), "Path": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list), "tuple": lambda v: isinstance(v, list),
    "Sequence": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict), "Mapping": lambda v: isinstance(v, dict),
    "None": lambda v: v is None,
}


@dataclass(frozen=True)
class Argument:
    """One argument: its name, its annotation as written (None: none) and its default as written (None:
    required)."""

    name: str
    annotation: str | None
    default: str | None

    def __str__(self) -> str:
        text = self.name + (f": {self.annotation}" if self.annotation else "")
        return text + (f" = {self.default}" if self.default is not None else "")


@dataclass(frozen=True)
class Signature:
    """A method's arguments; `open`: it also takes any keyword (**kwargs)."""

    arguments: tuple[Argument, ...]
    open: bool = False

    def __str__(self) -> str:
        return ", ".join(map(str, self.arguments)) + (", **kwargs" if self.open else "") or "(none)"


def method_signature(ref: MethodRef) -> Signature | None:
    """The arguments of `ref`'s method; None when its file binds the name by an import or an assignment
    (it exists, its arguments cannot be read without running the file). A missing file, module or attribute
    is a MethodError."""
    if ref.origin == "file":
        assert ref.source is not None
        return _from_source(ref.source, ref.target.rpartition(":")[2], ref.spec)
    obj = ref.load()
    if inspect.isclass(obj) and inspect.isabstract(obj):
        raise MethodError(f"method '{ref.spec}': {ref.target} does not define run(self, ctx) (abstract: "
                          f"{', '.join(sorted(getattr(obj, '__abstractmethods__', ())))})")
    return _from_object(obj)


def check_arguments(label: str, ref: MethodRef, values: dict) -> None:
    """Refuses an argument `ref`'s method does not take, one of the wrong type, and a required one not given,
    in one line that lists its arguments."""
    signature = method_signature(ref)
    if signature is None:
        return
    known = {a.name: a for a in signature.arguments}
    listing = f"({label}'s arguments: {signature})"
    for key, value in values.items():
        if key not in known:
            if signature.open:
                continue
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise MethodError(f"methods.{label}: unknown argument '{key}'{hint} {listing}")
        annotation = known[key].annotation
        if annotation and not accepts(annotation, value):
            raise MethodError(f"methods.{label}.{key}: {value!r} is not {annotation} {listing}")
    missing = [a.name for a in signature.arguments if a.default is None and a.name not in values]
    if missing:
        raise MethodError(f"methods.{label}: give {', '.join(missing)} (-M {label}.{missing[0]}=...) {listing}")


def accepts(annotation: str, value: object) -> bool:
    """Whether `value` (parsed from JSON) fits `annotation`; an annotation of other types accepts anything."""
    try:
        node = ast.parse(annotation, mode="eval").body
    except SyntaxError:
        return True
    check = _checker(node)
    return True if check is None else check(value)


def _checker(node: ast.expr) -> Any:
    """A predicate for an annotation's node, or None when it names a type this module does not check."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
        return _checker(ast.parse(node.value, mode="eval").body)
    if isinstance(node, ast.Constant) and node.value is None:
        return _TYPES["None"]
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _TYPES.get(node.id if isinstance(node, ast.Name) else node.attr)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = [_checker(node.left), _checker(node.right)]
        return None if None in parts else (lambda v: any(p(v) for p in parts))
    if isinstance(node, ast.Subscript):
        name = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
        if name == "Optional":
            inner = _checker(node.slice)
            return None if inner is None else (lambda v: v is None or inner(v))
        if name == "Union" and isinstance(node.slice, ast.Tuple):
            parts = [_checker(e) for e in node.slice.elts]
            return None if None in parts else (lambda v: any(p(v) for p in parts))
        return _TYPES.get(name)
    return None


# ---- an imported object ------------------------------------------------------------------------------


def _from_object(obj: object) -> Signature:
    if inspect.isclass(obj) and obj.__init__ is object.__init__:
        return Signature(())
    target: Any = obj.__init__ if inspect.isclass(obj) else obj
    params = list(inspect.signature(target).parameters.values())[1:]  # self, or a function's ctx
    out = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = None if p.annotation is p.empty else (p.annotation if isinstance(p.annotation, str)
                                                           else inspect.formatannotation(p.annotation))
        out.append(Argument(p.name, annotation, None if p.default is p.empty else repr(p.default)))
    return Signature(tuple(out), any(p.kind == p.VAR_KEYWORD for p in params))


# ---- a file's source ----------------------------------------------------------------------------------


def _from_source(path: Path, attr: str, spec: str) -> Signature | None:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise MethodError(f"method '{spec}': cannot read {path}: {exc}") from None
    except SyntaxError as exc:
        raise MethodError(f"method '{spec}': {path}:{exc.lineno}: {exc.msg}") from None
    found = _top_level(tree).get(attr)
    if found is None:
        names = [n for n, node in _top_level(tree).items() if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
        close = difflib.get_close_matches(attr, names, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (it defines: {', '.join(names) or 'nothing'})"
        raise MethodError(f"method '{spec}': {path} has no attribute '{attr}'{hint}")
    if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _from_function(found, skip=1)
    if isinstance(found, ast.ClassDef):
        if _defines_run(found, _top_level(tree)) is False:
            raise MethodError(f"method '{spec}': {path}:{found.lineno}: class {attr} does not define "
                              "run(self, ctx), which a Method must (docs/methods.md)")
        return _from_class(found, _top_level(tree))
    return None


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's top-level names and the node that binds each (the last one)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node
    return out


def _from_function(node: ast.FunctionDef | ast.AsyncFunctionDef, skip: int) -> Signature:
    args = node.args
    positional = [*args.posonlyargs, *args.args][skip:]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    return Signature(tuple(Argument(a.arg, ast.unparse(a.annotation) if a.annotation else None,
                                    ast.unparse(d) if d is not None else None) for a, d in pairs),
                     args.kwarg is not None)


def _from_class(node: ast.ClassDef, names: dict[str, ast.AST]) -> Signature | None:
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        return _from_function(init, skip=1)
    inherited: list[Argument] = []
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
        if name in CONTRACT_BASES:
            continue
        parent = names.get(name or "")
        if not isinstance(parent, ast.ClassDef):
            return None  # a base from elsewhere: its constructor cannot be read here
        found = _from_class(parent, names)
        if found is None or found.open:
            return found
        inherited += found.arguments
    if not any(_is_dataclass(d) for d in node.decorator_list):
        return Signature(tuple(inherited))
    own = [Argument(n.target.id, ast.unparse(n.annotation), ast.unparse(n.value) if n.value is not None else None)
           for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
           and "ClassVar" not in ast.unparse(n.annotation)]
    fields = {a.name: a for a in inherited}
    fields.update({a.name: a for a in own})
    return Signature(tuple(fields.values()))


def _defines_run(node: ast.ClassDef, names: dict[str, ast.AST]) -> bool | None:
    """Whether a class defines `run` itself or through a base in the same file; None when a base from
    elsewhere (not the contract's) may define it."""
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "run" for n in node.body):
        return True
    if any(isinstance(n, (ast.Assign, ast.AnnAssign)) and "run" in {getattr(t, "id", None) for t in
           (n.targets if isinstance(n, ast.Assign) else [n.target])} for n in node.body):
        return True
    unknown = False
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
        if name in CONTRACT_BASES:
            continue
        parent = names.get(name or "")
        found = _defines_run(parent, names) if isinstance(parent, ast.ClassDef) else None
        if found:
            return True
        unknown = unknown or found is None
    return None if unknown else False


def _is_dataclass(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")) == "dataclass"

"""Static rules on a program before it runs (AST only; nothing is executed here).

In order, the first failing rule gives the verdict:
- `syntax_error`: the code does not parse.
- `forbidden_import`: an import of anything but the package and an allowlist of harmless standard
  modules (math, cmath, itertools, functools, collections, operator, typing, ...; never os, sys, io,
  inspect, gc, importlib, ctypes, statistics, decimal, fractions, numpy or any other numeric library),
  relative imports included. The library the package renames (mapping.json's "module") and its
  "forbidden_imports" are refused even where the allowlist holds them (a library made of a standard module).
- `forbidden_access`: a name or attribute that reaches around the rules: any attribute starting with "_",
  any dunder name but `__name__`, the builtins that reach underscore names with strings or read files
  (getattr, setattr, delattr, vars, globals, locals, eval, exec, compile, open, breakpoint, input, help,
  __import__, attrgetter, methodcaller, get_type_hints; string.Formatter and its get_field, which resolve
  "{0.__globals__}" to the object; functools' update_wrapper and wraps, which copy attributes named by
  strings), the attributes that lead to frames (gi_frame, cr_frame, ag_frame, tb_frame, f_back,
  f_builtins, f_globals, ...: a frame's builtins hold all of the above), the modules an allowed module
  holds under a name (MODULES_HELD: `warnings.sys`, `dataclasses.inspect`, `enum.bltns`, as an attribute
  of anything or imported from it), the same attributes read by a class pattern's keyword
  (`case object(__globals__=g)`), positional fields of a class pattern but a builtin's (`case int(n)`;
  others read what a class's `__match_args__`, made from strings, names), strings that name underscore
  attributes ("__class__", "{0._x}"), `.format`/`.format_map` of anything but a string literal (a built
  "{0.__globals__}" would read what the rules refuse), a package attribute that is not public (`zwc.np`), or the package module
  used as a value (`m = zwc`) instead of as `zwc.<name>`.
- `not_using_package`: the value returned by the entry function does not depend on a call into the
  package (data flow through assignments, loops, comprehensions, container mutation, helper functions
  and control dependence). Identity-like functions do not count: the array constructor, the array type
  and the functions of IDENTITY_LIKE, whose result holds their argument's values unchanged (so a lookup
  table of outputs passed through one of them is still not using the package); they count again when
  the task is about one of them (one in its selected functions). Methods of package arrays do not count.

The library the rules stand for is a setting: the generated package (`Rules.of_instance`), or, for the numpy
mode's specificity check, real NumPy (`Rules.of_numpy`): then NumPy is the one allowed array library, the
generated package is a forbidden import, and the returned value must depend on a NumPy call by the same rule.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from sebench.code_names import bound_names, parse
from sebench.files import read_json_object
from sebench.instance import Instance
from sebench.instance_library import forbidden_modules

ALLOWED_MODULES = frozenset({
    "math", "cmath", "itertools", "functools", "collections", "collections.abc", "operator", "typing",
    "heapq", "bisect", "string", "re", "copy", "dataclasses", "enum", "numbers", "random", "time",
    "datetime", "textwrap", "abc", "__future__", "warnings", "contextlib", "pprint", "keyword", "json",
})
BANNED_NAMES = frozenset({
    "getattr", "setattr", "delattr", "vars", "globals", "locals", "eval", "exec", "compile", "open",
    "breakpoint", "input", "help", "__import__", "attrgetter", "methodcaller", "get_type_hints",
    # getattr with a built string: a format field resolved to its object, or an attribute copied by name
    "Formatter", "get_field", "update_wrapper", "wraps",
})
# Frames and what leads to them (a generator's, a coroutine's, a traceback's): a frame's builtins and
# globals hold everything the rules above refuse (__import__, getattr, eval) and the harness's own state.
FRAME_ATTRIBUTES = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin", "ag_frame",
    "ag_code", "ag_await", "tb_frame", "tb_next", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "f_trace",
})
ALLOWED_DUNDERS = frozenset({"__name__"})

# The builtin classes whose class pattern matches the subject itself (`case int(n)`): no attribute is read.
SELF_MATCHING = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str",
                           "tuple"})


def _modules_held(allowed: frozenset) -> frozenset:
    """The attribute names under which an allowed module holds a module that is not allowed (dataclasses.sys,
    dataclasses.inspect, enum.bltns, contextlib.os): `warnings.sys.modules[...]` would reach what an import
    may not."""
    import importlib
    import types

    names = set()
    for name in allowed:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        names |= {attr for attr, value in vars(module).items()
                  if isinstance(value, types.ModuleType) and value.__name__ not in allowed}
    return frozenset(names)


MODULES_HELD = _modules_held(ALLOWED_MODULES)
RULES_FILE = "judge_rules.json"  # a training view's rules (it has no private mapping)
IN_PLACE = ("numpy.copyto", "numpy.place", "numpy.put", "numpy.putmask")
# Functions whose result holds the values of their (first) argument, unchanged, for every input: NumPy's
# "from existing data" conversions (asarray ... copy, astype), `positive` (documented as a copy), the
# in-place copy `copyto`, and the as-array functions that only add length-1 axes (atleast_1d/2d/3d).
IDENTITY_LIKE = ("numpy.array", "numpy.asarray", "numpy.asanyarray", "numpy.ascontiguousarray",
                 "numpy.asfortranarray", "numpy.copy", "numpy.astype", "numpy.positive", "numpy.copyto",
                 "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d")
# NumPy's file, memory-map and C-level parts: not public in the numpy mode (the sandbox would stop them too)
NUMPY_WITHHELD = frozenset({"load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt", "fromfile",
                            "fromregex", "memmap", "DataSource", "ctypeslib", "lib", "f2py", "testing", "distutils"})
NUMPY_MODULES = ("numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.polynomial", "numpy.ma", "numpy.emath")
_FORMAT_FIELD_UNDERSCORE = re.compile(r"\{[^{}:!]*\._")
_UNDERSCORE_IDENT = re.compile(r"_+[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Rules:
    """What the static rules need to know about the generated package (from mapping.json)."""

    package: str
    public: frozenset  # dotted public names: functions, the linalg module, the array type, the library's types
    modules: frozenset  # dotted names of public modules: the package and its linalg submodule
    constructor: str | None = None  # e.g. "zwc.yitaf"
    array_type: str | None = None  # e.g. "zwc.Qoravet"
    in_place: frozenset = frozenset()  # functions that change their first argument (copyto, put, ...)
    identity_like: frozenset = frozenset()  # IDENTITY_LIKE's functions (the constructor and array type too)
    allowed_modules: frozenset = ALLOWED_MODULES  # the allowlist, less the renamed library's own modules

    @classmethod
    def from_mapping(cls, mapping: dict) -> Rules:
        pkg = mapping["package"]
        public = set(mapping.get("functions", {}).values())
        modules = {pkg}
        if mapping.get("linalg"):
            modules.add(f"{pkg}.{mapping['linalg']}")
        array_type = mapping.get("array_type")
        if array_type:
            array_type = array_type if "." in array_type else f"{pkg}.{array_type}"
            public.add(array_type)
        public |= set((mapping.get("exceptions") or {}).values())
        public |= set((mapping.get("types") or {}).values())  # a non-NumPy library's renamed types
        constructor = mapping.get("constructor")
        if constructor:
            public.add(constructor)
        functions = mapping.get("functions", {})
        in_place = frozenset(functions[n] for n in IN_PLACE if n in functions)
        identity = {functions[n] for n in IDENTITY_LIKE if n in functions} | {constructor, array_type} - {None}
        forbidden = forbidden_modules(mapping)
        allowed = frozenset(m for m in ALLOWED_MODULES if not any(m == f or m.startswith(f + ".") for f in forbidden))
        return cls(pkg, frozenset(public | modules), frozenset(modules), constructor, array_type, in_place,
                   frozenset(identity), allowed)

    def to_json(self) -> dict:
        """The rules as JSON: public names only, no NumPy name (a training view holds this, not the mapping);
        the allowlist only where the renamed library takes modules off it."""
        data = {"package": self.package, "public": sorted(self.public), "modules": sorted(self.modules),
                "constructor": self.constructor, "array_type": self.array_type, "in_place": sorted(self.in_place),
                "identity_like": sorted(self.identity_like)}
        if self.allowed_modules != ALLOWED_MODULES:
            data["allowed_modules"] = sorted(self.allowed_modules)
        return data

    @classmethod
    def from_json(cls, data: dict) -> Rules:
        return cls(data["package"], frozenset(data["public"]), frozenset(data["modules"]), data.get("constructor"),
                   data.get("array_type"), frozenset(data.get("in_place", ())), frozenset(data.get("identity_like", ())),
                   frozenset(data.get("allowed_modules", ALLOWED_MODULES)))

    @classmethod
    def of_numpy(cls) -> Rules:
        """The rules with real NumPy as the library (the numpy mode): its public names in NUMPY_MODULES, but
        NUMPY_WITHHELD's."""
        import numpy

        modules = {name: getattr(numpy, name.partition(".")[2], None) if "." in name else numpy for name in NUMPY_MODULES}
        modules = {name: module for name, module in modules.items() if module is not None}
        public = {f"{name}.{attr}" for name, module in modules.items() for attr in dir(module)
                  if not attr.startswith("_") and attr not in NUMPY_WITHHELD}
        identity = frozenset(IDENTITY_LIKE) | {"numpy.ndarray"}
        return cls("numpy", frozenset(public | set(modules)), frozenset(modules), "numpy.array",
                   "numpy.ndarray", frozenset(IN_PLACE), identity)

    @classmethod
    def of_instance(cls, instance: Instance) -> Rules:
        """From the instance's private mapping, or, in a training view that has none, its rules file."""
        if not instance.mapping_path.is_file() and (instance.root / RULES_FILE).is_file():
            return cls.from_json(read_json_object(instance.root / RULES_FILE))
        return cls.from_mapping(instance.mapping())


@dataclass(frozen=True)
class StaticResult:
    verdict: str | None  # None: the program may run
    message: str = ""
    line: int | None = None


@dataclass
class _Scope:
    modules: dict = field(default_factory=dict)  # local name -> dotted module name of the package
    functions: dict = field(default_factory=dict)  # local name -> dotted public name


class _Subtrees:
    """The nodes below each node of one parsed program, in ast.walk's order, each subtree walked once
    (the rules ask about the same subtrees many times: every statement, every loop of the data flow)."""

    def __init__(self, tree: ast.AST):
        self._walked: dict = {}
        self._kinds: dict = {}
        self.nodes = self.walk(tree)

    def walk(self, node: ast.AST) -> list:
        got = self._walked.get(id(node))
        if got is None or got[0] is not node:
            got = self._walked[id(node)] = (node, list(ast.walk(node)))
        return got[1]

    def of_kind(self, node: ast.AST, kind: type | tuple) -> list:
        """The nodes of `node`'s subtree that are instances of `kind`, in walk order."""
        key = (id(node), kind)
        got = self._kinds.get(key)
        if got is None or got[0] is not node:
            got = self._kinds[key] = (node, [n for n in self.walk(node) if isinstance(n, kind)])
        return got[1]


class _Violation(Exception):
    def __init__(self, verdict: str, message: str, node: ast.AST | None = None):
        super().__init__(message)
        self.result = StaticResult(verdict, message, getattr(node, "lineno", None))


def check_code(code: str, entry_point: str, rules: Rules, selected: list | tuple = ()) -> StaticResult:
    """Applies the rules to `code`; `selected` are the task's package functions (for the constructor)."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError) as exc:
        return StaticResult("syntax_error", f"{type(exc).__name__}: {exc}", getattr(exc, "lineno", None))
    subtrees = _Subtrees(tree)
    try:
        scope = _check_imports(subtrees.nodes, rules)
        _check_access(subtrees.nodes, rules, scope)
        _check_data_flow(tree, subtrees, entry_point, rules, scope, selected)
    except _Violation as v:
        return v.result
    return StaticResult(None)


def package_calls(code: str, package: str) -> list[str]:
    """The dotted package names that `code` calls (public or not: a name the package lacks is a wrong name),
    sorted; what the report's *right call* signal reads. No rule is applied here; [] when it does not parse."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError):
        return []
    scope = _Scope()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package:
                    scope.modules[alias.asname or package] = alias.name if alias.asname else package
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package and not node.level:
            for alias in node.names:
                scope.functions[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts = _chain(node.func)
            dotted = _resolve(parts, scope) if parts else None
            if dotted is not None and dotted != package:
                found.add(dotted)
    return sorted(found)


# ------------------------------------------------------------------------------------------- imports

def _module_allowed(name: str, rules: Rules) -> bool:
    return name in rules.allowed_modules


def _check_imports(nodes: list, rules: Rules) -> _Scope:
    scope = _Scope()
    pkg = rules.package
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root == pkg:
                    _check_package_path(alias.name, rules, node)
                    if alias.asname:
                        scope.modules[alias.asname] = alias.name
                    else:
                        scope.modules[root] = root
                elif not _module_allowed(alias.name, rules):
                    raise _Violation("forbidden_import", f"import of '{alias.name}' is not allowed", node)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                raise _Violation("forbidden_import", "relative imports are not allowed", node)
            if module.split(".")[0] == pkg:
                _check_package_path(module, rules, node)
                for alias in node.names:
                    _bind_from_package(scope, module, alias, rules, node)
            elif not _module_allowed(module, rules):
                raise _Violation("forbidden_import", f"import from '{module}' is not allowed", node)
            else:
                for alias in node.names:
                    if alias.name in MODULES_HELD:
                        raise _Violation("forbidden_import", f"import of '{module}.{alias.name}' (a module that "
                                                             "may not be imported) is not allowed", node)
    return scope


def _check_package_path(dotted: str, rules: Rules, node: ast.AST) -> None:
    if any(part.startswith("_") for part in dotted.split(".")):
        raise _Violation("forbidden_access", f"'{dotted}' is not a public part of the package", node)
    if dotted not in rules.modules:
        raise _Violation("forbidden_access", f"'{dotted}' is not a public module of the package", node)


def _bind_from_package(scope: _Scope, module: str, alias: ast.alias, rules: Rules, node: ast.AST) -> None:
    if alias.name == "*":
        for name in rules.public:
            head, _, tail = name.rpartition(".")
            if head == module:
                (scope.modules if name in rules.modules else scope.functions)[tail] = name
        return
    full = f"{module}.{alias.name}"
    if alias.name.startswith("_") or full not in rules.public:
        raise _Violation("forbidden_access", f"'{full}' is not a public name of the package", node)
    local = alias.asname or alias.name
    (scope.modules if full in rules.modules else scope.functions)[local] = full


# -------------------------------------------------------------------------------------------- access

def _check_access(nodes: list, rules: Rules, scope: _Scope) -> None:
    bound = bound_names(nodes)
    bases = set()  # ids of Name nodes used as the base of an attribute
    inert = set()  # ids of strings that are whole statements (docstrings): never passed to anything
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            bases.add(id(node.value))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            inert.add(id(node.value))
    for node in nodes:
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise _Violation("forbidden_access", f"attribute '{node.attr}' (names starting with '_' are "
                                                     "not allowed)", node)
            if node.attr in BANNED_NAMES or node.attr in FRAME_ATTRIBUTES:
                raise _Violation("forbidden_access", f"'{node.attr}' is not allowed", node)
            if node.attr in ("format", "format_map") and not (isinstance(node.value, ast.Constant)
                                                             and isinstance(node.value.value, str)):
                raise _Violation("forbidden_access", f"'.{node.attr}' of a string that is not written out: its "
                                                     "fields would read attributes the rules cannot see", node)
            if node.attr in MODULES_HELD:
                raise _Violation("forbidden_access", f"attribute '{node.attr}' (a module that may not be imported, "
                                                     "as an allowed module's attribute) is not allowed", node)
            _check_package_attribute(node, rules, scope)
        elif isinstance(node, ast.Name):
            if node.id.startswith("__") and node.id not in ALLOWED_DUNDERS:
                raise _Violation("forbidden_access", f"name '{node.id}' is not allowed", node)
            if node.id in BANNED_NAMES and node.id not in bound:
                raise _Violation("forbidden_access", f"'{node.id}' is not allowed", node)
            if node.id in scope.modules and id(node) not in bases and isinstance(node.ctx, ast.Load):
                raise _Violation("forbidden_access", f"the package module '{node.id}' may only be used as "
                                                     f"'{node.id}.<name>'", node)
        elif isinstance(node, ast.alias) and node.name in BANNED_NAMES:
            raise _Violation("forbidden_access", f"'{node.name}' is not allowed", node)
        elif isinstance(node, ast.MatchClass):  # `case object(__globals__=g)` reads the attribute
            for attr in node.kwd_attrs:
                if attr.startswith("_") or attr in BANNED_NAMES or attr in FRAME_ATTRIBUTES:
                    raise _Violation("forbidden_access", f"pattern keyword '{attr}' is not allowed", node)
            if node.patterns and not (isinstance(node.cls, ast.Name) and node.cls.id in SELF_MATCHING
                                      and node.cls.id not in bound):
                raise _Violation("forbidden_access", "a class pattern with positional fields reads the attributes "
                                                     "its class's __match_args__ names: use keywords", node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inert:
            _check_string(node)


def _check_string(node: ast.Constant) -> None:
    text = node.value
    if text == "__main__":
        return
    if ("__" in text.replace("__main__", "") or _FORMAT_FIELD_UNDERSCORE.search(text)
            or "._" in text or _UNDERSCORE_IDENT.fullmatch(text)):
        raise _Violation("forbidden_access", f"string {text[:40]!r} names an underscore attribute", node)


def _chain(node: ast.AST) -> list | None:
    """['zwc', 'rfx', 'quvohe'] for zwc.rfx.quvohe; None if the base is not a plain name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _resolve(parts: list, scope: _Scope) -> str | None:
    """The dotted package name that an attribute chain starts with, or None."""
    if parts[0] in scope.modules:
        return ".".join([scope.modules[parts[0]], *parts[1:]])
    if parts[0] in scope.functions:
        return ".".join([scope.functions[parts[0]], *parts[1:]])
    return None


def _check_package_attribute(node: ast.Attribute, rules: Rules, scope: _Scope) -> None:
    parts = _chain(node)
    if not parts or parts[0] not in scope.modules:
        return
    dotted = _resolve(parts, scope)
    names = dotted.split(".")
    for i in range(2, len(names) + 1):
        prefix = ".".join(names[:i])
        if prefix in rules.modules:
            continue
        if prefix not in rules.public:
            raise _Violation("forbidden_access", f"'{prefix}' is not a public name of the package", node)
        if prefix != rules.array_type and i < len(names):
            raise _Violation("forbidden_access", f"attributes of '{prefix}' are not allowed", node)
        return


# ----------------------------------------------------------------------------------------- data flow

class _Flow:
    def __init__(self, subtrees: _Subtrees, rules: Rules, scope: _Scope, selected: list | tuple):
        self.rules = rules
        self.scope = scope
        self.subtrees = subtrees
        identity = set(rules.identity_like) | {rules.constructor, rules.array_type} - {None}
        self.no_count = set() if identity & set(selected) else identity
        self.functions = [n for n in subtrees.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.has_walrus = any(isinstance(n, ast.NamedExpr) for n in subtrees.nodes)
        self.derived: set = set()  # helper names whose return value depends on the package
        self.saw_identity = False

    def callee(self, call: ast.Call) -> str | None:
        """The dotted public name of the package function that `call` calls, or None."""
        parts = _chain(call.func)
        dotted = _resolve(parts, self.scope) if parts is not None else None
        if dotted is not None and dotted in self.rules.public and dotted not in self.rules.modules:
            return dotted
        return None

    def package_call(self, call: ast.Call) -> bool:
        """Whether `call` counts as a call into the package (identity-like functions do not)."""
        dotted = self.callee(call)
        if dotted is not None:
            if dotted in self.no_count:
                self.saw_identity = True
                return False
            return True
        parts = _chain(call.func)
        return parts is not None and parts[-1] in self.derived

    def tainted(self, expr: ast.AST | None, names: set) -> bool:
        if expr is None:
            return False
        for node in self.subtrees.of_kind(expr, (ast.Call, ast.Name)):
            if isinstance(node, ast.Call):
                if self.package_call(node):
                    return True
            elif isinstance(node.ctx, ast.Load) and node.id in names:
                return True
        return False

    def returns_derived(self, fn: ast.AST) -> bool:
        """Whether some return value of `fn` depends on a package call (parameters are clean)."""
        names: set = set()
        returns: list = []
        for _ in range(20):
            before = len(names)
            returns = []
            self.walk_block(fn.body, names, False, returns)
            if len(names) == before:
                break
        return any(returns)

    def walk_block(self, body: list, names: set, ctx: bool, returns: list) -> None:
        for stmt in body:
            self.walk_stmt(stmt, names, ctx, returns)

    def walk_stmt(self, stmt: ast.stmt, names: set, ctx: bool, returns: list) -> None:
        t = self.tainted
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(stmt, ast.Return):
            returns.append(ctx or t(stmt.value, names))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if ctx or t(stmt.value, names) or (isinstance(stmt, ast.AugAssign) and t(stmt.target, names)):
                for target in targets:
                    names.update(_target_names(target))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            inner = ctx or t(stmt.iter, names)
            if inner:
                names.update(_target_names(stmt.target))
            self.walk_block(stmt.body, names, inner, returns)
            self.walk_block(stmt.orelse, names, ctx, returns)
        elif isinstance(stmt, (ast.If, ast.While)):
            inner = ctx or t(stmt.test, names)
            self.walk_block(stmt.body, names, inner, returns)
            self.walk_block(stmt.orelse, names, inner, returns)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None and (ctx or t(item.context_expr, names)):
                    names.update(_target_names(item.optional_vars))
            self.walk_block(stmt.body, names, ctx, returns)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.walk_block(stmt.body, names, ctx, returns)
            for handler in stmt.handlers:
                self.walk_block(handler.body, names, ctx, returns)
            self.walk_block(stmt.orelse, names, ctx, returns)
            self.walk_block(stmt.finalbody, names, ctx, returns)
        elif isinstance(stmt, ast.Match):
            inner = ctx or t(stmt.subject, names)
            for case in stmt.cases:
                self.walk_block(case.body, names, inner, returns)
        elif isinstance(stmt, ast.Expr):
            self.mutation(stmt.value, names, ctx)
        compound = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
        if self.has_walrus and not isinstance(stmt, compound):
            for node in self.subtrees.of_kind(stmt, ast.NamedExpr):
                if ctx or t(node.value, names):
                    names.add(node.target.id)

    def mutation(self, expr: ast.AST, names: set, ctx: bool) -> None:
        """`out.append(x)`, `out.update(x)`...: a container fed with a derived value becomes derived;
        `pkg.put(out, ...)`: a package call may change the arrays it is given (in-place functions); an
        identity-like one (`pkg.copyto(out, x)`) only passes on what its arguments already are."""
        dotted = self.callee(expr) if isinstance(expr, ast.Call) else None
        if dotted is not None or (isinstance(expr, ast.Call) and self.package_call(expr)):
            args = list(expr.args) + [k.value for k in expr.keywords]
            if not (self.package_call(expr) or ctx or any(self.tainted(a, names) for a in args)):
                return
            changed = [k.value for k in expr.keywords if k.arg == "out"]
            if dotted in self.rules.in_place:
                changed += expr.args[:1] + [k.value for k in expr.keywords if k.arg in ("a", "arr", "dst")]
            for arg in changed:
                names.update(_target_names(arg))
            return
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            receiver = expr.func.value
            while isinstance(receiver, (ast.Attribute, ast.Subscript)):
                receiver = receiver.value
            if isinstance(receiver, ast.Name):
                args = list(expr.args) + [k.value for k in expr.keywords]
                if ctx or any(self.tainted(a, names) for a in args):
                    names.add(receiver.id)


def _target_names(target: ast.AST) -> set:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_target_names(e) for e in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        return _target_names(target.value)
    return set()


def _entry_function(tree: ast.Module, entry_point: str) -> ast.AST | None:
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            found = node
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == entry_point
                                                  for t in node.targets):
            if isinstance(node.value, ast.Lambda):
                found = ast.FunctionDef(name=entry_point, args=node.value.args,
                                        body=[ast.Return(value=node.value.body)], decorator_list=[])
            elif isinstance(node.value, ast.Name):
                found = next((d for d in tree.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                              and d.name == node.value.id), found)
    return found


def _check_data_flow(tree: ast.Module, subtrees: _Subtrees, entry_point: str, rules: Rules, scope: _Scope,
                     selected) -> None:
    fn = _entry_function(tree, entry_point)
    if fn is None:
        raise _Violation("not_using_package", f"no function '{entry_point}' is defined at the top level")
    flow = _Flow(subtrees, rules, scope, selected)
    lambdas = {n.targets[0].id: n.value for n in subtrees.nodes
               if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
               and isinstance(n.value, ast.Lambda)}
    for _ in range(len(flow.functions) + len(lambdas) + 1):
        before = len(flow.derived)
        for helper in flow.functions:
            if helper.name not in flow.derived and flow.returns_derived(helper):
                flow.derived.add(helper.name)
        for name, lam in lambdas.items():
            if name not in flow.derived and flow.tainted(lam.body, set()):
                flow.derived.add(name)
        if len(flow.derived) == before:
            break
    if not flow.returns_derived(fn):
        extra = (" (calls of the array constructor or of identity-like functions such as copy or asarray alone "
                 "do not count)") if flow.saw_identity else ""
        raise _Violation("not_using_package", f"the value returned by '{entry_point}' does not depend on a "
                                              f"call into '{rules.package}'{extra}", fn)

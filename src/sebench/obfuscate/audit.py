"""The leak audit: scans everything a model (or a program under test) can see for a path back to NumPy.

What is scanned:
  - datasets/ (every file; JSONL records field by field: prose fields such as `query` and `doc` with the
    prose rules, code fields such as `reference_solution`, `example`, test-case `input` and the `>>>`
    lines of docs with the code rules);
  - the generated package at run time, in a subprocess: docstrings of every public object, reprs and
    strs of arrays and of results (scalars, tuples, named results), and the error messages (type,
    message, traceback frames) of a few provoked failures (blocked methods, bad shapes, singular
    matrices, bad axes, bad types);
  - the package's files (source and data): no readable mapping, i.e. no NumPy function name on or next
    to the line of its new name, and no "numpy.<name>" key.
private/ is never scanned: models never see it. The `import numpy` inside the package is allowed.

Rules (kinds of Finding):
  numpy-word        the word numpy/NumPy
  ndarray           the word ndarray
  np-prefix         `np.` followed by a name
  numpy-backtick    a NumPy function name in backticks (`mean`), unless it is a parameter of the function
  numpy-identifier  a NumPy function or array-method name used as an identifier in code (`mean(x)`,
                    `x.sum()`), unless bound locally, a Python builtin or a method the package's array has
  missing-name      `pkg.xxx` that the package does not have
  private-name      `pkg._xxx` shown to models
  numpy-repr        `array(` / `dtype(` in a repr
  numpy-error       an error whose type lives in numpy or whose traceback runs through numpy's files
  readable-pair     a package file holding a NumPy name beside its new name, or a "numpy.<name>" key
  probe-failed      the package could not be imported or probed
Plain prose words such as "mean" or "sum" are fine.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import re
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from sebench import harness
from sebench.code_names import bound_names
from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import DATASETS_DIR, Instance
from sebench.obfuscate.surface import NUMPY_RENAMED

CODE_FIELDS = {"reference_solution", "function_name", "example", "input", "code", "signature"}
NAME_FIELDS = {"selected_functions", "name"}
# Array attributes that are generic words on ordinary Python objects (record.data, node.base, ...).
_GENERIC_ATTRS = {"data", "base", "flags", "device", "fill", "view", "item", "dump", "dumps"}
# Modules whose attributes are not NumPy's even when they share a name (math.sqrt, itertools.product).
_STDLIB_MODULES = set(getattr(sys, "stdlib_module_names", ())) | {"math", "cmath", "statistics"}

_NUMPY_WORD = re.compile(r"(?i)\bnumpy\b")
_NDARRAY = re.compile(r"(?i)\bndarrays?\b")
_NP_PREFIX = re.compile(r"(?<![\w.])np\.[A-Za-z_]")
_BACKTICK = re.compile(r"(?::(?P<role>[\w:+-]+):)?(?:``(?P<d>[^`]+?)``|(?<!`)`(?P<s>[^`\n]+?)`(?!`))")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_CHAIN = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:\s*\.\s*[A-Za-z_]\w*)+)")
_AFTER_CALL = re.compile(r"(?<=[)\]])\s*\.\s*([A-Za-z_]\w*)")
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_REPR_LEAK = re.compile(r"\b(array|dtype)\(")
_QUOTED = re.compile(r"'([A-Za-z_]\w*)'")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.text}"


@functools.lru_cache(maxsize=1)
def numpy_function_names() -> frozenset[str]:
    """Names of NumPy's public functions (numpy.*, numpy.linalg.*), the surface's classes included."""
    import numpy

    names = set()
    for module in (numpy, numpy.linalg):
        for name in dir(module):
            obj = getattr(module, name, None)
            if name.startswith("_") or obj is None or isinstance(obj, (types.ModuleType, type)):
                continue
            if callable(obj):
                names.add(name)
    names.update({"vectorize", "ndarray", *NUMPY_RENAMED})  # the surface's old names too
    return frozenset(names)


@functools.lru_cache(maxsize=1)
def numpy_array_attrs() -> frozenset[str]:
    import numpy

    return frozenset(a for a in dir(numpy.ndarray) if not a.startswith("_"))


@functools.lru_cache(maxsize=1)
def _builtin_type_attrs() -> frozenset[str]:
    kinds = (str, bytes, list, tuple, dict, set, frozenset, int, float, complex, bool, range)
    return frozenset(a for t in kinds for a in dir(t) if not a.startswith("_"))


@dataclass(frozen=True)
class Surface:
    """What the package offers, as far as the rules need it."""

    package: str
    linalg: str = ""
    array_type: str = ""
    top_names: frozenset = frozenset()  # public attributes of the package
    linalg_names: frozenset = frozenset()  # public attributes of the linalg submodule
    array_attrs: frozenset = frozenset()  # public attributes of the package's array type

    @classmethod
    def from_mapping(cls, mapping: dict, array_attrs=()) -> Surface:
        """A surface inferred from mapping.json alone (no import of the package)."""
        pkg, lin = mapping["package"], mapping.get("linalg", "")
        top, sub = set(), set()
        for public in [*list(mapping.get("functions", {}).values()), mapping.get("constructor", "")]:
            parts = public.split(".")
            if len(parts) == 2 and parts[0] == pkg:
                top.add(parts[1])
            elif len(parts) == 3 and parts[1] == lin:
                sub.add(parts[2])
        top.update(x for x in (lin, mapping.get("array_type", "")) if x)
        return cls(pkg, lin, mapping.get("array_type", ""), frozenset(top), frozenset(sub), frozenset(array_attrs))


class LeakChecker:
    """The rules, applied to one piece of prose or code; returns (line within the text, kind, snippet)."""

    def __init__(self, surface: Surface):
        self.s = surface
        self.fnames = numpy_function_names()
        self.attr_names = (
            (self.fnames | numpy_array_attrs()) - _builtin_type_attrs() - _GENERIC_ATTRS - surface.array_attrs
        )
        self._pkg_chain = re.compile(rf"(?<![\w.]){re.escape(surface.package)}((?:\.[A-Za-z_]\w*)+)")

    # ---- prose -------------------------------------------------------------------------------
    def prose(self, text: str, params: frozenset = frozenset()) -> list[tuple[int, str, str]]:
        out = []
        for lineno, line in enumerate(text.split("\n"), start=1):
            out += [(lineno, k, s) for k, s in self._words(line)]
            out += [(lineno, k, s) for k, s in self._backticks(line, params)]
            out += [(lineno, k, s) for k, s in self._chains(line, params)]
        return out

    def _words(self, line: str) -> list[tuple[str, str]]:
        out = [("numpy-word", m.group(0)) for m in _NUMPY_WORD.finditer(line)]
        out += [("ndarray", m.group(0)) for m in _NDARRAY.finditer(line)]
        out += [("np-prefix", line[m.start() : m.start() + 24]) for m in _NP_PREFIX.finditer(line)]
        for m in self._pkg_chain.finditer(line):
            kind = self._missing(m.group(1).split(".")[1:])
            if kind:
                out.append((kind, m.group(0)))
        return out

    def _missing(self, parts: list[str]) -> str | None:
        """'missing-name' / 'private-name' / None for the attribute chain after the package name."""
        if parts[0].startswith("_"):
            return "private-name"
        if parts[0] not in self.s.top_names:
            return "missing-name"
        if parts[0] == self.s.linalg and len(parts) > 1:
            if parts[1].startswith("_"):
                return "private-name"
            if parts[1] not in self.s.linalg_names:
                return "missing-name"
        return None

    def _backticks(self, line: str, params: frozenset) -> list[tuple[str, str]]:
        out = []
        for m in _BACKTICK.finditer(line):
            if (m.group("role") or "").endswith("math"):
                continue
            content = (m.group("d") or m.group("s")).strip().lstrip("~")
            bare = content[:-2] if content.endswith("()") else content
            if _IDENT.fullmatch(bare):
                if bare in self.fnames and bare not in params:
                    out.append(("numpy-backtick", m.group(0)))
            else:
                out += self._calls(content, params)
        return out

    def _calls(self, code: str, params: frozenset) -> list[tuple[str, str]]:
        """Bare calls of NumPy function names inside a code-like snippet (not builtins or parameters)."""
        out = []
        for m in _CALL.finditer(code):
            name = m.group(1)
            if name in self.fnames and name not in params and not hasattr(builtins, name):
                out.append(("numpy-identifier", m.group(0)))
        return out

    def _chains(self, line: str, params: frozenset) -> list[tuple[str, str]]:
        """Dotted names `x.sum`, `scipy.linalg.eig`, `f(x).sum()`: NumPy method or function names after a
        root that is not the package."""
        out = [("numpy-identifier", m.group(0)) for m in _AFTER_CALL.finditer(line) if m.group(1) in self.attr_names]
        for m in _CHAIN.finditer(line):
            root = m.group(1)
            parts = [p.strip() for p in m.group(2).split(".")[1:]]
            if root == self.s.package or root in _STDLIB_MODULES:
                continue
            if root in ("np", "numpy"):
                continue  # reported as np-prefix / numpy-word
            for part in parts:
                if part in self.attr_names:
                    out.append(("numpy-identifier", m.group(0).replace(" ", "")))
                    break
        return out

    # ---- code --------------------------------------------------------------------------------
    def code(self, source: str, params: frozenset = frozenset()) -> list[tuple[int, str, str]]:
        out = []
        for lineno, line in enumerate(source.split("\n"), start=1):
            out += [(lineno, k, s) for k, s in self._words(line)]
        try:
            tree = ast.parse(source)
        except SyntaxError:
            for lineno, line in enumerate(source.split("\n"), start=1):
                out += [(lineno, k, s) for k, s in self._chains(line, params)]
                out += [(lineno, k, s) for k, s in self._calls(line, params)]
            return out
        return out + self._code_tree(tree, params)

    def _code_tree(self, tree: ast.AST, params: frozenset) -> list[tuple[int, str, str]]:
        nodes = list(ast.walk(tree))
        bound, modules = set(params) | bound_names(nodes), set()  # modules: imported ones not the package
        for node in nodes:
            if isinstance(node, ast.Import):
                modules |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                            if alias.name.split(".")[0] != self.s.package}
            elif isinstance(node, ast.ImportFrom) and node.module == self.s.package:
                for alias in node.names:
                    missing = self._missing([alias.name])
                    if missing:
                        return [(node.lineno, missing, f"from {node.module} import {alias.name}")]
        out = []
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                name = node.id
                if name in self.fnames and name not in bound and not hasattr(builtins, name):
                    out.append((node.lineno, "numpy-identifier", name))
            elif isinstance(node, ast.Attribute) and node.attr in self.attr_names:
                root = node.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and (root.id == self.s.package or root.id in modules):
                    continue
                out.append((node.lineno, "numpy-identifier", "." + node.attr))
        return out

    # ---- docs --------------------------------------------------------------------------------
    def doc(self, text: str, params: frozenset | None = None) -> list[tuple[int, str, str]]:
        """A rewritten doc: `>>>`/`...` lines are code (checked together), the rest prose."""
        params = doc_params(text) if params is None else params
        lines = text.split("\n")
        code_lines, code_at, out = [], [], []
        in_output = False
        for i, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped.startswith(">>>") or (stripped.startswith("...") and code_lines and in_output is None):
                code_lines.append(stripped[4:] if len(stripped) > 3 else "")
                code_at.append(i)
                in_output = None  # right after code: what follows is the shown output
            else:
                in_output = bool(stripped) and in_output is not False
                out += [(i, k, s) for _, k, s in self.prose(line, params)]
                if in_output:
                    out += [(i, "numpy-repr", m.group(0)) for m in _REPR_LEAK.finditer(line)]
        if code_lines:
            for j, kind, snippet in self.code("\n".join(code_lines)):
                out.append((code_at[min(j, len(code_at)) - 1], kind, snippet))
        return sorted(out)


def doc_params(text: str) -> frozenset:
    """Parameter and result names of a doc (its first-line signature and Parameters/Returns entries)."""
    names = set()
    first = text.lstrip("\n").split("\n", 1)[0]
    m = re.match(r"\s*[\w.]+\((.*)\)\s*$", first)
    if m:
        names.update(re.findall(r"(?:^|[,(\s*])\*{0,2}([A-Za-z_]\w*)\s*(?==|,|$)", m.group(1)))
    section = None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            section = line.strip()
            continue
        if section in ("Parameters", "Returns", "Other Parameters", "Yields"):
            m = re.match(r"^\*{0,2}([A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::|$)", line)
            if m and not line.startswith(" "):
                names.update(n.strip().lstrip("*") for n in m.group(1).split(","))
    return frozenset(names)


# ---------------------------------------------------------------------------------------------------
# The instance scan
# ---------------------------------------------------------------------------------------------------


def audit_instance(root: Path) -> list[Finding]:
    """All findings for an instance directory, sorted by path and line."""
    root = Path(root).resolve()  # the probe subprocess runs elsewhere
    mapping = json.loads(Instance(root).mapping_path.read_text(encoding="utf-8"))
    probe, findings = _probe(Instance(root).package_dir, mapping)
    surface = Surface(
        package=mapping["package"],
        linalg=mapping.get("linalg", ""),
        array_type=mapping.get("array_type", ""),
        top_names=frozenset(probe.get("top", ())) or Surface.from_mapping(mapping).top_names,
        linalg_names=frozenset(probe.get("linalg", ())) or Surface.from_mapping(mapping).linalg_names,
        array_attrs=frozenset(probe.get("array_attrs", ())),
    )
    checker = LeakChecker(surface)
    findings += _scan_datasets(root, checker)
    findings += _scan_probe(probe, checker)
    findings += _scan_package_files(root, mapping)
    return sorted(set(findings), key=lambda f: (f.path, f.line, f.kind, f.text))


def _scan_datasets(root: Path, checker: LeakChecker) -> list[Finding]:
    out = []
    base = root / DATASETS_DIR
    for path in sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".jsonl":
            for lineno, line in enumerate(text.split("\n"), start=1):
                if line.strip():
                    out += _scan_record(rel, lineno, line, checker)
        else:
            out += [Finding(rel, i, k, s) for i, k, s in checker.prose(text)]
    return out


def _scan_record(rel: str, lineno: int, line: str, checker: LeakChecker) -> list[Finding]:
    try:
        record = parse_json(line, rel)
    except SebenchError:  # not JSON, nested too deep, a number too long
        return [Finding(rel, lineno, "unreadable", "not valid JSON")]
    params = frozenset()
    if isinstance(record, dict) and isinstance(record.get("doc"), str):
        params = doc_params(record["doc"]) | doc_params(str(record.get("signature", "")))
    out = []
    for key, value in json_strings(record):
        if key == "doc":
            hits = [(k, f"doc line {i}: {s}") for i, k, s in checker.doc(value, params)]
        elif key in NAME_FIELDS:
            hits = [(k, f"{key}: {s}") for _, k, s in checker.prose(value)]
        elif key in CODE_FIELDS:
            code = f"_f({value})" if key == "input" else value
            hits = [(k, f"{key}: {s}") for _, k, s in checker.code(code, params)]
        else:
            hits = [(k, f"{key}: {s}") for _, k, s in checker.prose(value, params)]
        out += [Finding(rel, lineno, k, s) for k, s in hits]
    return out


def json_strings(obj, key: str = ""):
    """(field name, string) for every string inside a JSON value; list items keep their field's name."""
    if isinstance(obj, str):
        yield key, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from json_strings(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from json_strings(v, key)


def _scan_probe(probe: dict, checker: LeakChecker) -> list[Finding]:
    out = []
    for name, doc in sorted(probe.get("docs", {}).items()):
        out += [Finding(f"<docstring>/{name}", i, k, s) for i, k, s in checker.doc(doc)]
    for label, text in probe.get("reprs", []):
        hits = checker.prose(text) + [(i + 1, "numpy-repr", m.group(0)) for i, ln in enumerate(text.split("\n"))
                                      for m in _REPR_LEAK.finditer(ln)]
        out += [Finding(f"<repr>/{label}", i, k, s) for i, k, s in hits]
    for label, module, tname, message, numpy_frames in probe.get("errors", []):
        path = f"<error>/{label}"
        if module.split(".")[0] == "numpy":
            out.append(Finding(path, 1, "numpy-error", f"error type {module}.{tname}"))
        if numpy_frames:
            out.append(Finding(path, 1, "numpy-error", f"traceback runs through {numpy_frames}"))
        hits = checker.prose(message) + [(1, k, s) for k, s in checker._calls(message, frozenset())]
        hits += [(1, "numpy-backtick", f"'{q}'") for q in _QUOTED.findall(message) if q in checker.fnames]
        out += [Finding(path, i, k, s) for i, k, s in hits]
    for problem in probe.get("problems", []):
        out.append(Finding("<probe>", 1, "probe-failed", problem))
    return out


def _scan_package_files(root: Path, mapping: dict) -> list[Finding]:
    pairs = {}
    for key, public in mapping.get("functions", {}).items():
        pairs.setdefault(public.rsplit(".", 1)[1], set()).add(key.rsplit(".", 1)[1])
    out = []
    base = Instance(root).package_dir
    for path in sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        text = path.read_bytes().decode("latin-1")
        lines = text.split("\n")
        words = [set(re.findall(r"[A-Za-z_]\w*", ln)) for ln in lines]
        for i, ws in enumerate(words):
            for m in re.finditer(r"numpy\.(?:linalg\.)?[A-Za-z_]\w*", lines[i]):
                if m.group(0).rsplit(".", 1)[1] in numpy_function_names():
                    out.append(Finding(rel, i + 1, "readable-pair", f"mapping key {m.group(0)}"))
            for new in ws & pairs.keys():
                near = set().union(*words[max(0, i - 1) : i + 2])
                for old in sorted(pairs[new] & near):
                    out.append(Finding(rel, i + 1, "readable-pair", f"{old} beside {new}"))
    return out


def _probe(package_dir: Path, mapping: dict) -> tuple[dict, list[Finding]]:
    """Runs sebench.harness's `probe` against the package in a child process (so that a broken package
    cannot break the audit); a failure becomes a probe-failed finding."""
    try:
        proc = harness.run("probe", package_dir, json.dumps(mapping), timeout=120, cwd=str(package_dir))
    except subprocess.TimeoutExpired:
        return {}, [Finding("<probe>", 1, "probe-failed", "the probe timed out after 120 s")]
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, [Finding("<probe>", 1, "probe-failed", f"exit {proc.returncode}: {last}")]
    return json.loads(proc.stdout), []

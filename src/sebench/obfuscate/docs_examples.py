"""The Examples section: doctest parsing, NumPy names in code replaced, and what cannot be kept.

A statement is dropped before it runs when, after renaming, it still names something the package lacks
(np.random, scipy, matplotlib, x.sum(), ...) by the audit's own code rules, or uses a name bound by a
dropped statement.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

from sebench.obfuscate.audit import LeakChecker
from sebench.obfuscate.docs_code import RNG_CREATE, RNG_SEED, replace_methods, replace_random, replace_scalar_calls
from sebench.obfuscate.docs_text import CODE_CONSTANTS, Namer

_BANNED_CODE = re.compile(r"(?i)\b(matplotlib|plt|scipy|pandas|random|ufunc|np\.ma|testing|ctypes|datetime64)\b")


@dataclass
class Stmt:
    source: str  # rewritten source; empty when dropped
    original: str
    binds: list = field(default_factory=list)
    loads: set = field(default_factory=set)
    drop: str = ""  # why it was dropped ("" = kept)
    output: str = ""  # the real output, once run


@dataclass
class Chunk:
    kind: str  # "text" | "code"
    lines: list = field(default_factory=list)  # text lines
    stmts: list = field(default_factory=list)  # Stmt list for code


def parse_examples(lines: list[str]) -> list[Chunk]:
    """Text paragraphs and runs of `>>>` statements (their shown outputs are discarded)."""
    chunks: list[Chunk] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith(">>>"):
            src = [line[4:] if len(line) > 3 else ""]
            i += 1
            while i < len(lines) and (lines[i].strip() == "..." or lines[i].strip().startswith("... ")):
                src.append(lines[i].strip()[4:])
                i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                i += 1  # the shown output: replaced by the real one
            if not chunks or chunks[-1].kind != "code":
                chunks.append(Chunk("code"))
            text = "\n".join(src)
            chunks[-1].stmts.append(Stmt(text, text))
        elif not line:
            if chunks and chunks[-1].kind == "text" and chunks[-1].lines and chunks[-1].lines[-1] != "":
                chunks[-1].lines.append("")
            i += 1
        else:
            if not chunks or chunks[-1].kind != "text":
                chunks.append(Chunk("text"))
            chunks[-1].lines.append(lines[i].rstrip())
            i += 1
    return chunks


def strip_comments(source: str) -> str:
    """The source without comments (doctest directives, `# may vary`, remarks naming NumPy)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.split("\n")
    for tok in reversed(tokens):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col].rstrip()
    return "\n".join(ln for ln in lines if ln.strip())


def names_of(source: str) -> tuple[list[str], set[str]]:
    """(names a statement binds, names it loads); ([], set()) when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], set()
    binds, loads = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                binds.append(node.id)
            else:
                loads.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            binds.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds += [a.asname or a.name.split(".")[0] for a in node.names]
    # comprehension/lambda variables are not bindings of the namespace
    local = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    local |= {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
              if isinstance(n, ast.Name)}
    return sorted(set(binds) - local), loads - local


@dataclass
class CodeRewriter:
    """Renames NumPy in the statements of one example (aliases from its import lines)."""

    namer: Namer
    checker: LeakChecker
    main_aliases: set = field(default_factory=lambda: {"np", "numpy"})
    lin_aliases: set = field(default_factory=set)
    bare: dict = field(default_factory=dict)  # from numpy import X -> replacement
    rngs: set = field(default_factory=set)  # names bound to np.random.default_rng()

    def reset(self) -> None:
        """A new section: its own imports and generators."""
        self.main_aliases, self.lin_aliases, self.bare, self.rngs = {"np", "numpy"}, set(), {}, set()
    uses_math: bool = False

    def imports(self, source: str) -> str | None:
        """Handles a NumPy import: records aliases and returns "" (statement vanishes); None otherwise."""
        if RNG_SEED.match(source):
            return ""
        m = RNG_CREATE.match(source)
        if m:
            self.rngs.add(m.group(1))
            return ""
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return None
        if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
            return None
        node = tree.body[0]
        if isinstance(node, ast.Import):
            if not all(a.name.split(".")[0] == "numpy" for a in node.names):
                return None
            for a in node.names:
                if a.name == "numpy":
                    self.main_aliases.add(a.asname or "numpy")
                elif a.name == "numpy.linalg":
                    (self.lin_aliases.add(a.asname) if a.asname else None)
                else:
                    return None
            return ""
        if node.module == "numpy":
            for a in node.names:
                if a.name == "linalg":
                    self.lin_aliases.add(a.asname or "linalg")
                elif self.namer.dotted(False, a.name):
                    self.bare[a.asname or a.name] = self.namer.dotted(False, a.name)
                elif a.name in CODE_CONSTANTS:
                    self.bare[a.asname or a.name] = CODE_CONSTANTS[a.name]
                else:
                    return None
            return ""
        if node.module == "numpy.linalg":
            for a in node.names:
                if not self.namer.dotted(True, a.name):
                    return None
                self.bare[a.asname or a.name] = self.namer.dotted(True, a.name)
            return ""
        return None

    def _ref(self, m: re.Match) -> str:
        alias, lin, name, rest = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        in_lin = bool(lin) or alias in self.lin_aliases
        if in_lin:
            public = self.namer.dotted(True, name)
        elif name == "ndarray" or rest:
            public = None
        elif name in CODE_CONSTANTS:
            public = CODE_CONSTANTS[name]
        else:
            public = self.namer.dotted(False, name) or _dtype_string(name)
        if public is None:
            raise ValueError(m.group(0))
        return public + rest

    def rewrite(self, source: str) -> str:
        """The statement in package names; ValueError when a NumPy name has no counterpart."""
        source = strip_comments(source)
        functions = self.namer.mapping["functions"]
        source = replace_random(source, self.rngs, functions)
        source = replace_scalar_calls(source, self.main_aliases, self.namer.mapping.get("constructor", ""))
        aliases = sorted(self.main_aliases | self.lin_aliases, key=len, reverse=True)
        if aliases:
            pattern = rf"(?<![\w.])({'|'.join(map(re.escape, aliases))})\.(linalg\.)?([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)"
            source = re.sub(pattern, self._ref, source)
        for name, public in sorted(self.bare.items()):
            source = re.sub(rf"(?<![\w.'\"]){re.escape(name)}\b", public, source)
        skip = {self.namer.package, "math", "cmath", "itertools", "functools", "operator"}
        source = replace_methods(source, functions, self.checker.s.array_attrs, skip)
        if "math." in source:
            self.uses_math = True
        return source


def _dtype_string(name: str) -> str | None:
    """np.float32 -> 'float32' (the package passes dtype names through); None if not a scalar type."""
    import numpy

    obj = getattr(numpy, name, None)
    if isinstance(obj, type) and issubclass(obj, numpy.generic):
        try:
            return repr(numpy.dtype(obj).name)
        except TypeError:
            return None
    return None


UNINITIALISED = ("numpy.empty", "numpy.empty_like")


def _uninitialised(source: str, namer: Namer) -> bool:
    """Calls empty/empty_like for anything but its shape: the values are whatever memory held (the two
    runs may well agree on them, so this is not left to the stability check)."""
    names = [namer.mapping["functions"][k] for k in UNINITIALISED if k in namer.mapping["functions"]]
    shape = namer.mapping["functions"].get("numpy.shape", "\0")
    for name in names:
        for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\(", source):
            if not source[: m.start()].rstrip().endswith(shape + "("):
                return True
    return False


def prepare(chunks: list[Chunk], rewriter: CodeRewriter) -> None:
    """Rewrites every statement and marks the static drops (and what depends on them)."""
    tainted: set[str] = set()
    bound: set[str] = set()
    for chunk in chunks:
        for st in chunk.stmts:
            imp = rewriter.imports(strip_comments(st.original))
            if imp == "":
                st.source, st.drop = "", "import"
                continue
            try:
                src = rewriter.rewrite(st.original)
            except ValueError:
                src, st.drop = st.original, "numpy-only name"
            st.source = src
            st.binds, st.loads = names_of(src)
            if not st.drop:
                if not src.strip():
                    st.drop = "comment"
                elif _BANNED_CODE.search(src) or rewriter.checker.code(src, frozenset(bound)):
                    st.drop = "outside the package"
                elif st.loads & tainted:
                    st.drop = "depends on a dropped statement"
                elif _uninitialised(src, rewriter.namer):
                    st.drop = "uninitialised values"
            if st.drop:
                tainted.update(st.binds)
            else:
                tainted.difference_update(st.binds)
                bound.update(st.binds)

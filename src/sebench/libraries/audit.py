"""The leak audit of an instance made from a library other than NumPy (docs/libraries.md).

What is scanned, with the rules (kinds of Finding):
  - datasets/ (every file; JSONL records field by field):
      module-path   the original's module path or registry name, anywhere (case-insensitive)
      leak-word     a word of the library's leak_words, anywhere
      original-name an original surface name in a code position: code fields (reference_solution, example,
                    signature, test inputs, ...) except names the code binds itself (an import from a
                    module still counts) and string literals; in prose, inside backticks (another
                    module's name ending in one too: `itertools.pairwise`), on `>>>`/`...` lines (outside
                    string literals), or called (`name(`)
  - the package at run time (sebench.libraries.child probe): reprs of every public object and of what it
    returns, and the errors that bad arguments provoke; besides the rules above (an original name counts
    there when called, quoted, before `>`, or after `<`, `.`, "function ", "class " or "object "):
      original-error  an error whose type is not builtin, or whose traceback runs through the original's files
  - the package's files:
      readable-pair   an original name on or beside the line of its public name
      module-path / leak-word as above
private/ is never scanned: models never see it.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import json
import re
from pathlib import Path

from sebench.code_names import bound_names
from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import DATASETS_DIR, Instance
from sebench.obfuscate import json_strings

CODE_FIELDS = {"reference_solution", "function_name", "example", "input", "code", "signature"}
IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
BACKTICK = re.compile(r"`+([^`\n]+?)`+")
STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
DOTTED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)")  # `itertools.pairwise`: (head, last)
RUNTIME_POSITION = re.compile(r"(?:(?<=[<.'\"])|(?<=\bfunction )|(?<=\bclass )|(?<=\bobject ))([A-Za-z_]\w*)"
                              r"|([A-Za-z_]\w*)(?=[('\">])")


class LibraryChecker:
    """The audit's rules for one instance, from its private mapping."""

    def __init__(self, mapping: dict):
        self.originals = frozenset(k.rpartition(".")[2] for k in {**mapping["functions"], **mapping.get("types", {})})
        self.originals -= set(dir(builtins))
        self.package = mapping.get("package", "")
        words = {mapping["module"], mapping["module"].split(".")[0], mapping["library"]}
        self.module = re.compile(r"(?i)(?<![\w-])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len,
                                                                                             reverse=True)) + r")(?![\w-])")
        leak = sorted(mapping.get("leak_words", []), key=len, reverse=True)
        self.leak = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in leak) + r")\b") if leak else None

    def anywhere(self, text: str) -> list[tuple[str, str]]:
        hits = [("module-path", m.group(0)) for m in self.module.finditer(text)]
        return hits + ([("leak-word", m.group(0)) for m in self.leak.finditer(text)] if self.leak else [])

    def code(self, text: str) -> list[tuple[str, str]]:
        """An original name used as an identifier, unless the code binds it itself."""
        try:
            tree = ast.parse(text)
            imported = {a.name.split(".")[-1] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
            own = bound_names(ast.walk(tree)) - imported  # `from pkg import first` names the original
            used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | imported
            used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        except SyntaxError:  # an example (`>>> call` and its output): the names outside string literals
            own, used = set(), set(IDENT.findall(STRING.sub("", text)))
        return [("original-name", name) for name in sorted((used - own) & self.originals)]

    def prose(self, text: str) -> list[tuple[str, str]]:
        hits = []
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped.startswith((">>>", "...")):
                hits += [("original-name", n) for n in IDENT.findall(STRING.sub("", stripped[3:])) if n in self.originals]
                continue
            for span in BACKTICK.findall(line):
                hits += [("original-name", n) for n in IDENT.findall(span) if n in self.originals]
                hits += [("original-name", f"{head}.{n}") for head, n in DOTTED.findall(span)
                         if n in self.originals and head.split(".")[0] != self.package]
            hits += [("original-name", n) for n in CALL.findall(line) if n in self.originals]
        return hits

    def runtime(self, text: str) -> list[tuple[str, str]]:
        names = {a or b for a, b in RUNTIME_POSITION.findall(text)}
        return self.anywhere(text) + [("original-name", n) for n in sorted(names & self.originals)]


def audit_library_instance(root: Path, probe: dict) -> list[str]:
    """Every finding as "path:line: kind: field: text", sorted by path and line."""
    inst = Instance(Path(root))
    mapping = json.loads(inst.mapping_path.read_text(encoding="utf-8"))
    checker = LibraryChecker(mapping)
    found = _scan_datasets(inst.root, checker) + _scan_probe(probe, checker, mapping["module"])
    found += _scan_package(inst, checker, mapping)
    return sorted(set(found), key=lambda f: (f[0], f[1], f[2], f[3]))


def _scan_datasets(root: Path, checker: LibraryChecker) -> list:
    out = []
    base = root / DATASETS_DIR
    for path in sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                record = parse_json(line, rel) if path.suffix == ".jsonl" else line
            except SebenchError:  # not JSON, nested too deep, a number too long
                out.append((rel, lineno, "unreadable", "line", "not valid JSON"))
                continue
            for field, text in json_strings(record, "text"):
                hits = checker.anywhere(text)
                hits += checker.code(f"_f({text})" if field == "input" else text) if field in CODE_FIELDS \
                    else checker.prose(text)
                out += [(rel, lineno, kind, field, word) for kind, word in hits]
    return out


def _scan_probe(probe: dict, checker: LibraryChecker, module: str) -> list:
    spec = importlib.util.find_spec(module.split(".")[0])
    origin = Path(spec.origin) if spec and spec.origin else None
    home = (str(origin.parent) + "/" if origin.name == "__init__.py" else str(origin)) if origin else None
    out = []
    for label, text in probe.get("reprs", []):
        out += [(f"<repr>/{label}", 1, kind, "repr", word) for kind, word in checker.runtime(text)]
    for label, type_module, type_name, message, frames in probe.get("errors", []):
        path = f"<error>/{label}"
        if type_module != "builtins":
            out.append((path, 1, "original-error", "type", f"{type_module}.{type_name}"))
        for frame in frames:
            file, _, function = frame.rpartition(":")
            if (home and file.startswith(home)) or function in checker.originals:
                out.append((path, 1, "original-error", "traceback", frame))
        out += [(path, 1, kind, "message", word) for kind, word in checker.runtime(message)]
    return out


def _scan_package(inst: Instance, checker: LibraryChecker, mapping: dict) -> list:
    pairs: dict[str, set[str]] = {}
    for key, public in {**mapping["functions"], **mapping.get("types", {})}.items():
        pairs.setdefault(public.rpartition(".")[2], set()).add(key.rpartition(".")[2])
    out = []
    base = inst.package_dir
    for path in sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []:
        rel = path.relative_to(inst.root).as_posix()
        lines = path.read_bytes().decode("latin-1").split("\n")
        words = [set(IDENT.findall(ln)) for ln in lines]
        for i, ws in enumerate(words):
            near = set().union(*words[max(0, i - 1): i + 2])
            out += [(rel, i + 1, "readable-pair", "file", f"{old} beside {new}")
                    for new in sorted(ws & pairs.keys()) for old in sorted(pairs[new] & near)]
            out += [(rel, i + 1, kind, "file", word) for kind, word in checker.anywhere(lines[i])]
    return out

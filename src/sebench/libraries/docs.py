"""A library's docs for its package: each docstring rewritten with public names, its `>>>` examples run
against the built package and kept only where they reproduce (docs/libraries.md).

Rewriting: Sphinx roles (:func:`chunked`) become backticked public names; in code positions (`>>>` and
`...` lines, backticks, `name(` in prose) an original name becomes the public one (`pkg.name` in examples,
which start with `>>> import pkg`); the module path becomes the package's name everywhere. A prose paragraph
that cross-refers to a name the package lacks, or to another module's function of an original name
(`itertools.pairwise`), is dropped. Plain prose words are left alone ("the first item"): the leak audit
checks what is left.
"""

from __future__ import annotations

import doctest
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from sebench.errors import SebenchError
from sebench.libraries.contract import Library
from sebench.libraries.names import LibraryNames, original_object
from sebench.records import ApiDoc

ROLE = re.compile(r":[\w:]+:`~?([\w.]+)`")
BACKTICK = re.compile(r"``?([^`\n]+?)``?")
IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
CALL = re.compile(r"(?<![\w.`])([A-Za-z_]\w*)\(")
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
DOTTED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)")  # `itertools.pairwise`: (head, last)
IMPORT = re.compile(r"^(\s*(?:>>>|\.\.\.)\s*)from\s+[\w.]+\s+import\s+(.*)$")


class Rewriter:
    """Rewrites one library's texts with an instance's public names."""

    def __init__(self, library: Library, names: LibraryNames):
        self.package = names.package
        self.public = {key.rpartition(".")[2]: pub.rpartition(".")[2] for key, pub in names.public().items()}
        self.hidden = (outside_names(library) | set(library.leak_words)) - set(self.public)
        parts = sorted({library.module, *library.module.split(".")[:1]}, key=len, reverse=True)
        self.module = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in parts) + r")((?:\.\w+)*)")

    def _qualified(self, match: re.Match) -> str:
        last = match.group(1).rpartition(".")[2]
        return f"{self.package}.{self.public[last]}" if last in self.public else self.package

    def code(self, line: str, qualify: bool = True) -> str:
        """A line of code: the module path and every original name to public names."""
        line = self.module.sub(self._qualified, line)
        imported = IMPORT.match(line)
        if imported:
            names = IDENT.sub(lambda m: self.public.get(m.group(1), m.group(1)), imported.group(2))
            return f"{imported.group(1)}from {self.package} import {names}"
        prefix = f"{self.package}." if qualify else ""
        return IDENT.sub(lambda m: prefix + self.public[m.group(1)] if m.group(1) in self.public else m.group(1), line)

    def prose(self, line: str) -> str:
        """A line of prose: roles and backticks rewritten as code, `name(` too, the module path replaced."""
        line = ROLE.sub(lambda m: "`" + self.code(m.group(1), qualify=False) + "`", line)
        line = BACKTICK.sub(lambda m: m.group(0).replace(m.group(1), self.code(m.group(1), qualify=False)), line)
        line = CALL.sub(lambda m: self.public.get(m.group(1), m.group(1)) + "(", line)
        return self.module.sub(self._qualified, line)

    def refers_to_hidden(self, paragraph: list[str]) -> bool:
        """Whether a prose paragraph cross-refers (role, backticks, call) to a name the package lacks."""
        text = "\n".join(paragraph)
        spans = ROLE.findall(text) + BACKTICK.findall(text) + CALL.findall(text)
        return any(set(IDENT.findall(span.replace(".", " "))) & self.hidden or self.names_elsewhere(span)
                   for span in spans)

    def names_elsewhere(self, span: str) -> bool:
        """Whether `span` names another module's function of an original name (`itertools.pairwise`,
        `str.strip`): it would tell the original name of a public one."""
        return any(m.group(2) in self.public and not self.module.fullmatch(m.group(1)) for m in DOTTED.finditer(span))

    def doc(self, text: str) -> str:
        """The docstring rewritten; prose paragraphs that refer to names outside the surface are dropped."""
        out: list[str] = []
        paragraph: list[str] = []
        in_example = False
        for line in [*inspect.cleandoc(text or "").split("\n"), ""]:
            if line.lstrip().startswith((">>>", "...")) or not line.strip():
                if paragraph and not self.refers_to_hidden(paragraph):
                    out += [self.prose(ln) for ln in paragraph]
                paragraph = []
                in_example = bool(line.strip())
                out.append(self.code(line) if in_example else line)
            elif in_example:
                out.append(self.prose(line))  # an example's expected output
            else:
                paragraph.append(line)
        return "\n".join(out).strip("\n")


def outside_names(library: Library) -> set[str]:
    """The names the library defines itself (functions, classes) beyond any surface: what its docs'
    cross references may point to."""
    import importlib

    module = importlib.import_module(library.module)
    return {name for name, obj in vars(module).items()
            if str(getattr(obj, "__module__", "")).split(".")[0] == library.module.split(".")[0]}


def signature(key: str, public: str, rewriter: Rewriter) -> str:
    try:
        sig = str(inspect.signature(original_object(key)))
    except (TypeError, ValueError):
        sig = "(*args, **kwargs)"
    return public.rpartition(".")[2] + rewriter.code(ADDRESS.sub("", sig), qualify=False)


def with_examples(doc: str, package: str, keep: set[int]) -> str:
    """The doc with only the examples at `keep` (doctest's parse order), under one `>>> import package`."""
    out, index = [], 0
    for part in doctest.DocTestParser().parse(doc):
        if isinstance(part, str):
            out.append(part)
            continue
        if index in keep:
            src = part.source.rstrip("\n").split("\n")
            lines = [">>> " + src[0], *("... " + s for s in src[1:]), *part.want.rstrip("\n").split("\n")]
            out.append("".join(" " * part.indent + ln + "\n" for ln in lines if ln or part.want))
        index += 1
    text = re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n")
    return re.sub(r"^([ \t]*)>>> ", rf"\1>>> import {package}\n\1>>> ", text, count=1, flags=re.M) if keep else text


def run_child(command: str, request: dict, package_dir: Path, module: str, timeout: float = 600) -> dict:
    """The answer of sebench.libraries.child COMMAND run against the package made from `module`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package_dir), *original_paths(module)]),
           "PYTHONHASHSEED": "0"}  # an example printing a set of strings prints it in one order on every build
    try:
        proc = subprocess.run([sys.executable, "-m", "sebench.libraries.child", command], input=json.dumps(request),
                              capture_output=True, text=True, env=env, timeout=timeout, cwd=str(package_dir))
    except subprocess.TimeoutExpired:
        raise SebenchError(f"{command} of the built package took over {timeout:.0f} s") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SebenchError(f"{command} of the built package failed (exit {proc.returncode}): {last}")
    return json.loads(proc.stdout)


def original_paths(module: str) -> list[str]:
    """The sys.path folder of the original module (so that a user's module found on sys.path, not
    installed, is found by child processes too)."""
    import importlib.util

    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin)
    folder = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    return [str(folder.resolve())]


def original_doc(library: Library, key: str) -> str:
    """The library's docstring of a key; a failing or non-text `doc` is one line naming the key."""
    try:
        text = library.doc(key)
    except Exception as exc:  # noqa: BLE001 - a user's library: any failure is one line
        raise SebenchError(f"library {library.name}: field 'doc': doc({key!r}) failed: {type(exc).__name__}: {exc}") \
            from None
    if not isinstance(text, str):
        raise SebenchError(f"library {library.name}: field 'doc': doc({key!r}) returned {type(text).__name__}, not str")
    return text


def build_docs(package_dir: Path, library: Library, names: LibraryNames) -> list[ApiDoc]:
    """One ApiDoc per surface function, in surface order, with the examples that reproduce."""
    rewriter = Rewriter(library, names)
    public = names.public()
    texts = {pub.rpartition(".")[2]: rewriter.doc(original_doc(library, key)) for key, pub in public.items()}
    passed = run_child("examples", {"package": names.package, "docs": texts}, package_dir, library.module)
    out = []
    for key, pub in public.items():
        short = pub.rpartition(".")[2]
        sig = signature(key, pub, rewriter)
        body = with_examples(texts[short], names.package, set(passed[short]))
        out.append(ApiDoc(name=pub, signature=sig, doc=f"{sig}\n\n{body}".rstrip("\n") + "\n"))
    return out

"""Rewritten API docs for the generated package, from the installed NumPy's own docstrings.

build_docs(package_dir, mapping) -> one ApiDoc per function of the mapping, in mapping order:
  signature (public name), description, Parameters, Returns, Raises (builtin errors only), See Also
  (only functions the package has), Notes, Examples. Every NumPy identifier is replaced by the
  package's; sentences naming what the package lacks, URLs, citations and NumPy version notes are
  dropped (docs_text). Examples are run against the generated package (docs_exec) and show the real
  outputs; statements that fail or are unstable are dropped with their dependents (docs_examples), and
  a function left without an example gets a synthesised one (docs_synth). Deterministic: the same
  package and mapping give byte-identical docs.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sebench import harness
from sebench.obfuscate import docs_synth
from sebench.obfuscate.audit import LeakChecker, Surface, doc_params, numpy_function_names
from sebench.obfuscate.docs_examples import Chunk, CodeRewriter, Stmt, parse_examples, prepare
from sebench.obfuscate.docs_exec import MAX_OUTPUT_LINES, MAX_ROUNDS, run_examples
from sebench.obfuscate.docs_text import (
    Dropped,
    Namer,
    is_code_word,
    parse_entries,
    rewrite_block,
    rewrite_span,
    split_sections,
)
from sebench.obfuscate.surface import numpy_object
from sebench.records import ApiDoc

log = logging.getLogger(__name__)

_OUTPUT_LEAK = re.compile(r"(?i)\bnumpy\b|\bndarrays?\b|(?<![\w.])np\.|\barray\(|\bdtype\(")


@dataclass
class FunctionDoc:
    key: str  # "numpy.mean"
    public: str  # "zwc.kocito"
    signature: str
    parts: list = field(default_factory=list)  # rendered sections before Notes
    sections: dict = field(default_factory=dict)  # "Notes"/"Examples" -> chunks (text and statements)
    synthesized: list = field(default_factory=list)  # list[Stmt] when the example was synthesised


def probe_surface(package_dir: Path, mapping: dict) -> tuple[Surface, dict]:
    """The package's real public names, its array type's attributes, and the public names of its errors
    that stand for NumPy's LinAlgError/AxisError (sebench.harness's `surface`, in a child process)."""
    proc = harness.run("surface", package_dir, json.dumps(mapping), timeout=120)
    base = Surface.from_mapping(mapping)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot import the generated package from {package_dir}: {proc.stderr.strip()[-400:]}")
    top, lin, attrs, errors = json.loads(proc.stdout)
    surface = Surface(base.package, base.linalg, base.array_type, frozenset(top) | base.top_names,
                      frozenset(lin) | base.linalg_names, frozenset(attrs))
    return surface, errors


def _signature(obj, short: str, doc: str) -> tuple[str, str]:
    """(signature with the public short name, the docstring without a leading signature line)."""
    lines = doc.split("\n")
    first = lines[0].strip()
    m = re.match(r"([A-Za-z_]\w*)\(", first)
    sig = None
    if m:
        text, i = first, 0
        while text.count("(") > text.count(")") and i + 1 < len(lines):
            i += 1
            text += " " + lines[i].strip()
        if text.count("(") == text.count(")"):
            sig = text[m.end() - 1 :]
            doc = "\n".join(lines[i + 1 :]).strip("\n")
    if sig is None:
        try:
            sig = str(inspect.signature(obj))
        except (TypeError, ValueError):
            sig = "(*args, **kwargs)"
    sig = re.sub(r",\s*like=None", "", sig)
    sig = re.sub(r"\[,\s*signature\]", "", sig)
    sig = re.sub(r"(keepdims)=(?:<no value>|np\._NoValue)", r"\1=False", sig)
    sig = re.sub(r"(where)=(?:<no value>|np\._NoValue)", r"\1=True", sig)
    sig = re.sub(r"<no value>|np\._NoValue", "None", sig)
    return f"{short}{sig}", doc


def _header(namer: Namer, header: str, rename: set, checker: LeakChecker) -> str | None:
    """A Parameters/Returns entry header `name : type` with NumPy types renamed."""
    name, sep, kind = header.partition(":")
    name = name.strip()
    if name == "like":
        return None
    if name in rename:
        name = "out"
    kind = kind.strip()
    try:
        kind = re.sub(r"(``?)([^`]+)\1", lambda m: m.group(1) + rewrite_span(namer, m.group(2)) + m.group(1), kind)
    except Dropped:
        kind = ""
    kind = re.sub(r"\b(?:numpy|np)\.dtype\b", "dtype", kind)
    kind = namer.words(re.sub(r"\b(?:numpy|np)\.", "", kind))
    kind = re.sub(r",?\s*see dtype parameter above", "", kind)
    kind = re.sub(r"\s+or matrix\b", "", kind).rstrip(".")
    if checker.prose(kind, namer.params):
        kind = ""
    return f"{name} : {kind}" if sep and kind else name


def _entries(namer: Namer, checker: LeakChecker, lines: list[str], rename: set = frozenset()) -> list[str]:
    out: list[str] = []
    for header, body in parse_entries(lines):
        if not header:
            kept = rewrite_block(namer, body, checker)
            if kept:
                out += ([""] if out else []) + kept + [""]
            continue
        head = _header(namer, header, rename, checker)
        if head is None:
            continue
        if head.startswith("**kwargs") and any("ufunc" in b for b in body):
            body = ["Other keyword-only arguments: ``where``, ``casting``, ``order``, ``dtype``, ``subok``."]
        kept = rewrite_block(namer, body, checker)
        out += [head] + ["    " + ln if ln else "" for ln in kept]
    return _trim(out)


def _raises(namer: Namer, checker: LeakChecker, lines: list[str]) -> list[str]:
    import builtins

    out = []
    for header, body in parse_entries(lines):
        name = namer.errors.get(header.strip(), header.strip())
        if header and (isinstance(getattr(builtins, name, None), type) or name != header.strip()):
            out.append(name)
            out += ["    " + ln if ln else "" for ln in rewrite_block(namer, body, checker)]
    return _trim(out)


def _see_also(namer: Namer, checker: LeakChecker, lines: list[str]) -> list[str]:
    out = []
    for header, body in parse_entries(lines):
        names, _, desc = header.partition(" : ")
        public = []
        for raw in names.split(","):
            raw = re.sub(r":\w+:`([^`]+)`", r"\1", raw.strip()).strip("`~ ")
            raw = re.sub(r"^(?:numpy|np)\.", "", raw)
            if not raw:
                continue
            target = namer.dotted(True, raw[7:]) if raw.startswith("linalg.") else (
                namer.bare(raw) if re.fullmatch(r"[A-Za-z_]\w*", raw) else None)
            if target and target not in public and target != namer.own:
                public.append(target)
        if not public:
            continue
        text = rewrite_block(namer, [" ".join([desc.strip()] + [b.strip() for b in body])], checker) if desc else []
        line = ", ".join(public) + (f" : {' '.join(ln.strip() for ln in text)}" if text else "")
        out += textwrap.wrap(line, width=79, subsequent_indent="    ", break_long_words=False,
                             break_on_hyphens=False)
    return out


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _section(title: str, lines: list[str]) -> list[str]:
    return [title, "-" * len(title), *lines] if lines else []


def _canonical(obj, raw: str) -> str:
    """The name NumPy documents the function under (np.abs is documented as `absolute`)."""
    m = re.match(r"([A-Za-z_]\w*)\(", raw.strip())
    return m.group(1) if m else getattr(obj, "__name__", "")


def prepare_function(key: str, public: str, mapping: dict, checker: LeakChecker, errors: dict | None = None
                     ) -> FunctionDoc:
    obj = numpy_object(key)
    short = public.rsplit(".", 1)[1]
    raw = inspect.cleandoc(getattr(obj, "__doc__", None) or "") if obj is not None else ""
    canonical = _canonical(obj, raw)
    signature, raw = _signature(obj, short, raw)
    head, sections = split_sections(raw)
    returns = parse_entries(sections.get("Returns", []))
    named = [h.partition(":")[0].strip() for h, _ in returns if h]
    rename = {n for n in named if len(named) == 1 and (n in numpy_function_names() or any(
        is_code_word(part) for part in n.split("_")))}
    parameters = ["x()", "Parameters", "----------", *sections.get("Parameters", [])]
    params = doc_params(signature) | doc_params("\n".join(parameters))
    params |= set(named) - rename
    in_linalg = key.startswith("numpy.linalg.")
    namer = Namer(mapping, in_linalg=in_linalg, params=frozenset(params), own=public, errors=errors or {})
    own_name = key.rsplit(".", 1)[1]
    if canonical and canonical != own_name:
        namer.alias(canonical, own_name)
    fd = FunctionDoc(key, public, signature)
    fd.parts.append([signature])
    fd.parts.append(rewrite_block(namer, head, checker))
    fd.parts.append(_section("Parameters", _entries(namer, checker, sections.get("Parameters", []))))
    fd.parts.append(_section("Returns", _entries(namer, checker, sections.get("Returns", []), rename)))
    fd.parts.append(_section("Raises", _raises(namer, checker, sections.get("Raises", []))))
    fd.parts.append(_section("See Also", _see_also(namer, checker, sections.get("See Also", []))))
    rewriter = CodeRewriter(namer, checker)
    for title in ("Notes", "Examples"):
        chunks = parse_examples(sections.get(title, []))
        rewriter.reset()
        prepare(chunks, rewriter)
        for chunk in chunks:  # text between examples names things too
            if chunk.kind == "text":
                chunk.lines = rewrite_block(namer, chunk.lines, checker)
        fd.sections[title] = chunks
    return fd


SECTIONS_RUN = ("Notes", "Examples")


def _jobs_of(fd: FunctionDoc) -> dict[str, list[Stmt]]:
    """The statements of each section with code, keyed "numpy.mean|Examples"."""
    out = {}
    for title in SECTIONS_RUN:
        stmts = [s for c in fd.sections.get(title, []) if c.kind == "code" for s in c.stmts]
        if stmts:
            out[f"{fd.key}|{title}"] = stmts
    return out


def _has_example(fd: FunctionDoc) -> bool:
    return any(not s.drop for c in fd.sections.get("Examples", []) if c.kind == "code" for s in c.stmts)


def drop_unused(stmts: list[Stmt]) -> bool:
    """Drops kept assignments (and defs) whose names nothing later uses, last first; True if any."""
    changed = False
    for i in range(len(stmts) - 1, -1, -1):
        st = stmts[i]
        if st.drop or not st.binds or st.output or not _pure_binding(st.source):
            continue
        if not any(_used_later(name, stmts[i + 1 :]) for name in st.binds):
            st.drop, changed = "unused", True
    return changed


def _used_later(name: str, later: list[Stmt]) -> bool:
    """Whether a kept later statement reads `name` before one rebinds it."""
    for st in later:
        if st.drop:
            continue
        if name in st.loads:
            return True
        if name in st.binds:
            return False
    return False


def _pure_binding(source: str) -> bool:
    import ast

    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return len(body) == 1 and (
        isinstance(body[0], (ast.FunctionDef, ast.Import, ast.ImportFrom))
        or (isinstance(body[0], ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple)) for t in body[0].targets))
    )


def execute(package_dir: Path, package: str, docs: list[FunctionDoc]) -> None:
    """Runs the kept statements until every section's statements all run, stably; drops the rest."""
    todo: dict[str, list[Stmt]] = {}
    for fd in docs:
        for job_id, stmts in _jobs_of(fd).items():
            drop_unused(stmts)
            todo[job_id] = stmts
    for _ in range(MAX_ROUNDS):
        jobs = {k: [(s.source, s.binds) for s in stmts if not s.drop] for k, stmts in todo.items()}
        results = run_examples(package_dir, package, jobs)
        again = {}
        for job_id, stmts in todo.items():
            if _settle([s for s in stmts if not s.drop], results.get(job_id, [])) | drop_unused(stmts):
                again[job_id] = stmts
        todo = again
        if not todo:
            break
    for stmts in todo.values():  # still changing after MAX_ROUNDS: give up on these
        for st in stmts:
            st.drop = st.drop or "unstable"


def _settle(active: list[Stmt], results: list) -> bool:
    """Applies one run's results; True if a statement had to be dropped."""
    tainted: set[str] = set()
    changed = False
    for st, res in zip(active, results):
        reason = ""
        if res.status != "ok":
            reason = res.status.split(":")[0]
        elif len(res.output.split("\n")) > MAX_OUTPUT_LINES:
            reason = "output too long"
        elif _OUTPUT_LEAK.search(res.output):
            reason = "output names NumPy"
        elif st.loads & tainted:
            reason = "depends on a dropped statement"
        if reason:
            st.drop, changed = reason, True
            tainted.update(st.binds)
        else:
            st.output = res.output
            tainted.difference_update(st.binds)
    return changed


def render_chunks(chunks: list[Chunk], header: list[str]) -> list[str]:
    """A section from its text and kept statements with their real outputs."""
    if not any(not s.drop for c in chunks if c.kind == "code" for s in c.stmts):
        return [ln for c in chunks if c.kind == "text" for ln in c.lines] if all(c.kind == "text" for c in chunks) else []
    out = list(header)
    for i, chunk in enumerate(chunks):
        if chunk.kind == "text":
            nxt = next((c for c in chunks[i + 1 :] if c.kind == "code"), None)
            if nxt is None or all(s.drop for s in nxt.stmts):
                continue  # it introduces code that was dropped (or a plot directive), or nothing
            if chunk.lines:
                out += ["", *chunk.lines, ""]
            continue
        for st in chunk.stmts:
            if st.drop:
                continue
            lines = st.source.split("\n")
            out.append(">>> " + lines[0])
            out += ["... " + ln for ln in lines[1:]]
            if len(lines) > 1 and re.match(r"(for|while|if|with|def|class|try|async)\b|@", lines[0]):
                out.append("...")
            if st.output:
                out += [ln if ln.strip() else "<BLANKLINE>" for ln in st.output.split("\n")]
    clean: list[str] = []
    for ln in out:
        if ln.strip() or (clean and clean[-1].strip()):
            clean.append(ln)
    while clean and not clean[-1].strip():
        clean.pop()
    return clean


def build_docs(package_dir: Path, mapping: dict) -> list[ApiDoc]:
    """One rewritten ApiDoc per function of mapping["functions"] (mapping order), examples run for real."""
    package_dir = Path(package_dir).resolve()
    package = mapping["package"]
    surface, errors = probe_surface(package_dir, mapping)
    checker = LeakChecker(surface)
    docs = [prepare_function(k, v, mapping, checker, errors) for k, v in mapping["functions"].items()]
    execute(package_dir, package, docs)
    missing = [fd for fd in docs if not _has_example(fd)]
    for fd in missing:
        fd.synthesized = docs_synth.candidates(fd, mapping, checker)
        fd.sections["Examples"] = [Chunk("code", stmts=fd.synthesized)] if fd.synthesized else []
    if missing:
        execute(package_dir, package, [fd for fd in missing if fd.synthesized])
        for fd in missing:
            docs_synth.keep_first_working(fd)
    out = []
    for fd in docs:
        parts = [p for p in fd.parts if p]
        notes = render_chunks(fd.sections.get("Notes", []), [])
        uses_math = any("math." in s.source for c in fd.sections.get("Examples", []) if c.kind == "code"
                        for s in c.stmts if not s.drop)
        header = [f">>> import {package}"] + ([">>> import math"] if uses_math else [])
        examples = render_chunks(fd.sections.get("Examples", []), header)
        parts += [p for p in (_section("Notes", notes), _section("Examples", examples)) if p]
        doc = "\n\n".join("\n".join(p) for p in parts) + "\n"
        out.append(ApiDoc(name=fd.public, signature=fd.signature, doc=doc))
    _log_stats(docs)
    return out


LAST_STATS: dict = {}


def example_stats(docs: list[FunctionDoc]) -> dict:
    """How many docs show examples, how many were synthesised, and why statements were dropped."""
    dropped = Counter(s.drop for fd in docs for c in fd.sections.get("Examples", []) if c.kind == "code"
                      for s in c.stmts if s.drop and s.drop not in ("import", "comment", "spare candidate"))
    return {
        "docs": len(docs),
        "with_examples": sum(1 for fd in docs if _has_example(fd)),
        "synthesized": sum(1 for fd in docs if fd.synthesized and _has_example(fd)),
        "kept_statements": sum(1 for fd in docs for c in fd.sections.get("Examples", []) if c.kind == "code"
                               for s in c.stmts if not s.drop),
        "dropped": dict(sorted(dropped.items())),
    }


def _log_stats(docs: list[FunctionDoc]) -> None:
    LAST_STATS.clear()
    LAST_STATS.update(example_stats(docs))
    log.info("docs: %(with_examples)d/%(docs)d with examples (%(synthesized)d synthesised), "
             "%(kept_statements)d statements kept; dropped: %(dropped)s", LAST_STATS)

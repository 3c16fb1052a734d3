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
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sebench.obfuscate import docs_synth
from sebench.obfuscate.audit import LeakChecker, Surface, doc_params, numpy_function_names
from sebench.obfuscate.docs_examples import Chunk, CodeRewriter, Stmt, names_of, parse_examples, prepare
from sebench.obfuscate.docs_exec import MAX_OUTPUT_LINES, MAX_ROUNDS, run_examples
from sebench.obfuscate.docs_text import Dropped, Namer, parse_entries, rewrite_block, rewrite_span, split_sections
from sebench.records import ApiDoc

log = logging.getLogger(__name__)

_ALIASES = {"trapz": "trapezoid"}  # surface names that this NumPy no longer has


@dataclass
class FunctionDoc:
    key: str  # "numpy.mean"
    public: str  # "zwc.kocito"
    signature: str
    parts: list = field(default_factory=list)  # rendered sections before Examples
    chunks: list = field(default_factory=list)  # Examples chunks
    rewriter: CodeRewriter | None = None
    synthesized: list = field(default_factory=list)  # list[Stmt] when the example was synthesised


def numpy_object(key: str):
    import numpy

    parts = key.split(".")[1:]
    obj = numpy
    for i, part in enumerate(parts):
        obj = getattr(obj, part, None) if i < len(parts) - 1 else getattr(obj, part, None) or getattr(obj, _ALIASES.get(part, ""), None)
    return obj


def probe_surface(package_dir: Path, mapping: dict) -> Surface:
    """The package's real public names and its array type's attributes (a short subprocess)."""
    script = (
        "import json,sys;sys.path.insert(0,sys.argv[1]);m=json.loads(sys.argv[2]);import importlib\n"
        "p=importlib.import_module(m['package']);l=getattr(p,m.get('linalg') or '_',None)\n"
        "o=p\nfor s in m['constructor'].split('.')[1:]: o=getattr(o,s)\n"
        "x=o([1.0,2.0])\n"
        "pub=lambda z:[n for n in dir(z) if not n.startswith('_')]\n"
        "print(json.dumps([pub(p),pub(l) if l is not None else [],pub(type(x))]))"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", script, str(package_dir), json.dumps(mapping)],
                          capture_output=True, text=True, timeout=120)
    base = Surface.from_mapping(mapping)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot import the generated package from {package_dir}: {proc.stderr.strip()[-400:]}")
    top, lin, attrs = json.loads(proc.stdout)
    return Surface(base.package, base.linalg, base.array_type, frozenset(top) | base.top_names,
                   frozenset(lin) | base.linalg_names, frozenset(attrs))


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


def _header(namer: Namer, header: str, rename_functions: bool) -> str | None:
    """A Parameters/Returns entry header `name : type` with NumPy types renamed."""
    name, sep, kind = header.partition(":")
    name = name.strip()
    if name in ("like",) or name.startswith("like "):
        return None
    if rename_functions and name in numpy_function_names():
        name = "result"
    kind = kind.strip()
    try:
        kind = re.sub(r"(``?)([^`]+)\1", lambda m: m.group(1) + rewrite_span(namer, m.group(2)) + m.group(1), kind)
    except Dropped:
        kind = ""
    kind = re.sub(r"\b(?:numpy|np)\.dtype\b", "dtype", kind)
    kind = namer.words(re.sub(r"\b(?:numpy|np)\.", "", kind))
    kind = re.sub(r",?\s*see dtype parameter above", "", kind)
    return f"{name} : {kind}" if sep and kind else name


def _entries(namer: Namer, checker: LeakChecker, lines: list[str], returns: bool = False) -> list[str]:
    out = []
    for header, body in parse_entries(lines):
        head = _header(namer, header, returns)
        if head is None:
            continue
        if head.startswith("**kwargs") and any("ufunc" in b for b in body):
            body = ["Other keyword-only arguments: ``where``, ``casting``, ``order``, ``dtype``, ``subok``."]
        kept = rewrite_block(namer, body, checker)
        out += [head] + ["    " + ln if ln else "" for ln in kept]
    return out


def _raises(lines: list[str]) -> list[str]:
    import builtins

    out = []
    for header, body in parse_entries(lines):
        if isinstance(getattr(builtins, header.strip(), None), type):
            out.append(header.strip())
            out += ["    " + ln if ln.strip() else "" for ln in body if True]
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
            if target and target not in public:
                public.append(target)
        if not public:
            continue
        text = rewrite_block(namer, [desc.strip()] + [b.strip() for b in body], checker) if desc else []
        joined = " ".join(ln.strip() for ln in text)
        out.append(", ".join(public) + (f" : {joined}" if joined else ""))
    return out


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _section(title: str, lines: list[str]) -> list[str]:
    return [title, "-" * len(title)] + lines if lines else []


def prepare_function(key: str, public: str, mapping: dict, checker: LeakChecker) -> FunctionDoc:
    obj = numpy_object(key)
    short = public.rsplit(".", 1)[1]
    raw = inspect.cleandoc(getattr(obj, "__doc__", None) or "") if obj is not None else ""
    signature, raw = _signature(obj, short, raw)
    head, sections = split_sections(raw)
    params = doc_params(signature) | doc_params("\n".join(["x()", "Parameters", "----------"]
                                                         + sections.get("Parameters", [])))
    returns = doc_params("\n".join(["x()", "Returns", "-------"] + sections.get("Returns", [])))
    params |= returns - numpy_function_names()
    namer = Namer(mapping, in_linalg=key.startswith("numpy.linalg."), params=params)
    fd = FunctionDoc(key, public, signature)
    fd.parts.append([signature])
    fd.parts.append(rewrite_block(namer, head, checker))
    fd.parts.append(_section("Parameters", _entries(namer, checker, sections.get("Parameters", []))))
    fd.parts.append(_section("Returns", _entries(namer, checker, sections.get("Returns", []), returns=True)))
    fd.parts.append(_section("Raises", _raises(sections.get("Raises", []))))
    fd.parts.append(_section("See Also", _see_also(namer, checker, sections.get("See Also", []))))
    fd.parts.append(_section("Notes", rewrite_block(namer, sections.get("Notes", []), checker)))
    fd.chunks = parse_examples(sections.get("Examples", []))
    fd.rewriter = CodeRewriter(namer, checker)
    prepare(fd.chunks, fd.rewriter)
    # text between examples names things too
    for chunk in fd.chunks:
        if chunk.kind == "text":
            chunk.lines = rewrite_block(namer, chunk.lines, checker)
    return fd


def _stmts(fd: FunctionDoc) -> list[Stmt]:
    return fd.synthesized or [s for c in fd.chunks if c.kind == "code" for s in c.stmts]


def execute(package_dir: Path, package: str, docs: list[FunctionDoc]) -> None:
    """Runs the kept statements until every doc's statements all run, stably."""
    todo = {fd.key: fd for fd in docs}
    for _ in range(MAX_ROUNDS):
        jobs = {k: [(s.source, s.binds) for s in _stmts(fd) if not s.drop] for k, fd in todo.items()}
        results = run_examples(package_dir, package, jobs)
        again = {}
        for key, fd in todo.items():
            active = [s for s in _stmts(fd) if not s.drop]
            tainted: set[str] = set()
            changed = False
            for st, res in zip(active, results.get(key, [])):
                reason = ""
                if res.status != "ok":
                    reason = res.status.split(":")[0]
                elif len(res.output.split("\n")) > MAX_OUTPUT_LINES:
                    reason = "output too long"
                elif st.loads & tainted:
                    reason = "depends on a dropped statement"
                if reason:
                    st.drop, changed = reason, True
                    tainted.update(st.binds)
                else:
                    st.output = res.output
                    tainted.difference_update(st.binds)
            if changed:
                again[key] = fd
        todo = again
        if not todo:
            break
    for fd in todo.values():  # still unstable after MAX_ROUNDS: give up on these examples
        for st in _stmts(fd):
            st.drop = st.drop or "unstable"


def render_examples(fd: FunctionDoc, package: str) -> list[str]:
    """The Examples section from the kept statements and their real outputs."""
    chunks = fd.chunks if not fd.synthesized else [Chunk("code", stmts=fd.synthesized)]
    kept_any = any(not s.drop for c in chunks if c.kind == "code" for s in c.stmts)
    if not kept_any:
        return []
    uses_math = any("math." in s.source for c in chunks if c.kind == "code" for s in c.stmts if not s.drop)
    out = [f">>> import {package}"] + ([">>> import math"] if uses_math else [])
    for i, chunk in enumerate(chunks):
        if chunk.kind == "text":
            nxt = next((c for c in chunks[i + 1 :] if c.kind == "code"), None)
            if nxt is not None and all(s.drop for s in nxt.stmts):
                continue
            if chunk.lines:
                out += [""] + chunk.lines + [""]
            continue
        for st in chunk.stmts:
            if st.drop:
                continue
            lines = st.source.split("\n")
            out.append(">>> " + lines[0])
            out += ["... " + ln for ln in lines[1:]]
            if len(lines) > 1:
                out.append("...")
            out += [ln if ln.strip() else "<BLANKLINE>" for ln in getattr(st, "output", "").split("\n") if getattr(st, "output", "")]
    while out and not out[-1].strip():
        out.pop()
    # collapse blank runs
    clean = []
    for ln in out:
        if ln or (clean and clean[-1]):
            clean.append(ln)
    return clean


def build_docs(package_dir: Path, mapping: dict) -> list[ApiDoc]:
    """One rewritten ApiDoc per function of mapping["functions"] (mapping order), examples run for real."""
    package_dir = Path(package_dir)
    surface = probe_surface(package_dir, mapping)
    checker = LeakChecker(surface)
    docs = [prepare_function(k, v, mapping, checker) for k, v in mapping["functions"].items()]
    execute(package_dir, mapping["package"], docs)
    missing = [fd for fd in docs if not any(not s.drop for s in _stmts(fd))]
    for fd in missing:
        fd.synthesized = docs_synth.candidates(fd, mapping, checker)
    if missing:
        execute(package_dir, mapping["package"], [fd for fd in missing if fd.synthesized])
        for fd in missing:
            docs_synth.keep_first_working(fd)
    out = []
    for fd in docs:
        parts = [p for p in fd.parts if p]
        examples = render_examples(fd, mapping["package"])
        if examples:
            parts.append(_section("Examples", examples))
        doc = "\n\n".join("\n".join(p) for p in parts) + "\n"
        out.append(ApiDoc(name=fd.public, signature=fd.signature, doc=doc))
    _log_stats(docs)
    return out


def example_stats(docs: list[FunctionDoc]) -> dict:
    with_examples = sum(1 for fd in docs if any(not s.drop for s in _stmts(fd)))
    dropped = Counter(s.drop for fd in docs for c in fd.chunks if c.kind == "code" for s in c.stmts
                      if s.drop and s.drop not in ("import", "comment"))
    return {"with_examples": with_examples, "synthesized": sum(1 for fd in docs if fd.synthesized
                                                               and any(not s.drop for s in fd.synthesized)),
            "dropped": dict(sorted(dropped.items()))}


LAST_STATS: dict = {}


def _log_stats(docs: list[FunctionDoc]) -> None:
    LAST_STATS.clear()
    LAST_STATS.update(example_stats(docs))
    log.info("docs: %d/%d with examples (%d synthesised); dropped statements: %s", LAST_STATS["with_examples"],
             len(docs), LAST_STATS["synthesized"], LAST_STATS["dropped"])

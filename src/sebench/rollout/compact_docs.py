"""Compact docs for small models: each entry cut to its name, signature, summary sentence and first example.

The full docs (about 800 tokens an entry) stay the paper's protocol. A 135M-parameter model reads a
short entry better, so the doc-literate warm-up (sebench.experiment.warmup) can train and be measured
with this form instead. It is an option, never the default: `write_compact_instance` writes a copy of
an instance whose api_doc.jsonl holds the compact entries, so every stage (rollout, train) uses it
through `--data` unchanged, and its manifest says `"docs_form": "compact"`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
from pathlib import Path

from sebench.files import file_sha256, write_json
from sebench.instance import API_DOC_FILE, Instance
from sebench.records import ApiDoc, dumps_line, write_records

DOCS_FORMS = ("full", "compact")
COMPACT_EXAMPLE_LINES = 4  # doctest lines kept: the first call of the function and what it shows
_SENTENCE_END = re.compile(  # "axis. It", "NaN. If", 'order. "C"'; not "e.g. Foo", "cf. Foo", "vs. Foo"
    r"(?<![eE]\.g\.)(?<![iI]\.e\.)(?<!\bcf\.)(?<!\bvs\.)(?<=[A-Za-z0-9)`'\"*\]]\.)\s+(?=[A-Z`*\"(])")


def compact_doc(doc: ApiDoc, example_lines: int = COMPACT_EXAMPLE_LINES) -> ApiDoc:
    """The entry with its doc text cut to its summary sentence and the first example that calls it."""
    lines = [line.rstrip() for line in doc.doc.strip().splitlines()]
    summary = _summary(lines, doc)
    example = _first_example(lines, doc.name, example_lines)
    text = summary + ("\n\nExample:\n" + "\n".join(example) if example else "")
    return dataclasses.replace(doc, doc=text)


def _summary(lines: list[str], doc: ApiDoc) -> str:
    """The first sentence of the doc's first paragraph after its signature, whole (a summary may wrap)."""
    start = next((i for i, line in enumerate(lines) if line.strip() and not _is_signature(line, doc)), len(lines))
    paragraph = []
    for line in lines[start:]:
        if not line.strip():
            break
        paragraph.append(line.strip())
    return _SENTENCE_END.split(" ".join(paragraph), maxsplit=1)[0]


def _is_signature(line: str, doc: ApiDoc) -> bool:
    short = doc.name.rsplit(".", 1)[-1]
    return line.strip().startswith(short + "(") or line.strip() == doc.signature.strip()


def _first_example(lines: list[str], name: str, limit: int) -> list[str]:
    """From the first `>>>` line that calls `name`, that call and the lines it prints, at most `limit`
    lines, preceded by the `>>>` lines that set up its arguments (also counted in `limit`)."""
    calls = [i for i, line in enumerate(lines) if line.lstrip().startswith(">>>") and name + "(" in line]
    if not calls:
        return []
    i = calls[0]
    shown = [lines[i].strip()]
    for line in lines[i + 1:]:
        if not line.strip() or line.lstrip().startswith(">>>") or len(shown) >= limit:
            break
        shown.append(line.strip())
    setup = []
    for line in reversed(lines[:i]):
        stripped = line.strip()
        if not stripped.startswith(">>>") or stripped.startswith(">>> import") or len(setup) + len(shown) >= limit:
            break
        setup.insert(0, stripped)
    return setup + shown


def compact_docs_sha256(docs: list[ApiDoc]) -> str:
    """The hash of `docs` as their compact form writes them: the compact copy's, and a compact warm-up's key."""
    return hashlib.sha256("".join(dumps_line(compact_doc(d)) for d in docs).encode("utf-8")).hexdigest()


def write_compact_instance(instance: Instance, out: Path) -> Path:
    """Writes a copy of `instance` at `out` whose docs are compact; returns `out`. Idempotent: a copy
    made from the same instance manifest with the same compact docs is kept as it is."""
    out = Path(out)
    docs = [compact_doc(d) for d in instance.api_docs()]
    docs_hash = compact_docs_sha256(instance.api_docs())
    source = file_sha256(instance.manifest_path)
    if Instance(out).manifest_path.is_file():
        made = Instance(out).manifest()
        if made.get("compact_of") == source and made.get("hashes", {}).get(API_DOC_FILE) == docs_hash:
            return out
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(instance.root, partial, ignore=shutil.ignore_patterns("__pycache__"))
    write_records(Instance(partial).api_doc_path, docs)
    manifest = instance.manifest()
    manifest.update(docs_form="compact", compact_of=source)
    manifest.setdefault("hashes", {})[API_DOC_FILE] = file_sha256(Instance(partial).api_doc_path)
    write_json(Instance(partial).manifest_path, manifest)
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    return out

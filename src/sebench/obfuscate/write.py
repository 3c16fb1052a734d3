"""The obfuscated part of an instance: names, package, docs, api_doc.jsonl, mapping.json; and its leak audit.

`sebench build` (sebench/builder/run.py) calls these in order, then adds the tasks and the manifest.
The docs are sebench's own (docs.build_docs: rewritten, leak-audited) or, with the release's
api_doc.jsonl, its `rewritten_doc` texts as they are.
"""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import write_json
from sebench.instance import Instance
from sebench.obfuscate.audit import audit_instance
from sebench.obfuscate.docs import build_docs
from sebench.obfuscate.names import Names, generate_names, names_from_official
from sebench.obfuscate.package import default_docs, write_docs, write_package
from sebench.records import ApiDoc, iter_json_lines, write_records

log = logging.getLogger(__name__)
MAX_LISTED_FINDINGS = 30
DOCS_SOURCES = ("sebench", "original")


def make_names(seed: int, package_name: str | None = None, mapping_from: Path | None = None) -> Names:
    """The instance's names: from the seed, or taken from a release's api_doc.jsonl (`mapping_from`)."""
    if mapping_from is not None:
        return names_from_official(Path(mapping_from))
    return generate_names(seed, package_name)


def write_obfuscated(inst: Instance, names: Names, *, docs: bool = True,
                     released_docs: list[ApiDoc] | None = None) -> int:
    """Writes the package with its docstrings, api_doc.jsonl and mapping.json into `inst`; returns the
    number of documented functions. `released_docs` (release_api_docs) replace sebench's own docs;
    docs=False writes minimal docstrings (signature + one line), for tests and quick experiments."""
    log.info("build: package %s (linalg %s)", names.package, names.linalg)
    pkg_dir = write_package(inst.package_dir, names)
    mapping = names.mapping()
    if released_docs is not None:
        api_docs = released_docs
    else:
        api_docs = _own_docs(inst, names, mapping) if docs else _minimal_docs(names)
    write_docs(pkg_dir, {d.name: d.doc for d in api_docs}, names)
    write_records(inst.api_doc_path, api_docs)
    write_json(inst.mapping_path, mapping, indent=2)
    forget_package(names.package)
    return len(api_docs)


def _own_docs(inst: Instance, names: Names, mapping: dict) -> list[ApiDoc]:
    forget_package(names.package)
    try:
        api_docs = build_docs(inst.package_dir, mapping)
    finally:
        forget_package(names.package)
    by_name = {d.name: d for d in api_docs}
    missing = [p for p in names.functions.values() if p not in by_name]
    if missing:
        raise SebenchError(f"docs: no documentation for {len(missing)} functions, e.g. {', '.join(missing[:3])}")
    return [by_name[p] for p in names.functions.values()]


def _minimal_docs(names: Names) -> list[ApiDoc]:
    docs = default_docs(names)
    return [ApiDoc(name=p, signature=docs[p].split("\n", 1)[0], doc=docs[p]) for p in names.functions.values()]


def release_api_docs(path: Path, names: Names) -> list[ApiDoc]:
    """One ApiDoc per function from the release's api_doc.jsonl: its `rewritten_doc`, found by `curr_name`."""
    texts: dict[str, str] = {}
    for lineno, row in iter_json_lines(path, named=True):  # the user's --mapping-from file
        where = f"{path}:{lineno}"
        for fld in ("curr_name", "rewritten_doc"):
            if not isinstance(row.get(fld) if isinstance(row, dict) else None, str):
                raise SebenchError(f"{where}: field '{fld}': missing or not a string")
        texts[row["curr_name"]] = row["rewritten_doc"]
    signatures = default_docs(names)
    missing = [p for p in names.functions.values() if p.rsplit(".", 1)[1] not in texts]
    if missing:
        raise SebenchError(f"{path}: field 'rewritten_doc': no row documents {', '.join(missing[:3])}"
                           + (f" and {len(missing) - 3} more" if len(missing) > 3 else ""))
    return [ApiDoc(name=p, signature=signatures[p].split("\n", 1)[0], doc=texts[p.rsplit(".", 1)[1]].strip("\n"))
            for p in names.functions.values()]


def audit_or_fail(work: Path, names: Names, strict: bool = True) -> None:
    """Runs the leak audit on the unfinished instance `work`: any finding fails the build (strict), or is
    only counted in a warning (the release's docs, which sebench did not write and does not fix)."""
    forget_package(names.package)
    findings = audit_instance(work)
    forget_package(names.package)
    clean_caches(Instance(work).package_dir)
    if findings and not strict:
        log.warning("build: the release's docs are used as they are; the leak audit finds %d problem(s) in "
                    "this instance (list them with `sebench audit DIR`)", len(findings))
        return
    if findings:
        listed = "\n".join(f"  {f}" for f in findings[:MAX_LISTED_FINDINGS])
        more = f"\n  ... and {len(findings) - MAX_LISTED_FINDINGS} more" if len(findings) > MAX_LISTED_FINDINGS else ""
        raise SebenchError(f"the leak audit found {len(findings)} problem(s); the unfinished instance is kept at "
                           f"{work}:\n{listed}{more}")


def forget_package(package: str) -> None:
    """Drops an imported copy of the generated package, so the next import reads the files on disk."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def clean_caches(package_root: Path) -> None:
    """Removes the __pycache__ folders that importing the package left in it."""
    for cache in sorted(package_root.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)

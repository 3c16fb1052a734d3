"""`sebench build`: writes an instance directory (docs/architecture.md, "The instance directory").

Order: names -> package -> docs (docs.build_docs, or with docs_from="original" the `rewritten_doc`
texts of the release's api_doc.jsonl given as mapping_from) -> docstrings + api_doc.jsonl -> mapping.json ->
tasks (only with task sizes) -> audit (any finding fails the build; with the release's docs, which
sebench did not write and does not fix, the findings are only counted in a warning) -> manifest.json last.
The instance is assembled in a sibling folder DIR.partial and moved into place only when complete, so
an interrupted or failed build never leaves a half-written instance behind at DIR (a failed audit
keeps DIR.partial for inspection).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import sys
from pathlib import Path

import numpy

import sebench
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.obfuscate.names import Names, generate_names, names_from_official
from sebench.obfuscate.package import default_docs, write_docs, write_package
from sebench.records import ApiDoc, iter_json_lines, write_records

log = logging.getLogger(__name__)
MAX_LISTED_FINDINGS = 30


def make_names(seed: int, package_name: str | None = None, mapping_from: Path | None = None) -> Names:
    if mapping_from is not None:
        return names_from_official(Path(mapping_from), seed=seed, package_name=package_name)
    return generate_names(seed, package_name)


DOCS_SOURCES = ("sebench", "original")


def build_instance(out: Path, seed: int, package_name: str | None = None, mapping_from: Path | None = None,
                   task_sizes=None, *, docs: bool = True, audit: bool = True, docs_from: str = "sebench") -> Path:
    """Builds the instance for `seed` at `out` (replacing an earlier instance there); returns `out`.

    docs_from="original" takes the docs from the release's api_doc.jsonl (`mapping_from`, required).
    docs=False keeps the minimal docstrings (signature + one line) instead of the rewritten docs, and
    audit=False skips the leak audit: both only for tests and quick experiments.
    """
    if docs_from not in DOCS_SOURCES:
        raise SebenchError(f"--docs: choose one of {', '.join(DOCS_SOURCES)}, got {docs_from!r}")
    if docs_from == "original" and mapping_from is None:
        raise SebenchError("--docs original takes the docs from the release's api_doc.jsonl: give it with --mapping-from")
    out = Path(out).absolute()
    _check_target(out)
    names = make_names(seed, package_name, mapping_from)
    released_docs = release_api_docs(Path(mapping_from), names) if docs_from == "original" else None
    work = out.with_name(out.name + ".partial")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    inst = Instance(work)

    log.info("build: package %s (linalg %s), seed %d", names.package, names.linalg, seed)
    pkg_dir = write_package(inst.package_dir, names)
    mapping = names.mapping()
    if released_docs is not None:
        api_docs = released_docs
    else:
        api_docs = _docs(inst, names, mapping) if docs else _default_api_docs(names)
    write_docs(pkg_dir, {d.name: d.doc for d in api_docs}, names)
    write_records(inst.api_doc_path, api_docs)
    _write_json(inst.mapping_path, mapping)

    counts = {"functions": len(names.functions), "api_docs": len(api_docs)}
    if task_sizes is not None:
        from sebench.tasks.generate import write_task_files

        _forget_package(names.package)
        counts.update(write_task_files(inst, seed, task_sizes))
    _clean_caches(inst.package_dir)
    if audit:
        _audit(work, names, strict=docs_from == "sebench")
    _clean_caches(inst.package_dir)
    _write_manifest(inst, names, seed, counts, docs_from)
    _replace(work, out)
    log.info("build: wrote %s", out)
    return out


def _check_target(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "manifest.json").is_file())):
        raise SebenchError(f"{out}: exists and is not an instance directory; choose an empty or new folder")


def _docs(inst: Instance, names: Names, mapping: dict) -> list[ApiDoc]:
    try:
        from sebench.obfuscate.docs import build_docs
    except ImportError:  # the docs stage is not installed in this checkout
        log.warning("build: sebench.obfuscate.docs is unavailable; writing minimal docstrings")
        return _default_api_docs(names)
    _forget_package(names.package)
    try:
        api_docs = build_docs(inst.package_dir, mapping)
    finally:
        _forget_package(names.package)
    by_name = {d.name: d for d in api_docs}
    missing = [p for p in names.functions.values() if p not in by_name]
    if missing:
        raise SebenchError(f"docs: no documentation for {len(missing)} functions, e.g. {', '.join(missing[:3])}")
    return [by_name[p] for p in names.functions.values()]


def _default_api_docs(names: Names) -> list[ApiDoc]:
    docs = default_docs(names)
    return [ApiDoc(name=p, signature=docs[p].split("\n", 1)[0], doc=docs[p]) for p in names.functions.values()]


def release_api_docs(path: Path, names: Names) -> list[ApiDoc]:
    """One ApiDoc per function from the release's api_doc.jsonl: its `rewritten_doc`, found by `curr_name`."""
    texts: dict[str, str] = {}
    for lineno, row in iter_json_lines(path):
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


def _audit(work: Path, names: Names, strict: bool = True) -> None:
    try:
        from sebench.obfuscate.audit import audit_instance
    except ImportError:
        log.warning("build: sebench.obfuscate.audit is unavailable; the leak audit was skipped")
        return
    _forget_package(names.package)
    findings = audit_instance(work)
    _forget_package(names.package)
    if findings and not strict:
        log.warning("build: the release's docs are used as they are; the leak audit finds %d problem(s) in "
                    "this instance (list them with `sebench audit DIR`)", len(findings))
        return
    if findings:
        listed = "\n".join(f"  {f}" for f in findings[:MAX_LISTED_FINDINGS])
        more = f"\n  ... and {len(findings) - MAX_LISTED_FINDINGS} more" if len(findings) > MAX_LISTED_FINDINGS else ""
        raise SebenchError(f"the leak audit found {len(findings)} problem(s); the unfinished instance is kept at "
                           f"{work}:\n{listed}{more}")


def _forget_package(package: str) -> None:
    """Drops an imported copy of the generated package, so the next import reads the files on disk."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def _clean_caches(package_root: Path) -> None:
    for cache in sorted(package_root.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def file_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under root except manifest.json, by POSIX relative path (sorted)."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel != "manifest.json":
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _write_manifest(inst: Instance, names: Names, seed: int, counts: dict, docs_from: str) -> None:
    manifest = {
        "package": names.package,
        "linalg": names.linalg,
        "array_type": names.array_type,
        "constructor": names.constructor,
        "seed": seed,
        "docs": docs_from,
        "numpy_version": numpy.__version__,
        "sebench_version": sebench.__version__,
        "counts": counts,
        "hashes": file_hashes(inst.root),
    }
    _write_json(inst.manifest_path, manifest)


def _replace(work: Path, out: Path) -> None:
    if out.exists():
        old = out.with_name(out.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        out.rename(old)
        work.rename(out)
        shutil.rmtree(old)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        work.rename(out)

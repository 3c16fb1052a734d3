"""The generic pipeline's steps for a library other than NumPy, in the order `sebench build` runs them:
names, package, docs, api_doc.jsonl and mapping.json (write_library), tasks from the library's templates
(write_library_tasks), then the leak audit (audit_library, any finding fails the build)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import write_json
from sebench.instance import Instance
from sebench.libraries.audit import audit_library_instance
from sebench.libraries.contract import Library
from sebench.libraries.docs import build_docs, original_paths, run_child
from sebench.libraries.names import LibraryNames, generate_library_names
from sebench.libraries.package import write_docs, write_package
from sebench.records import write_records
from sebench.tasks import TaskSizes, write_task_files

log = logging.getLogger(__name__)


def library_mapping(library: Library, names: LibraryNames) -> dict:
    """The private/mapping.json document of a library's instance."""
    return {"library": library.name, "module": library.module, "forbidden_imports": list(library.forbidden_imports),
            "leak_words": sorted(library.leak_words), "package": names.package,
            "functions": dict(names.functions), "types": dict(names.types)}


def write_library(inst: Instance, library: Library, seed: int, package_name: str | None = None) -> LibraryNames:
    """Writes the package with its docs, api_doc.jsonl and mapping.json into `inst`; returns the names."""
    names = generate_library_names(library, seed, package_name)
    log.info("build: package %s from %s %s", names.package, library.name, library.version())
    pkg_dir = write_package(inst.package_dir, library, names, {})
    api_docs = build_docs(inst.package_dir, library, names)
    write_docs(pkg_dir, library, names, {d.name.rpartition(".")[2]: d.doc for d in api_docs})
    write_records(inst.api_doc_path, api_docs)
    write_json(inst.mapping_path, library_mapping(library, names), indent=2)
    return names


def write_library_tasks(inst: Instance, library: Library, seed: int, sizes: TaskSizes) -> dict[str, int]:
    """The task splits from the library's templates (each reference run with the package and the original)."""
    return write_task_files(inst, seed, sizes, templates=list(library.templates()),
                            original_path=os.pathsep.join(original_paths(library.module)))


def audit_library(root: Path) -> list[str]:
    """The leak audit's findings for the instance at root (any library but NumPy), one line each."""
    inst = Instance(Path(root).resolve())
    mapping = inst.mapping()
    probe = run_child("probe", {"package": mapping["package"]}, inst.package_dir, mapping["module"])
    return [f"{path}:{line}: {kind}: field '{field}': {text}"
            for path, line, kind, field, text in audit_library_instance(inst.root, probe)]


def audit_library_or_fail(work: Path) -> None:
    """Fails the build with one line (the first finding, and how many more) when the audit finds anything."""
    findings = audit_library(work)
    if findings:
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        raise SebenchError(f"leak audit: {findings[0]}{more}; the unfinished instance is kept at {work}")

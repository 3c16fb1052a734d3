"""`sebench build`: writes an instance directory (docs/architecture.md, "The instance directory").

NumPy (the default library): names -> package, docs, api_doc.jsonl, mapping.json (obfuscate.write) ->
tasks (tasks.generate, only with task sizes) -> audit (any finding fails the build; with the release's docs, which sebench did
not write and does not fix, the findings are only counted in a warning) -> manifest.json last.
The instance is assembled in a sibling folder DIR.partial and moved into place only when complete, so
an interrupted or failed build never leaves a half-written instance behind at DIR (a failed audit
keeps DIR.partial for inspection). Any other library (`--library`) goes through the generic pipeline
of sebench.libraries in the same order, into the same folders. An instance already at DIR is replaced
only with overwrite=True (`--overwrite`), and then by swapping the two folders once the new one is complete: its tasks, private
mapping and the runs made on it cannot be rebuilt by accident.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from pathlib import Path

import numpy

import sebench
from sebench.errors import SebenchError
from sebench.files import write_json
from sebench.instance import MANIFEST_FILE, MAPPING_FILE, Instance
from sebench.libraries import (
    DEFAULT_LIBRARY,
    Library,
    audit_library_or_fail,
    load_library,
    write_library,
    write_library_tasks,
)
from sebench.obfuscate import (
    DOCS_SOURCES,
    Names,
    audit_or_fail,
    clean_caches,
    forget_package,
    make_names,
    release_api_docs,
    write_obfuscated,
)
from sebench.tasks import TaskSizes, write_task_files

log = logging.getLogger(__name__)


def build_instance(out: Path, seed: int, package_name: str | None = None, mapping_from: Path | None = None,
                   task_sizes: TaskSizes | None = None, *, docs: bool = True, audit: bool = True,
                   docs_from: str = "sebench", overwrite: bool = False, library: str = DEFAULT_LIBRARY) -> Path:
    """Builds the instance for `seed` at `out`; returns `out`. An instance already at `out` is refused
    (naming what would be lost) unless `overwrite`, and then replaced only once the new one is complete.

    library: a registry name or module:attr (sebench.libraries.load_library); NumPy's instances come from
    the obfuscate stage's pipeline, every other library's from the generic one (sebench.libraries).
    docs_from="original" takes the docs from the release's api_doc.jsonl (`mapping_from`, required).
    docs=False keeps the minimal docstrings (signature + one line) instead of the rewritten docs, and
    audit=False skips the leak audit: both only for tests and quick experiments (NumPy only).
    """
    if library != DEFAULT_LIBRARY:
        lib = load_library(library)
        if lib.name != DEFAULT_LIBRARY:
            if mapping_from is not None or docs_from != "sebench" or not docs:
                raise SebenchError(f"--library {library}: --mapping-from and --docs original are NumPy's only")
            return _build_library(Path(out).absolute(), seed, lib, package_name, task_sizes, audit, overwrite)
    if docs_from not in DOCS_SOURCES:
        raise SebenchError(f"--docs: choose one of {', '.join(DOCS_SOURCES)}, got {docs_from!r}")
    if docs_from == "original" and mapping_from is None:
        raise SebenchError("--docs original takes the docs from the release's api_doc.jsonl: give it with --mapping-from")
    out = Path(out).absolute()
    _check_target(out, overwrite)
    names = make_names(seed, package_name, mapping_from)
    released_docs = release_api_docs(Path(mapping_from), names) if docs_from == "original" else None
    work = out.with_name(out.name + ".partial")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    inst = Instance(work)

    log.info("build: seed %d", seed)
    counts = {"functions": len(names.functions),
              "api_docs": write_obfuscated(inst, names, docs=docs, released_docs=released_docs)}
    if task_sizes is not None:
        counts.update(write_task_files(inst, seed, task_sizes))
        forget_package(names.package)
    clean_caches(inst.package_dir)
    if audit:
        audit_or_fail(work, names, strict=docs_from == "sebench")
    _write_manifest(inst, names, seed, counts, docs_from)
    _replace(work, out)
    log.info("build: wrote %s", out)
    return out


def _build_library(out: Path, seed: int, library: Library, package_name: str | None, task_sizes: TaskSizes | None,
                   audit: bool, overwrite: bool) -> Path:
    """The generic pipeline's build of a library other than NumPy (same order, same folder swap)."""
    _check_target(out, overwrite)
    work = out.with_name(out.name + ".partial")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    inst = Instance(work)
    log.info("build: %s, seed %d", library.name, seed)
    try:
        names = write_library(inst, library, seed, package_name)
    except SebenchError:
        if not any(work.iterdir()):  # refused before writing (a package name): no empty DIR.partial left
            work.rmdir()
        raise
    counts = {"functions": len(names.functions) + len(names.types), "api_docs": len(inst.api_docs())}
    if task_sizes is not None:
        counts.update(write_library_tasks(inst, library, seed, task_sizes))
    forget_package(names.package)
    clean_caches(inst.package_dir)
    if audit:
        audit_library_or_fail(work)
        clean_caches(inst.package_dir)
    write_json(inst.manifest_path, {
        "package": names.package, "library": library.name, "library_version": library.version(), "seed": seed,
        "docs": "sebench", "sebench_version": sebench.__version__, "counts": counts,
        "hashes": file_hashes(inst.root),
    }, indent=2)
    _replace(work, out)
    log.info("build: wrote %s", out)
    return out


def _check_target(out: Path, overwrite: bool) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST_FILE).is_file())):
        raise SebenchError(f"{out}: exists and is not an instance directory; choose an empty or new folder")
    if (out / MANIFEST_FILE).is_file() and not overwrite:
        raise SebenchError(f"{out}: an instance is already there ({_what_is_there(out)}); building over it would "
                           "lose them: pass --overwrite to replace it once the new one is complete, or choose "
                           "another --out")


def _what_is_there(out: Path) -> str:
    """The instance's package and seed, its task splits, its private mapping and the runs made on it."""
    try:
        manifest = Instance(out).manifest()
    except (SebenchError, OSError, ValueError):
        manifest = {}
    counts = manifest.get("counts", {})
    tasks = [f"{counts[split]} {split}" for split in ("train", "single_test", "multiple_test") if counts.get(split)]
    parts = [f"package {manifest.get('package', '?')}, seed {manifest.get('seed', '?')}",
             f"tasks: {', '.join(tasks)}" if tasks else "no tasks"]
    if (out / MAPPING_FILE).is_file():
        parts.append(MAPPING_FILE)
    runs = dependent_runs(out)
    if runs:
        parts.append("used by the run" + ("s " if len(runs) > 1 else " ") + ", ".join(str(r) for r in runs))
    return "; ".join(parts)


def dependent_runs(instance: Path) -> list[Path]:
    """The `sebench run` directories made on `instance` that are found near it: the run it was built in
    (RUN_DIR/instance) and runs beside it, or one folder below, that were given it with --instance."""
    instance = instance.resolve()
    runs = []
    if (instance.parent / "stages" / "build.json").is_file() and instance.name == "instance":
        runs.append(instance.parent)
    for record in sorted([*instance.parent.glob("*/stages/instance.json"),
                          *instance.parent.glob("*/*/stages/instance.json")]):
        try:
            path = json.loads(record.read_text(encoding="utf-8"))["config"]["path"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if Path(path).resolve() == instance:
            runs.append(record.parent.parent)
    return runs


def file_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under root except manifest.json, by POSIX relative path (sorted)."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel != MANIFEST_FILE:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _write_manifest(inst: Instance, names: Names, seed: int, counts: dict, docs_from: str) -> None:
    write_json(inst.manifest_path, {
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
    }, indent=2)


def _replace(work: Path, out: Path) -> None:
    """Moves the complete instance `work` to `out`; an old one there is swapped out in one step where the
    OS can (Linux renameat2), else by two renames, then deleted."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        work.rename(out)
        return
    if _exchange(work, out):
        shutil.rmtree(work)  # now the old instance
        return
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    out.rename(old)
    work.rename(out)
    shutil.rmtree(old)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where that is not available."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):  # no such call (macOS), no C library by that name (Windows)
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0

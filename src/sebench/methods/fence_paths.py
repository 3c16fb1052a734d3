"""The paths a method's fence allows: the system, Python, the method's source, the model hub's cache, and
the secrets hidden beneath a path the user opens for it."""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path
from urllib.parse import urlsplit

from sebench.files import cache_root
from sebench.methods.isolation import SYSTEM_READ

SECRET_NAMES = ("test", "private", "evals")  # datasets/test, private/ (the mapping), a run's evals/
SECRET_DEPTH = 5  # how deep beneath a user-named path secrets are looked for
# what marks a study's folder: an instance (manifest.json), a run (stages/), an original release (datasets/),
# a mapping, evaluations; an HF export (sebench.export.hf) by its test splits, in data/ or beside its card
STUDY_MARKERS = ("manifest.json", "stages", "datasets", "private", "evals", "mapping.json")
PACKAGE_FOLDERS = ("site-packages", "dist-packages")  # installed packages: no study is looked for there
EXPORT_SPLITS = ("single_test.jsonl", "multiple_test.jsonl", "single_test.parquet", "multiple_test.parquet")


def system() -> list[Path]:
    return [Path(p) for p in SYSTEM_READ]


def _holds(folder: Path, paths: tuple[Path, ...]) -> bool:
    """Whether `folder` is one of `paths` or lies above one (a folder that holds the study)."""
    real = Path(os.path.realpath(folder))
    return any(real == p or real in p.parents for p in map(lambda q: Path(os.path.realpath(q)), paths))


def python(hidden: tuple[Path, ...]) -> list[Path]:
    """The interpreter, its standard library and site-packages, sebench's source and the import path,
    except a folder that holds a hidden path (the current folder with the user's runs, say)."""
    import sebench

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
               *site.getsitepackages(), site.getusersitepackages(),
               str(Path(sebench.__file__).resolve().parents[1]), *sys.path}
    cwd = Path.cwd()
    return sorted(Path(f) for f in folders if f and os.path.exists(f) and not _holds(Path(f), (*hidden, cwd)))


def method_source(source: Path | None, hidden: tuple[Path, ...]) -> list[Path]:
    """A method's folder (its helper modules beside it), or its file alone where the folder holds the study
    or is itself a study's folder (an instance, a run, an export); `studies_within` lists what stays hidden."""
    if source is None:
        return []
    if _holds(source.parent, (*hidden, Path.cwd())) or _is_study(source.parent):
        return [source, source.parent / "__pycache__"]  # where Python looks for its compiled form
    return [source.parent]


def _is_study(folder: Path) -> bool:
    """Whether `folder` is an instance, a run folder, an original release or an HF export, by its markers."""
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError:
        return False
    return bool(names & set(STUDY_MARKERS)) or any((folder / "data" / name).is_file() for name in EXPORT_SPLITS) or bool(
        names & set(EXPORT_SPLITS))


def studies_within(source: Path | None, hidden: tuple[Path, ...]) -> list[Path]:
    """The folders beneath a method's folder, where it reads that folder, that hold a study (`_is_study`: a
    sibling run, an instance, an export, a test split, a mapping, evaluations), a few levels down: hidden from
    the method whole."""
    if source is None or method_source(source, hidden) != [source.parent]:
        return []
    return _studies_under(source.parent)


def studies_on_import_path(hidden: tuple[Path, ...]) -> list[Path]:
    """The folders that hold a study beneath the folders of the import path `python` opens, other than the
    installation's own (a project folder on PYTHONPATH that keeps earlier runs, say): hidden from the method."""
    install = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return [found for folder in python(hidden) if not _installed(folder, install)
            for found in _studies_under(folder, install)]


def _installed(folder: Path, install: set[Path]) -> bool:
    """Whether `folder` is part of a Python installation: beneath a prefix, or a site-packages folder."""
    real = Path(os.path.realpath(folder))
    return any(i == real or i in real.parents for i in install) or bool({*real.parts} & set(PACKAGE_FOLDERS))


def _studies_under(root: Path, skipped: set[Path] | frozenset = frozenset()) -> list[Path]:
    """The folders beneath `root`, a few levels down, that hold a study or a secret (`studies_within`); the
    `skipped` folders (a Python installation) are not looked into."""
    found: list[Path] = []
    for folder, subfolders, _ in os.walk(root):
        here = Path(folder)
        subfolders[:] = [n for n in subfolders if n not in PACKAGE_FOLDERS and Path(os.path.realpath(here / n)) not in skipped]
        for name in list(subfolders):
            if _is_study(here / name) or name in SECRET_NAMES:
                found.append(here / name)
                subfolders.remove(name)
        if len(here.parts) - len(root.parts) >= SECRET_DEPTH:
            subfolders.clear()
    return found


def model_paths(spec: str) -> list[Path]:
    """The local folder or file a model spec names ("hf:FOLDER", "FOLDER", a GGUF file), if any."""
    path = Path(spec.removeprefix("hf:"))
    return [path] if path.exists() else []


def hub_cache() -> list[Path]:
    """The Hugging Face hub's model cache, where it exists (read only; never a datasets cache)."""
    env = os.environ
    hub = env.get("HF_HUB_CACHE") or os.path.join(
        env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"),
        "hub")
    return [Path(hub)] if os.path.isdir(hub) else []


def selfplay_cache() -> Path:
    """Self-play's first-round cache (sebench.train), written by the built-in self-play regimes."""
    folder = cache_root() / "selfplay"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def secrets_beneath(paths: tuple[Path, ...]) -> list[Path]:
    """Test splits, mappings and evaluations found beneath folders the user named for a method to read
    (`datasets/test`, `private`, `evals`, a few levels down): they stay hidden there too."""
    found: list[Path] = []
    for root in paths:
        if not os.path.isdir(root):
            continue
        base = len(Path(root).parts)
        for folder, subfolders, _ in os.walk(root):
            here = Path(folder)
            for name in list(subfolders):
                if name in SECRET_NAMES and (name != "test" or here.name == "datasets"):
                    found.append(here / name)
                    subfolders.remove(name)
            if len(here.parts) - base >= SECRET_DEPTH:
                subfolders.clear()
    return found


def port_of(url: str) -> int | None:
    """The TCP port a service URL names (its scheme's default where it names none)."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None

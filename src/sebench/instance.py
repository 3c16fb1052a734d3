"""The instance directory: where each file lives (the one place that says so), and loaders for its parts
(docs/architecture.md).

    DIR/manifest.json                       seed, package name, library (absent: numpy), versions, counts, hashes
    DIR/package/<pkg>/...                   the generated package (PYTHONPATH=DIR/package)
    DIR/datasets/train/api_doc.jsonl        one ApiDoc per function
    DIR/datasets/train/train.jsonl          training tasks
    DIR/datasets/test/single_test.jsonl     one-function test tasks
    DIR/datasets/test/multiple_test.jsonl   multi-function test tasks
    DIR/private/mapping.json                {"package": ..., "functions": {"numpy.mean": "zwc.kocito", ...}}
    DIR/private/release/                    an imported release's rows as they were (sebench tasks import)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import plain_path, read_json_object
from sebench.records import ApiDoc, Task, read_records

MANIFEST_FILE = "manifest.json"
PACKAGE_DIR = "package"
DATASETS_DIR = "datasets"
API_DOC_FILE = "datasets/train/api_doc.jsonl"
MAPPING_FILE = "private/mapping.json"
RELEASE_DIR = "private/release"
SPLIT_FILES = {
    "train": "datasets/train/train.jsonl",
    "single_test": "datasets/test/single_test.jsonl",
    "multiple_test": "datasets/test/multiple_test.jsonl",
}


@dataclass(frozen=True)
class Instance:
    """A built instance directory; methods load its parts on demand."""

    root: Path

    @classmethod
    def open(cls, root: str | Path) -> Instance:
        root = Path(root)
        if not (root / MANIFEST_FILE).is_file():
            raise SebenchError(f"{root}: not an instance directory (no manifest.json); create one with `sebench build`")
        return cls(root)

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST_FILE

    @property
    def package_dir(self) -> Path:
        """The folder to put on PYTHONPATH (it holds the package folder)."""
        return self.root / PACKAGE_DIR

    @property
    def api_doc_path(self) -> Path:
        return self.root / API_DOC_FILE

    @property
    def mapping_path(self) -> Path:
        return self.root / MAPPING_FILE

    def split_path(self, split: str) -> Path:
        if split not in SPLIT_FILES:
            raise SebenchError(f"unknown split '{split}'; choose one of {', '.join(SPLIT_FILES)}")
        return self.root / SPLIT_FILES[split]

    def own_file(self, rel: str) -> Path:
        """`root / rel` to read, refused where a folder on the way (or the file) is a symbolic link
        (files.plain_path): an instance someone else made reads nothing outside it."""
        return plain_path(self.root, rel)

    def manifest(self) -> dict:
        return _read_json(self.own_file(MANIFEST_FILE), "rebuild the instance with `sebench build`")

    def files(self) -> list[Path]:
        """The instance's own files (manifest, docs, mapping, task splits): never a command's output."""
        return [self.manifest_path, self.api_doc_path, self.mapping_path,
                *(self.root / rel for rel in SPLIT_FILES.values())]

    def require_package(self) -> Path:
        """The package folder (DIR/package/<pkg>); one clear error when the instance lacks it."""
        folder = self.package_dir / self.package_name
        if not folder.is_dir():
            raise SebenchError(f"{folder}: the instance has no package folder, so no program can import "
                               f"'{self.package_name}'; rebuild the instance with `sebench build`")
        return folder

    @property
    def library(self) -> str:
        """The registry name of the library the package was made from ("numpy" when the manifest has none)."""
        name = self.manifest().get("library", "numpy")
        if not isinstance(name, str) or not name:
            raise SebenchError(f"{self.manifest_path}: field 'library': expected a library's name, got {name!r}")
        return name

    @property
    def package_name(self) -> str:
        name = self.manifest().get("package")
        if not isinstance(name, str) or not name:
            raise SebenchError(f"{self.manifest_path}: field 'package': missing; rebuild the instance with `sebench build`")
        return name

    def mapping(self) -> dict:
        """{"package": name, "functions": {"numpy.x": "pkg.y", ...}}: never shown to models."""
        return _read_json(self.own_file(MAPPING_FILE), "it is written by `sebench build`; rebuild the instance, or copy "
                                             "private/ from the machine that built it")

    def api_docs(self) -> list[ApiDoc]:
        return read_records(self.own_file(API_DOC_FILE), ApiDoc)

    def tasks(self, split: str) -> list[Task]:
        path = self.split_path(split)
        if not path.is_file():
            raise SebenchError(f"{path}: no tasks for split '{split}' in this instance")
        return read_records(self.own_file(SPLIT_FILES[split]), Task)

    def all_tasks(self) -> list[Task]:
        """Tasks of every split that the instance has."""
        return [t for s in SPLIT_FILES if self.split_path(s).is_file() for t in self.tasks(s)]


def _read_json(path: Path, fix: str) -> dict:
    """A JSON object file (files.read_json_object: never through a link); a missing or broken one is one error
    naming the file and the fix."""
    try:
        return read_json_object(path)
    except FileNotFoundError:
        raise SebenchError(f"{path}: missing from the instance; {fix}") from None
    except OSError as exc:
        raise SebenchError(f"{path}: unreadable ({exc.strerror or exc}); {fix}") from None
    except SebenchError as exc:  # "PATH: why"
        raise SebenchError(f"{path}: unreadable ({str(exc).removeprefix(f'{path}: ')}); {fix}") from None

"""The instance directory: where each file lives, and loaders for its parts (docs/architecture.md).

    DIR/manifest.json                       seed, package name, versions, counts, content hashes
    DIR/package/<pkg>/...                   the generated package (PYTHONPATH=DIR/package)
    DIR/datasets/train/api_doc.jsonl        one ApiDoc per function
    DIR/datasets/train/train.jsonl          training tasks
    DIR/datasets/test/single_test.jsonl     one-function test tasks
    DIR/datasets/test/multiple_test.jsonl   multi-function test tasks
    DIR/private/mapping.json                {"package": ..., "functions": {"numpy.mean": "zwc.kocito", ...}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.records import ApiDoc, Task, read_records

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
    def open(cls, root: str | Path) -> "Instance":
        root = Path(root)
        if not (root / "manifest.json").is_file():
            raise SebenchError(f"{root}: not an instance directory (no manifest.json); create one with `sebench build`")
        return cls(root)

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @property
    def package_dir(self) -> Path:
        """The folder to put on PYTHONPATH (it holds the package folder)."""
        return self.root / "package"

    @property
    def api_doc_path(self) -> Path:
        return self.root / "datasets/train/api_doc.jsonl"

    @property
    def mapping_path(self) -> Path:
        return self.root / "private/mapping.json"

    def split_path(self, split: str) -> Path:
        if split not in SPLIT_FILES:
            raise SebenchError(f"unknown split '{split}'; choose one of {', '.join(SPLIT_FILES)}")
        return self.root / SPLIT_FILES[split]

    def manifest(self) -> dict:
        return json.loads(self.manifest_path.read_text(encoding="utf-8"))

    @property
    def package_name(self) -> str:
        return self.manifest()["package"]

    def mapping(self) -> dict:
        """{"package": name, "functions": {"numpy.x": "pkg.y", ...}}: never shown to models."""
        return json.loads(self.mapping_path.read_text(encoding="utf-8"))

    def api_docs(self) -> list[ApiDoc]:
        return read_records(self.api_doc_path, ApiDoc)

    def tasks(self, split: str) -> list[Task]:
        path = self.split_path(split)
        if not path.is_file():
            raise SebenchError(f"{path}: no tasks for split '{split}' in this instance")
        return read_records(path, Task)

    def all_tasks(self) -> list[Task]:
        """Tasks of every split that the instance has."""
        return [t for s in SPLIT_FILES if self.split_path(s).is_file() for t in self.tasks(s)]

"""The released SE-Bench files as they are: where they lie, their rows, and what the import keeps aside.

The release (the Hugging Face dataset `jintailin/SE-Bench`, saved by the original's load script) is
datasets/train/{train,api_doc}.jsonl and datasets/test/{single_test,multiple_test}.jsonl. `release_files`
takes a folder (searched for those names, instances inside it left out) or single files (a file named
*api_doc.jsonl is the docs). `read_rows` reads a file line by line; a line
that is not a JSON object is one `BadRow`, never the end of the file.

An import keeps, beside each task, the row exactly as released (`KeptRow`, in the instance's private/
folder, which models never see): the fields the task does not carry (`right_code`, `example_output`,
`major_vote_response_dict`, `1func_query_id`, anything unknown) and the released spellings of the
ones it converts. Rows that could not be imported are kept there too (`BadRow`), with their error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import MANIFEST_FILE, RELEASE_DIR, Instance
from sebench.records import from_dict, iter_json_lines, iter_lines, write_records

SPLIT_FILE_NAMES = {"train.jsonl": "train", "single_test.jsonl": "single_test",
                    "multiple_test.jsonl": "multiple_test"}
API_DOC_FILE_NAME = "api_doc.jsonl"


@dataclass(frozen=True)
class KeptRow:
    """One released row as it was, beside the task made from it."""

    task_id: str
    source: str  # "file:line"
    row: dict  # every released field, unchanged


@dataclass(frozen=True)
class BadRow:
    """A released line that was not imported, with the one-line reason."""

    source: str  # "file:line"
    error: str  # "file:line: field 'x': ..."
    text: str  # the line as read


def release_files(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(task files, api_doc files) from the given files and folders; folders are searched by file name."""
    tasks, docs = [], []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.jsonl") if (p.name in SPLIT_FILE_NAMES or p.name == API_DOC_FILE_NAME)
                           and not _inside_instance(p, path))
            if not found:
                raise SebenchError(f"{path}: no released file here (looked for {', '.join(SPLIT_FILE_NAMES)} "
                                   f"and {API_DOC_FILE_NAME})")
        elif path.is_file():
            found = [path]
        else:
            raise SebenchError(f"{path}: no such file or folder")
        for p in found:
            (docs if p.name.endswith(API_DOC_FILE_NAME) else tasks).append(p)
    return tasks, docs


def _inside_instance(file: Path, top: Path) -> bool:
    """Whether `file` belongs to a sebench instance (a folder with manifest.json) below `top`."""
    return any((d / MANIFEST_FILE).is_file() for d in file.parents if d == top or top in d.parents)


def read_rows(path: Path) -> Iterator[tuple[int, dict | None, BadRow | None]]:
    """(line number, row, None) for each JSON object; (line number, None, BadRow) for each bad line."""
    for lineno, line in iter_lines(path, named=True):  # the user's copy of a release (a hub cache links)
        where = f"{path}:{lineno}"
        try:
            row = parse_json(line, where)
        except SebenchError as exc:
            yield lineno, None, BadRow(where, str(exc), line.rstrip("\n"))
            continue
        if not isinstance(row, dict):
            yield lineno, None, BadRow(where, f"{where}: expected a JSON object, got {type(row).__name__}",
                                       line.rstrip("\n"))
            continue
        yield lineno, row, None


def check_api_doc(path: Path, inst: Instance) -> int:
    """Checks that `inst` was built from this api_doc.jsonl (same names); returns the rows read."""
    ours = {key.replace("numpy.", "np.", 1): public for key, public in inst.mapping()["functions"].items()}
    rows = 0
    for lineno, row in iter_json_lines(path, named=True):
        where = f"{path}:{lineno}"
        text = row.get("func_mapping") if isinstance(row, dict) else None
        try:
            theirs = parse_json(text, where) if isinstance(text, str) else None
        except SebenchError:
            theirs = None
        if not isinstance(theirs, dict):
            raise SebenchError(f"{where}: field 'func_mapping': expected a JSON string of an object")
        for numpy_name, public in theirs.items():
            mine = ours.get(numpy_name)
            if mine is None or not isinstance(public, str) or mine.split(".")[1:] != public.split(".")[1:]:
                raise SebenchError(f"{where}: field 'func_mapping': {numpy_name} -> {public}, but the instance "
                                   f"{inst.root} has {mine or 'no such function'}; build it with "
                                   f"`sebench build --mapping-from {path}`")
        rows += 1
    return rows


def kept_path(inst: Instance, split: str, rejected: bool = False) -> Path:
    return inst.root / RELEASE_DIR / f"{split}{'.rejected' if rejected else ''}.jsonl"


def write_kept(inst: Instance, split: str, kept: list[KeptRow], bad: list[BadRow]) -> None:
    """Writes the split's kept rows and its rejected lines (each file only when there are some)."""
    for path, records in ((kept_path(inst, split), kept), (kept_path(inst, split, rejected=True), bad)):
        if records:
            write_records(path, records)
        elif path.exists():
            path.unlink()


def released_rows(data_dir: Path, split: str | None = None) -> dict[str, dict]:
    """{task_id: the released row} of an imported split, or of every split (None); {} where none was imported."""
    inst = Instance.open(data_dir)
    paths = [kept_path(inst, split)] if split else sorted((inst.root / RELEASE_DIR).glob("*.jsonl"))
    rows = {}
    for path in paths:
        if path.is_file() and not path.name.endswith(".rejected.jsonl"):
            rows.update({k.task_id: k.row for k in (from_dict(KeptRow, obj, f"{path}:{n}")
                                                    for n, obj in iter_json_lines(path))})
    return rows


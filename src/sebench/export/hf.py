"""`sebench export --format hf`: an instance as a Hugging Face dataset folder.

    OUT/README.md              the dataset card: YAML metadata (the configs and their files, the seed, the
                               package, sebench's and NumPy's versions, the protocol) and what is and is not in it
    OUT/data/train.jsonl       config `train`: one row per task
    OUT/data/single_test.jsonl config `single_test`
    OUT/data/multiple_test.jsonl  config `multiple_test`
    OUT/data/docs.jsonl        config `docs`: the package's documentation, one row per function

As in the original release, each config holds one split named "train" (`load_dataset(OUT, "single_test")
["train"]`). A task row has the release's columns (TASK_COLUMNS) with the instance's own spellings: the
package's names in `selected_functions`, its constructor in the inputs, and `right_code` the reference
solution written with the package. sebench's columns follow (SEBENCH_COLUMNS), `expected` as JSON text, so
that `sebench tasks import OUT --data DIR` gives DIR (built with the same seed) the same tasks.

Nothing from DIR/private/ is written, nor the package: its code calls the NumPy function behind each name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sebench import __version__
from sebench.errors import SebenchError
from sebench.export.config import ExportConfig
from sebench.instance import SPLIT_FILES, Instance
from sebench.output_files import check_dir_target, write_text_atomic
from sebench.records import Task

TASK_COLUMNS = ("query", "function_name", "example", "test_cases", "right_exe_result", "selected_functions",
                "is_valid", "right_code")
SEBENCH_COLUMNS = ("task_id", "split", "kind", "entry_point", "expected")
DOC_COLUMNS = ("name", "signature", "doc")
CARD = "README.md"
DOCS_CONFIG = "docs"
# the release's columns that an instance has no value for
LEFT_OUT = {"example_output": "the release's reference programs, written with {original}",
            "major_vote_response_dict": "the answers of the models that validated the release",
            "1func_query_id": "the release's numbering of its single-function tasks"}


@dataclass(frozen=True)
class HfExport:
    """What an hf export wrote: the files, and the configs with their row counts."""

    files: list[Path]
    rows: dict[str, int]


def data_file(config: str) -> str:
    return f"data/{config}.jsonl"


def export_hf(cfg: ExportConfig) -> HfExport:
    """Writes OUT (module docstring)."""
    instance = Instance.open(cfg.data)
    out = Path(cfg.out)
    check_dir_target(out)
    configs = [split for split in SPLIT_FILES if instance.split_path(split).is_file()]
    if not configs:
        raise SebenchError(f"{instance.root}: the instance has no task files; build it with `sebench build`")
    earlier = [out / p for p in (CARD, *(data_file(c) for c in (*SPLIT_FILES, DOCS_CONFIG))) if (out / p).exists()]
    if earlier and not cfg.overwrite:
        raise SebenchError(f"{earlier[0]}: an earlier export is in {out}; give --overwrite to replace it, or choose "
                           "another --out")
    rows = {split: _write_rows(out / data_file(split), [task_row(t) for t in instance.tasks(split)])
            for split in configs}
    rows[DOCS_CONFIG] = _write_rows(out / data_file(DOCS_CONFIG), [
        {"name": d.name, "signature": d.signature, "doc": d.doc} for d in instance.api_docs()])
    write_text_atomic(out / CARD, dataset_card(instance.manifest(), rows, cfg.protocol))
    return HfExport([out / data_file(c) for c in rows] + [out / CARD], rows)


def task_row(task: Task) -> dict:
    """One task in the release's columns, then sebench's."""
    return {"query": task.query, "function_name": task.function_name, "example": example_dict(task),
            "test_cases": [{"input": str(c["input"]), "output": str(c["output"])} for c in task.test_cases],
            "right_exe_result": task.right_exe_result, "selected_functions": list(task.selected_functions),
            "is_valid": task.is_valid, "right_code": task.reference_solution, "task_id": task.task_id,
            "split": task.split, "kind": task.kind, "entry_point": task.entry_point,
            "expected": json.dumps(task.expected, ensure_ascii=False)}


def example_dict(task: Task) -> dict:
    """The prompt's example ">>> entry(input)\\noutput" as the release stores it, {"input", "output"}."""
    prefix = f">>> {task.entry_point}("
    if task.example.startswith(prefix):
        for cut, char in enumerate(task.example):
            if char == "\n" and task.example[cut - 1] == ")":
                return {"input": task.example[len(prefix):cut - 1], "output": task.example[cut + 1:]}
    raise SebenchError(f"task {task.task_id}: field 'example': not in the form '>>> {task.entry_point}(...)' and its "
                       f"output on the next line, so the release's columns cannot hold it: {task.example[:80]!r}")


def _write_rows(path: Path, rows: list[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return len(rows)


def dataset_card(manifest: dict, rows: dict[str, int], protocol: str) -> str:
    """README.md: the YAML metadata the Hub and `datasets` read, then the card's text."""
    seed, package = manifest.get("seed"), manifest.get("package", "")
    library = manifest.get("library", "numpy")
    versions = ({"numpy_version": manifest.get("numpy_version")} if library == "numpy" else
                {"library": library, "library_version": manifest.get("library_version")})
    meta = {"seed": seed, "package": package, "sebench_version": __version__,
            "built_with_sebench": manifest.get("sebench_version"), **versions,
            "docs": manifest.get("docs"), "protocol": protocol}
    lines = ["---", f"pretty_name: {json.dumps(f'SE-Bench instance (sebench, seed {seed})')}",
             "language:", "- en", "task_categories:", "- text-generation", "tags:", "- code", "- se-bench",
             "size_categories:", f"- {_size(sum(rows.values()))}", "configs:"]
    for config in rows:
        lines += [f"- config_name: {config}", "  data_files:", "  - split: train", f"    path: {data_file(config)}"]
    lines += ["sebench:"] + [f"  {key}: {json.dumps(value)}" for key, value in meta.items()] + ["---", ""]
    return "\n".join(lines) + _card_text(seed, package, protocol, rows, library)


def _size(n: int) -> str:
    return "n<1K" if n < 1000 else "1K<n<10K" if n < 10_000 else "10K<n<100K"


def _card_text(seed, package: str, protocol: str, rows: dict[str, int], library: str = "numpy") -> str:
    """The card's text; an instance of another library than NumPy names that library where NumPy's names NumPy
    (rebuilding it needs the name), with its own license left to the reader."""
    original = "NumPy" if library == "numpy" else f"`{library}`"
    flag = "" if library == "numpy" else f" --library {library}"
    license_of_docs = "(BSD-3-Clause)" if library == "numpy" else "(under that library's license)"
    counts = "\n".join(f"| `{c}` | {n} | `{data_file(c)}` |" for c, n in rows.items())
    release = LEFT_OUT if library == "numpy" else {}  # another library has no release whose columns are left out
    left_out = "".join(f"- `{column}`: {why.format(original=original)}\n" for column, why in release.items())
    inputs = "test inputs use its constructor" if library == "numpy" else "test inputs are plain data"
    return f"""# SE-Bench instance, seed {seed}

A fresh instance of [SE-Bench](https://arxiv.org/abs/2602.04811) made with sebench {__version__}: coding tasks
to be solved with `{package}`, a package that models have never seen ({original} under new names and rewritten
documentation).

```python
from datasets import load_dataset

tasks = load_dataset("PATH_OR_REPO", "single_test")["train"]
docs = load_dataset("PATH_OR_REPO", "docs")["train"]
```

| config | rows | file |
| --- | --- | --- |
{counts}

## Columns

Task configs have the columns of the original release (`query`, `function_name`, `example`, `test_cases`,
`right_exe_result`, `selected_functions`, `is_valid`, `right_code`), written with this instance's names:
`selected_functions` holds `{package}`'s names, {inputs}, and `right_code` is a
reference solution that uses `{package}`. sebench's columns follow: `task_id`, `split`, `kind` (single or
multiple), `entry_point` and `expected` (each test's output as JSON text, which the judge compares with).
The `docs` config has one row per function of `{package}`: `name`, `signature` and `doc`.

Not included:
{left_out}- the package `{package}` itself and the mapping from its names to {original}'s: both would tell which {original}
  function stands behind each name. Rebuild the package with `sebench build{flag} --seed {seed}` (same sebench and
  {original} versions as in the metadata above).

## Evaluate

Judge answers with protocol `{protocol}` (`--protocol {protocol}` of sebench's commands). To run the
instance locally, rebuild it and load these tasks into it:

```bash
sebench build{flag} --seed {seed} --no-tasks --out DIR
sebench tasks import --official THIS_FOLDER --data DIR
sebench rollout --data DIR --split single_test --mode closed --protocol {protocol} --model openai:MODEL@URL --out rollouts.jsonl
sebench judge --data DIR --rollouts rollouts.jsonl --protocol {protocol} --out verdicts.jsonl
```

## License

No license is set yet. The tasks are generated by sebench (MIT); the docs are rewritten from {original}'s
documentation {license_of_docs}. Add a `license:` line to the metadata above before publishing.

Keep the test configs out of training data: a model that has seen them is no longer measured on a
library it has never seen.
"""

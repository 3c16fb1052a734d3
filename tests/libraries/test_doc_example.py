"""docs/libraries.md's example library, as a user copies it: its `mypkg/sebench_lib.py` block written out
beside a small `mylib` of its own (a function `total`, a class `Tally`, a private helper), built with
`sebench build --library mypkg.sebench_lib:LIBRARY` in a fresh process."""

import json
import re
from pathlib import Path

from cli_fixtures import SRC, sebench

DOC = Path(__file__).resolve().parents[2] / "docs" / "libraries.md"
MYLIB = '''"""A small library."""

__version__ = "0.1"


def _normalise(values):
    return [int(v) for v in values]


def total(values):
    """Return the sum of the integers in *values*.

    >>> total([1, 2, 3])
    6
    """
    return sum(_normalise(values))


class Tally:
    """Counts the values added to it.

    >>> tally = Tally()
    >>> tally.add(3)
    1
    """

    def __init__(self):
        self.count = 0

    def add(self, value):
        self.count += 1
        return self.count
'''


def test_the_docs_example_library_builds_with_its_class(tmp_path):
    block = re.search(r"```python\n(# mypkg/sebench_lib\.py\n.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block, "docs/libraries.md has no mypkg/sebench_lib.py block"
    for rel, text in {"mylib/__init__.py": MYLIB, "mypkg/__init__.py": "", "mypkg/sebench_lib.py": block.group(1)}.items():
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(text)
    out = tmp_path / "inst"
    done = sebench("build", "--library", "mypkg.sebench_lib:LIBRARY", "--out", out, "--seed", "0",
                   "--n-train", "8", "--n-single", "2", "--n-multiple", "0", env={"PYTHONPATH": f"{SRC}:{tmp_path}"})
    assert done.returncode == 0, done.stderr
    mapping = json.loads((out / "private/mapping.json").read_text())
    assert set(mapping["functions"]) == {"mylib.total"} and set(mapping["types"]) == {"mylib.Tally"}
    trained = {f for line in (out / "datasets/train/train.jsonl").read_text().splitlines()
               for f in json.loads(line)["selected_functions"]}
    assert trained == {mapping["functions"]["mylib.total"], mapping["types"]["mylib.Tally"]}

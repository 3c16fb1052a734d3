"""The original benchmark's task files: import into an instance, and export an instance's tasks.

Import (`sebench tasks import --official PATH... --data DIR`) reads the release as it is (see
`release`: a folder or single files). DIR must be built with `sebench build --mapping-from` the
release's api_doc.jsonl, so that its names are the original's; an api_doc.jsonl among the given files
is checked against DIR's names. Each row needs query, function_name ("def name(...):"), example (a
dict {"input", "output"}, as released, or a string), test_cases (a list of {"input", "output"}),
right_exe_result (the printed outputs joined by "#": the ground truth), selected_functions (NumPy
names such as "bitwise_and" or "linalg.norm", or the package's public names such as "zwc.kocito"; a
list, or a string holding a list or comma-separated names) and is_valid (a bool, or "True"/"False";
missing means True). Every released row is kept unchanged beside its task (`release.KeptRow`); a bad
row is logged as one line naming the file, the line and the field, kept among the rejected rows, and
the good rows are still imported. Conversion:
  - test inputs and the example: `np.array(` -> the instance's constructor, `np.<function>` -> its
    public name, np.nan / np.inf / np.pi / np.e -> float('nan') / float('inf') / the number, NumPy
    scalar types (np.float64, np.int32, ...) -> float / int / bool / complex; a row using anything else
    is kept with is_valid = False;
  - expected outputs: the printed outputs are parsed into data where possible (Python literals,
    NumPy-style prints such as "[1. 2. 3.]" or "[[1 2]\n [3 4]]", reprs such as "array([1, 2])" or the
    constructor's "yitaf([1, 2])", tuples of those, NumPy scalar reprs); otherwise
    {"__printed__": text}, which the judge compares as printed text;
  - selected_functions: NumPy names -> the instance's public names;
  - reference_solution stays "": the released references (`example_output`) are NumPy programs that
    mostly call array methods (`.tolist()`), which the package's arrays do not have (on the released
    single_test, 43 of the 252 that convert pass the judge), so they are only kept aside.
A row of a sebench export (`sebench export --format hf`: the release's columns in the instance's own
spellings, plus task_id, kind, entry_point, expected as JSON text, right_code the reference solution) is
read the same way and keeps those: its task is the exported one, id included. No released row is kept
for it, as none is for a built task.
Export (`sebench tasks export --format official|parquet`): official writes one jsonl per split with
exactly the original's fields (inputs with `np.array(`, selected_functions as NumPy names); parquet
writes one HuggingFace-datasets parquet file per split with all our fields (`expected` as a JSON
string, since its values are heterogeneous).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from sebench import values
from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import SPLIT_FILES, Instance
from sebench.output_files import refuse_fewer_records
from sebench.records import Task, to_dict, write_records
from sebench.tasks.release import (
    SPLIT_FILE_NAMES,
    BadRow,
    KeptRow,
    check_api_doc,
    kept_path,
    read_rows,
    release_files,
    write_kept,
)

log = logging.getLogger(__name__)

OFFICIAL_FIELDS = ("query", "function_name", "example", "test_cases", "right_exe_result",
                   "selected_functions", "is_valid")
# the columns a sebench export (`sebench export --format hf`) adds to the release's (right_code too)
SEBENCH_COLUMNS = ("task_id", "kind", "entry_point", "expected", "right_code")
SPLIT_ALIASES = {"single": "single_test", "multiple": "multiple_test", "multi_test": "multiple_test",
                 **{name.split(".")[0]: split for name, split in SPLIT_FILE_NAMES.items()}}
SCALAR_TYPES = {
    **{f"float{n}": "float" for n in (16, 32, 64, 128)}, **{f"int{n}": "int" for n in (8, 16, 32, 64)},
    **{f"uint{n}": "int" for n in (8, 16, 32, 64)}, "complex64": "complex", "complex128": "complex",
    "bool_": "bool", "bool": "bool", "float_": "float", "int_": "int", "intc": "int", "double": "float",
}
CONSTANTS = {"nan": "float('nan')", "NaN": "float('nan')", "inf": "float('inf')", "Inf": "float('inf')",
             "pi": repr(math.pi), "e": repr(math.e), "newaxis": "None"}
_NP_NAME = re.compile(r"(?<![\w.])(?:np|numpy)\.((?:linalg\.)?[A-Za-z_]\w*)")
_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(")


# ---- import -------------------------------------------------------------------------------------


def import_official(files: list[Path], data_dir: Path, split: str | None = None,
                    overwrite: bool = False) -> dict[str, int]:
    """Converts the released files (or folders) into `data_dir`'s split files; returns {split: tasks}.

    Bad rows are logged (one line each) and skipped; nothing is written when a split would have no
    task at all, when a given api_doc.jsonl does not match the instance's names, or when a split would get
    fewer tasks than it has (unless `overwrite`).
    """
    inst = Instance.open(data_dir)
    task_files, doc_files = release_files(files)
    for path in doc_files:
        log.info("%s: %d rows, names agree with %s", path, check_api_doc(path, inst), inst.root)
    mapping = inst.mapping()
    by_split: dict[str, tuple[list[tuple[Task, KeptRow | None]], list[BadRow]]] = {}
    for path in task_files:
        target = split or _split_of(Path(path))
        good, bad = by_split.setdefault(target, ([], []))
        _convert_file(Path(path), mapping, target, good, bad)
    for target, (good, bad) in by_split.items():
        if not good and bad:
            raise SebenchError(f"{target}: none of the {len(bad)} rows could be imported; the first: {bad[0].error}")
    for target, (good, _) in by_split.items():
        refuse_fewer_records(inst.split_path(target), len(good), overwrite)
        if not good:
            raise SebenchError(f"{target}: the files have no rows; a split is never replaced by no task")
    counts = {target: _write_split(inst, target, good, bad) for target, (good, bad) in by_split.items()}
    _refresh_manifest(inst, counts)
    return counts


def _convert_file(path: Path, mapping: dict, split: str, good: list, bad: list) -> None:
    """Appends (task, kept row) for each good row of `path` to `good`, and a BadRow for each bad one to `bad`."""
    for lineno, row, bad_line in read_rows(path):
        where = f"{path}:{lineno}"
        if bad_line is None:
            try:
                task = convert_row(row, mapping, where, split)
                good.append((task, None if is_sebench_row(row) else KeptRow("", where, row)))
                continue
            except SebenchError as exc:
                bad_line = BadRow(where, str(exc), json.dumps(row, ensure_ascii=False))
        log.warning("%s; row not imported", bad_line.error)
        bad.append(bad_line)


def _write_split(inst: Instance, split: str, good: list[tuple[Task, KeptRow | None]], bad: list[BadRow]) -> int:
    """Writes the split's tasks and the released rows kept aside; returns the task count. Tasks are numbered
    in file order, unless every row is a sebench export's, whose task ids are kept."""
    ids = [t.task_id for t, _ in good]
    if not all(ids) or len(set(ids)) < len(ids):
        ids = [f"{split}-{i:04d}" for i in range(len(good))]
    tasks = [replace(t, task_id=i) for i, (t, _) in zip(ids, good)]
    write_records(inst.split_path(split), tasks)
    write_kept(inst, split, [replace(k, task_id=i) for i, (_, k) in zip(ids, good) if k is not None], bad)
    invalid = sum(not t.is_valid for t in tasks)
    if invalid:
        log.warning("%s: %d of %d rows kept with is_valid = False (names the instance lacks)",
                    split, invalid, len(tasks))
    if bad:
        log.warning("%s: %d tasks imported, %d rows not imported (kept in %s)", split, len(tasks), len(bad),
                    kept_path(inst, split, rejected=True))
    return len(tasks)


def _split_of(path: Path) -> str:
    stem = path.name.split(".")[0].lower()
    if stem in SPLIT_ALIASES:
        return SPLIT_ALIASES[stem]
    raise SebenchError(f"{path}: cannot tell the split from the file name; name it train.jsonl, "
                       f"single_test.jsonl or multiple_test.jsonl, or pass --split")


def convert_row(row: Any, mapping: dict, where: str, split: str) -> Task:
    """One released row -> our Task (task_id left empty); errors name `where` (file:line) and the field."""
    if not isinstance(row, dict):
        raise SebenchError(f"{where}: expected a JSON object with the fields {', '.join(OFFICIAL_FIELDS)}")
    query = _text(row, "query", where, nonempty=True)
    signature = _text(row, "function_name", where, nonempty=True)
    match = _DEF.search(signature)
    if not match:
        raise SebenchError(f"{where}: field 'function_name': expected a signature like 'def name(args):', "
                           f"got {signature[:60]!r}")
    entry = match.group(1)
    cases = _test_cases(row, where)
    printed = _outputs(row, cases, where)
    valid = _is_valid(row, where)
    converter = _Converter(mapping)
    functions = [converter.selected(name, where) for name in _selected(row, where)]
    example = converter.code(_example(row, entry, where))
    inputs = [converter.code(c["input"]) for c in cases]
    task = Task(
        task_id="", split=split, kind="single" if len(functions) == 1 else "multiple", query=query,
        function_name=signature.strip(), entry_point=entry, example=example,
        test_cases=[{"input": i, "output": o} for i, o in zip(inputs, printed)],
        right_exe_result="#".join(printed), selected_functions=functions,
        is_valid=valid and converter.ok,
        expected=[parse_printed(o, converter.wrappers) for o in printed],
    )
    return _with_sebench_fields(task, row, where) if is_sebench_row(row) else task


def is_sebench_row(row: dict) -> bool:
    """Whether a row is a sebench export's (`sebench export --format hf`): the release's columns and sebench's."""
    return all(name in row for name in SEBENCH_COLUMNS)


def _with_sebench_fields(task: Task, row: dict, where: str) -> Task:
    """The task with what a sebench export's row adds to the release's columns: its id, kind, reference
    solution (`right_code`) and the expected outputs as data (`expected`, JSON text)."""
    expected = parse_json(_text(row, "expected", where), f"{where}: field 'expected'")
    if not isinstance(expected, list) or len(expected) != len(task.test_cases):
        raise SebenchError(f"{where}: field 'expected': expected a JSON list of {len(task.test_cases)} outputs, one "
                           "per test case")
    kind = _text(row, "kind", where)
    if kind not in ("single", "multiple"):
        raise SebenchError(f"{where}: field 'kind': expected 'single' or 'multiple', got {kind!r}")
    entry = _text(row, "entry_point", where)
    if entry != task.entry_point:
        raise SebenchError(f"{where}: field 'entry_point': {entry!r}, but function_name defines {task.entry_point!r}")
    return replace(task, task_id=_text(row, "task_id", where, nonempty=True), kind=kind,
                   reference_solution=_text(row, "right_code", where), expected=expected)


def _example(row: dict, entry: str, where: str) -> str:
    """The example for the prompt: a released {"input", "output"} -> ">>> entry(input)\noutput"."""
    value = row.get("example")
    if isinstance(value, dict):
        if not isinstance(value.get("input"), str):
            raise SebenchError(f"{where}: field 'example.input': expected a string")
        output = value.get("output", "")
        output = output if isinstance(output, str) else json.dumps(output)
        return f">>> {entry}({value['input']})\n{output}"
    if "example" not in row:
        raise SebenchError(f"{where}: field 'example': missing")
    if not isinstance(value, str):
        raise SebenchError(f"{where}: field 'example': expected an object with 'input' and 'output' or a "
                           f"string, got {type(value).__name__}")
    return value


def _text(row: dict, name: str, where: str, nonempty: bool = False) -> str:
    if name not in row:
        raise SebenchError(f"{where}: field '{name}': missing")
    value = row[name]
    if not isinstance(value, str):
        raise SebenchError(f"{where}: field '{name}': expected a string, got {type(value).__name__}")
    if nonempty and not value.strip():
        raise SebenchError(f"{where}: field '{name}': empty")
    return value


def _test_cases(row: dict, where: str) -> list[dict]:
    cases = row.get("test_cases")
    if isinstance(cases, str):  # some exports store the list as a JSON string
        cases = parse_json(cases, f"{where}: field 'test_cases'")
    if not isinstance(cases, list) or not cases:
        raise SebenchError(f"{where}: field 'test_cases': expected a non-empty list of {{input, output}}")
    out = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or "input" not in case:
            raise SebenchError(f"{where}: field 'test_cases[{i}]': expected an object with 'input' and 'output'")
        if not isinstance(case["input"], str):
            raise SebenchError(f"{where}: field 'test_cases[{i}].input': expected a string")
        output = case.get("output", "")
        out.append({"input": case["input"], "output": output if isinstance(output, str) else json.dumps(output)})
    return out


def _outputs(row: dict, cases: list[dict], where: str) -> list[str]:
    """The printed outputs: right_exe_result split on '#' (the executed ground truth); the test cases'
    outputs where they join to it exactly (an output holding '#' included)."""
    result = _text(row, "right_exe_result", where)
    listed = [c["output"] for c in cases]
    if "#".join(listed) == result:
        return [p.strip() for p in listed]
    parts = result.split("#")
    if len(parts) == len(cases) + 1 and not parts[-1].strip():
        parts.pop()  # the original harness prints "#" after every case, the last one included
    if len(parts) != len(cases):
        raise SebenchError(f"{where}: field 'right_exe_result': {len(parts)} '#'-separated outputs for "
                           f"{len(cases)} test cases")
    return [p.strip() for p in parts]


def _selected(row: dict, where: str) -> list[str]:
    value = row.get("selected_functions")
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            value = parse_json(text.replace("'", '"'), f"{where}: field 'selected_functions'")
        else:
            value = [v.strip() for v in text.split(",") if v.strip()]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SebenchError(f"{where}: field 'selected_functions': expected a non-empty list of names")
    return value


def _is_valid(row: dict, where: str) -> bool:
    value = row.get("is_valid", True)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise SebenchError(f"{where}: field 'is_valid': expected true/false, got {value!r}")


class _Converter:
    """Rewrites NumPy spellings in code for the instance; `ok` turns False on a name it lacks."""

    def __init__(self, mapping: dict):
        self.functions = mapping["functions"]
        # another library's instance has no constructor: its inputs are plain data (`np.array(` stays unconverted)
        self.constructor = mapping.get("constructor") or self.functions.get("numpy.array", "")
        self.package = mapping["package"]
        self.wrappers = {"array", self.constructor.rsplit(".", 1)[-1]} - {""}
        self.publics = set(self.functions.values())
        self.ok = True

    def function(self, name: str) -> str | None:
        bare = re.sub(r"^(?:numpy|np)\.", "", name.strip())
        for key in (f"numpy.{bare}", f"numpy.linalg.{bare}"):
            if key in self.functions:
                return self.functions[key]
        return None

    def selected(self, name: str, where: str) -> str:
        """A released selected function (a NumPy name, or already a public name) -> its public name."""
        public = self.function(name)
        if public is None and name.strip() in self.publics:
            public = name.strip()
        if public is None:
            raise SebenchError(f"{where}: field 'selected_functions': {name!r} is neither a NumPy name of the "
                               f"mapping nor a function of {self.package}")
        return public

    def code(self, text: str) -> str:
        text = re.sub(r"^\s*import numpy as np\s*$", f"import {self.package}", text, flags=re.M)
        text = re.sub(r"^\s*import numpy\s*$", f"import {self.package}", text, flags=re.M)
        return _NP_NAME.sub(self._name, text)

    def _name(self, match: re.Match) -> str:
        name = match.group(1)
        if name == "array" and self.constructor:
            return self.constructor
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in SCALAR_TYPES:
            return SCALAR_TYPES[name]
        public = self.function(name)
        if public is None:
            self.ok = False
            return match.group(0)
        return public


def _refresh_manifest(inst: Instance, counts: dict[str, int]) -> None:
    """Keeps manifest.json's counts and hashes true after the split files (and the rows kept aside) changed."""
    if not inst.manifest_path.is_file():
        return
    manifest = inst.manifest()
    manifest.setdefault("counts", {}).update(counts)
    hashes = manifest.setdefault("hashes", {})
    for split in counts:
        for path in (inst.split_path(split), kept_path(inst, split), kept_path(inst, split, rejected=True)):
            rel = path.relative_to(inst.root).as_posix()
            if path.is_file():
                hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                hashes.pop(rel, None)
    manifest["hashes"] = dict(sorted(hashes.items()))
    inst.manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# ---- printed outputs -> data --------------------------------------------------------------------

_TOKEN = re.compile(r"""\s*(?:
    (?P<open>[\[(]) | (?P<close>[\])]) | (?P<comma>,) | (?P<eq>=) |
    (?P<str>'(?:[^'\\]|\\.)*' | "(?:[^"\\]|\\.)*") |
    (?P<num>[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)
        (?:[-+](?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)j|j)?) |
    (?P<word>[A-Za-z_][\w.]*)
)""", re.X)


class _Unparsable(Exception):
    pass


def parse_printed(text: str, wrappers: set[str] | frozenset = frozenset({"array"})) -> Any:
    """Printed output -> encoded plain data, or {"__printed__": text} when it cannot be read."""
    try:
        tokens = _tokenize(text)
        value, pos = _value(tokens, 0, wrappers)
        if pos != len(tokens):
            raise _Unparsable
        return values.to_task_data(value, strict=False)
    except (_Unparsable, ValueError, IndexError):
        return {values.PRINTED_KEY: text}


def _tokenize(text: str) -> list[tuple[str, str]]:
    out, pos, text = [], 0, text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _Unparsable
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _value(tokens, pos, wrappers):
    kind, tok = tokens[pos]
    if kind == "num":
        return _number(tok), pos + 1
    if kind == "str":
        import ast

        return ast.literal_eval(tok), pos + 1
    if kind == "open":
        return _sequence(tokens, pos, wrappers)
    if kind == "word":
        if tok in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[tok], pos + 1
        short = tok.rsplit(".", 1)[-1]
        is_call = pos + 1 < len(tokens) and tokens[pos + 1] == ("open", "(")
        if is_call and (tok in wrappers or short in wrappers or short in SCALAR_TYPES
                        or tok.startswith(("np.", "numpy."))):
            return _call(tokens, pos + 2, wrappers)
    raise _Unparsable


def _sequence(tokens, pos, wrappers):
    """[a, b] or [a b] (NumPy prints) -> list; (a, b) -> list; (a) -> a."""
    opener = tokens[pos][1]
    closer = "]" if opener == "[" else ")"
    items, pos, commas = [], pos + 1, 0
    while tokens[pos] != ("close", closer):
        if tokens[pos][0] == "comma":
            commas += 1
            pos += 1
            continue
        value, pos = _value(tokens, pos, wrappers)
        items.append(value)
    if opener == "(" and len(items) == 1 and commas == 0:
        return items[0], pos + 1
    return items, pos + 1


def _call(tokens, pos, wrappers):
    """wrapper(value, key=..., ...) -> value (dtype and other keyword arguments are dropped)."""
    value, pos = _value(tokens, pos, wrappers)
    depth = 0
    while True:
        kind, _tok = tokens[pos]
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                return value, pos + 1
            depth -= 1
        pos += 1


def _number(tok: str):
    if tok.lower().endswith("j"):
        return complex(tok)
    if re.fullmatch(r"[-+]?\d+", tok):
        return int(tok)
    return float(tok)


# ---- export -------------------------------------------------------------------------------------


def export_tasks(data_dir: Path, fmt: str, out: Path) -> list[Path]:
    """Writes the instance's splits to `out` (a folder) as official jsonl or parquet; returns the files."""
    inst = Instance.open(data_dir)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    splits = [s for s in SPLIT_FILES if inst.split_path(s).is_file()]
    if not splits:
        raise SebenchError(f"{data_dir}: the instance has no task files; build it with tasks first")
    if fmt == "official":
        back = {v: k for k, v in {**inst.mapping()["functions"], **inst.mapping().get("types", {})}.items()}
        constructor = inst.mapping().get("constructor") or inst.mapping()["functions"].get("numpy.array", "")
        paths = []
        for split in splits:
            rows = [to_official(t, back, constructor) for t in inst.tasks(split)]
            path = out / f"{split}.jsonl"
            write_records(path, rows)
            paths.append(path)
        return paths
    if fmt == "parquet":
        return [_write_parquet(inst.tasks(split), out / f"{split}.parquet") for split in splits]
    raise SebenchError(f"unknown export format '{fmt}'; choose official or parquet")


def to_official(task: Task, back: dict[str, str], constructor: str) -> dict:
    """Our task in the original's fields: inputs with np.array(, selected_functions as NumPy names."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(constructor)}\(")

    def np_inputs(text: str) -> str:
        return pattern.sub("np.array(", text) if constructor else text

    return {
        "query": task.query,
        "function_name": task.function_name,
        "example": np_inputs(task.example),
        "test_cases": [{"input": np_inputs(c["input"]), "output": c["output"]} for c in task.test_cases],
        "right_exe_result": task.right_exe_result,
        "selected_functions": [_official_name(back.get(f, f), back) for f in task.selected_functions],
        "is_valid": task.is_valid,
    }


def _official_name(key: str, back: dict[str, str]) -> str:
    """A mapping key in the original's spelling: numpy.mean -> mean, numpy.linalg.inv -> inv, and
    numpy.linalg.trace -> linalg.trace where the bare name is ambiguous (numpy.trace exists too)."""
    bare = key.rsplit(".", 1)[-1]
    if key.startswith("numpy.linalg.") and f"numpy.{bare}" in set(back.values()):
        return f"linalg.{bare}"
    return bare


def _write_parquet(tasks: list[Task], path: Path) -> Path:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise SebenchError("parquet export needs pyarrow: pip install 'sebench[export]'") from None
    rows = []
    for t in tasks:
        row = to_dict(t)
        row["expected"] = json.dumps(row["expected"])
        rows.append(row)
    schema = pa.schema([
        ("task_id", pa.string()), ("split", pa.string()), ("kind", pa.string()), ("query", pa.string()),
        ("function_name", pa.string()), ("entry_point", pa.string()), ("example", pa.string()),
        ("test_cases", pa.list_(pa.struct([("input", pa.string()), ("output", pa.string())]))),
        ("right_exe_result", pa.string()), ("selected_functions", pa.list_(pa.string())),
        ("is_valid", pa.bool_()), ("reference_solution", pa.string()), ("expected", pa.string()),
    ])
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path)
    return path

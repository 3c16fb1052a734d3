"""The original SE-Bench judge's rules, re-implemented for `--protocol original` (see docs/protocols.md).

What the original does with one answer, in order, and its five outcomes:
  1. the code is the last ```python block of the response ("" when there is none);
  2. the program is that code, then an import of the package, then a main block that calls the first
     function the code defines on every test input (the inputs' `np.array` rewritten to the package's
     constructor) and prints each result followed by a line "#", after a line of 20 "=";
  3. the program must use the package: it parses, the first function exists, and inside it some call
     reaches the package (a dotted name rooted at an imported package name, or a name imported from it)
     other than a lone constructor call, and it has a `return` with a value  -> else "without_zwc";
  4. it must not import NumPy (import, from-import or `__import__("numpy...")`)  -> else "numpy";
  5. it runs (3 s); no output at all  -> "exe_error";
  6. the printed results, split at "#", are compared with the task's `right_exe_result` one by one:
     equal text, or equal once parsed back into Python values (numbers within 1e-2, a one-element list
     equal to its element, True equal to 1, tuples equal to lists, ...)  -> "right", else "result_error"
     (and "exe_error" when the comparison itself fails, e.g. fewer printed results than expected).

The original's GRPO reward (`reward_answer`, its verl_evolve/verl/utils/reward_score/self_question.py) differs
from its judge: the code is the FIRST ```python block anywhere in the response (the thinking included);
the test inputs are pasted as the RL data stores them (`np.array` not rewritten) and the program has no
`test_cases` line; any output on stderr (a warning included; a timeout writes "TLE" there) gives 0; and
the printed results are compared with a tolerance of 1e-10, with no shortcut for equal text.

Unlike the original, printed values are never given to eval(): they are read by `read_printed`, which
accepts the same literal forms (and the `np.float64(...)`-style scalars NumPy prints) and nothing else.
The program runs in sebench's sandbox, never in the judge's process.
"""

from __future__ import annotations

import ast
import math
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.code_names import parse
from sebench.instance import Instance
from sebench.instance_library import require_numpy
from sebench.judge.sandbox import Sandbox
from sebench.records import Task, Verdict

OUTCOMES = ("result_error", "right", "numpy", "exe_error", "without_zwc")  # the original's codes 0-4
SEPARATOR = "=" * 20
TOLERANCE = 1e-2
REWARD_TOLERANCE = 1e-10  # the reward calls the comparison with its default tolerance
MAX_STDOUT = 8 * 1024 * 1024  # the original kept all the output; its printed results can be long
_BLOCK = re.compile(r"```python\n([\s\S]*?)```")
_FIRST_DEF = re.compile(r"def\s+([a-zA-Z_]\w*)\s*\(")


@dataclass(frozen=True)
class Outcome:
    """The original judge's decision on one answer, with what it was made from."""

    outcome: str  # one of OUTCOMES
    reason: str
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False

    @property
    def right(self) -> bool:
        return self.outcome == "right"


def last_python_block(response: str) -> str:
    """The code of the last ```python block (the fence must be followed by a newline), or ""."""
    blocks = _BLOCK.findall(response or "")
    return blocks[-1] if blocks else ""


def first_python_block(response: str) -> str:
    """The code of the first ```python block (the reward's choice), or ""."""
    match = _BLOCK.search(response or "")
    return match.group(1) if match else ""


def first_function(code: str) -> str:
    """The name after the first `def name(` in the text (the original's choice of the function to call)."""
    match = _FIRST_DEF.search(code)
    return match.group(1) if match else ""


def test_program(code: str, test_cases: list[dict], package: str, constructor: str) -> str:
    """The program the original runs: `code`, the package import, and the calls on every test input."""
    cases = [{**case, "input": re.sub(r"\bnp\.array\b", f"{package}.{constructor}", str(case.get("input", "")))}
             for case in test_cases]
    return _calling_program(code, package, [case["input"] for case in cases], [f"test_cases = {cases}"])


def reward_program(code: str, test_cases: list[dict], package: str) -> str:
    """The program the original's reward runs: `code`, the package import, and the calls on every test
    input exactly as stored (no `test_cases` line, `np.array` as it is)."""
    return _calling_program(code, package, [str(case.get("input", "")) for case in test_cases], [])


def _calling_program(code: str, package: str, inputs: list[str], prelude: list[str]) -> str:
    """`code`, the package import, and a main block: `prelude`, then the first function called on each input,
    each result printed followed by a line "#", after a separator line."""
    program = code + f"import {package}\n" + 'if __name__== "__main__":\n'
    name = first_function(program)
    lines = prelude + ["result_list = []"] + [f"result_list.append({name}({text}))" for text in inputs]
    lines += [f'print("{SEPARATOR}")', "for i in range(len(result_list)):", "    print(result_list[i])",
              '    print("#")']
    return program + "".join(f"    {line}\n" for line in lines).rstrip("\n")


# ------------------------------------------------------------------ step 3: does it use the package?

def uses_package(program: str, entry: str, package: str, constructor: str) -> tuple[bool, str]:
    """(passed, why not): the original's package-use check on the whole program (see the module doc)."""
    try:
        tree = parse(program)
    except SyntaxError as exc:
        return False, f"syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return False, f"cannot be parsed: {type(exc).__name__}"
    roots = _package_names(tree, package)
    if not roots:
        return False, f"no import of {package}"
    function = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    if function is None:
        return False, f"no function '{entry}'"
    calls = [n for n in ast.walk(function) if _is_package_call(n, roots)]
    if not calls:
        return False, f"'{entry}' calls nothing of {package}"
    if not any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(function)):
        return False, f"'{entry}' returns no value"
    if len(calls) == 1 and constructor in _dotted(calls[0].func).lower():
        return False, f"the only call of {package} is its array constructor"
    return True, ""


def _package_names(tree: ast.AST, package: str) -> set[str]:
    """Names bound to the package or to something imported from it."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name == package}
        elif isinstance(node, ast.ImportFrom) and node.module == package:
            names |= {a.asname or a.name for a in node.names}
    return names


def _is_package_call(node: ast.AST, roots: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        while isinstance(func, ast.Attribute):
            func = func.value
        return isinstance(func, ast.Name) and func.id in roots
    return isinstance(func, ast.Name) and func.id in roots


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "unknown"


# ------------------------------------------------------------------ step 4: NumPy imports

def imports_numpy(program: str) -> bool:
    """Whether the program imports NumPy (raises SyntaxError/ValueError when it does not parse)."""
    for node in ast.walk(parse(program)):
        if isinstance(node, ast.Import) and any(a.name == "numpy" or a.name.startswith("numpy.") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "numpy" or node.module.startswith("numpy.")):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                and node.args[0].value.startswith("numpy")):
            return True
    return False


# ------------------------------------------------------------------ step 6: printed results

def printed_results(stdout: str) -> list[str]:
    """The printed results: after the last separator line, split at "#", the last piece dropped, stripped."""
    return [piece.strip() for piece in stdout.split(SEPARATOR)[-1].split("#")[:-1]]


def same_results(printed: list[str], expected_text: str, tolerance: float = TOLERANCE) -> bool:
    """Every expected result (the '#'-separated `right_exe_result`) matches the printed one at its place.

    Raises IndexError when fewer results were printed than expected (the original fails there too)."""
    for i, target in enumerate(expected_text.split("#")):
        if not (printed[i] == target or same_printed(printed[i], target, tolerance)):
            return False
    return True


def same_printed(pred: str, target: str, tolerance: float = TOLERANCE) -> bool:
    """Whether two printed values are the same once read back (the original's rules, see module doc)."""
    a, b = normalize(read_printed(pred)), normalize(read_printed(target))
    try:
        return _same(a, b, tolerance)
    except (OverflowError, ValueError, TypeError, RecursionError):
        return re.sub(r"\s+", " ", pred.strip()) == re.sub(r"\s+", " ", target.strip())


_EMPTY_ARRAYS = (
    (re.compile(r"array\(\s*\[\s*\],\s*dtype=[\w\']+\s*\)"), "[]"),
    (re.compile(r"array\(\s*\[\s*\],\s*shape=\([^)]*\),\s*dtype=[\w\']+\s*\)"), "[]"),
    (re.compile(r"ZWCArray\(\s*\[\s*\]\s*\)"), "[]"),
    (re.compile(r"\w+Array\(\s*\[\s*\]\s*\)"), "[]"),
)
_FLAT_BRACKETS = re.compile(r"\[([\d\s\.eE+\-infnanTrueFalsej\(\)]+)\]")


def _one_line(text: str) -> str:
    """Lines joined by ", " (each line ends with a comma), as the original does for multi-line output."""
    if "\n" not in text:
        return text
    lines = [line.strip() for line in re.split(r"\n+", text) if line.strip()]
    return " ".join(line if line.endswith(",") else line + "," for line in lines)


def _commas(text: str) -> str:
    """"array" dropped, and commas put between the space-separated items of innermost brackets."""
    text = text.replace("array", " ")

    def add(match: re.Match) -> str:
        items = match.group(1).split()
        return f"[{', '.join(items)}]" if items else match.group(0)

    return _FLAT_BRACKETS.sub(add, text)


def read_printed(text: str) -> Any:
    """A printed value read back as the original reads it (its text transformations, then the literal);
    the transformed text itself when it is not a literal; None for blank output."""
    if not text.strip():
        return None
    cleaned = text.strip()
    for pattern, repl in _EMPTY_ARRAYS:
        cleaned = pattern.sub(repl, cleaned)
    cleaned = _commas(_one_line(cleaned)).replace("ZWCArray", " ")
    if ":" in cleaned:
        cleaned = cleaned[cleaned.index(":") + 1:].strip()
    cleaned = re.sub(r"\s+", "", cleaned).replace(",", ", ")
    cleaned = cleaned.replace("inf", 'float("inf")').replace("nan", 'float("nan")')
    try:
        return literal(cleaned)
    except (ValueError, SyntaxError, TypeError, OverflowError, ZeroDivisionError, RecursionError, MemoryError):
        return cleaned


def normalize(value: Any) -> Any:
    """Tuples as lists, text that still holds a literal read once more (the original's second pass)."""
    if isinstance(value, str):
        try:
            return normalize(ast.literal_eval(_commas(_one_line(value)).replace("ZWCArray", " ")))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return value
    if isinstance(value, (list, tuple)):
        return [normalize(item) for item in value]
    return value


def _unwrap(value: Any) -> Any:
    while isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _same(a: Any, b: Any, tolerance: float) -> bool:
    a, b = _unwrap(a), _unwrap(b)
    if a is None or b is None:
        return a is None and b is None
    if type(a) is not type(b):
        both_numbers = _is_number(a) and _is_number(b)
        both_sequences = isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
        if not (both_numbers or both_sequences):
            return False
    if _is_number(a) and _is_number(b):
        if (a == math.inf and b == math.inf) or (a == -math.inf and b == -math.inf):
            return True
        if math.isnan(a) and math.isnan(b):
            return True
        return abs(float(a) - float(b)) <= tolerance
    if isinstance(a, str) and isinstance(b, str):
        again_a, again_b = read_printed(a), read_printed(b)
        if again_a != a or again_b != b:
            return _same(again_a, again_b, tolerance)
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, tolerance) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tolerance) for k in a)
    return a == b


# ------------------------------------------------------------------ reading literals without eval

_NUMPY_SCALARS = {"float16", "float32", "float64", "float128", "longdouble", "int8", "int16", "int32", "int64",
                  "uint8", "uint16", "uint32", "uint64", "intp", "uintp", "complex64", "complex128",
                  "clongdouble", "str_", "bytes_", "bool", "bool_"}
_CONSTANT_NAMES = {"True": True, "False": False, "None": None, "np.True_": True, "np.False_": False,
                   "np.inf": math.inf, "np.nan": math.nan, "np.pi": math.pi, "np.e": math.e}
_MAX_EXPONENT = 10_000


def literal(text: str) -> Any:
    """The value of a Python literal expression, as eval() would give it for printed output: numbers,
    strings, lists, tuples, dicts, sets, True/False/None, `...`, `float("inf")`/`float("nan")`, signed and
    complex numbers, arithmetic between numbers, and NumPy's scalar forms (`np.float64(1.5)`, `np.True_`).
    Anything else (names, other calls, attributes) raises ValueError: nothing is executed."""
    return _value(parse(text, mode="eval").body)


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_value(e) for e in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.Name, ast.Attribute)) and _dotted(node) in _CONSTANT_NAMES:
        return _CONSTANT_NAMES[_dotted(node)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        operand = _value(node.operand)
        if isinstance(node.op, ast.Not):
            return not operand
        _require_number(operand)
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        left, right = _value(node.left), _value(node.right)
        _require_number(left)
        _require_number(right)
        if isinstance(node.op, ast.Pow):
            if abs(right) > _MAX_EXPONENT if not isinstance(right, complex) else True:
                raise ValueError("exponent too large")
            return left ** right
        return {ast.Add: lambda: left + right, ast.Sub: lambda: left - right, ast.Mult: lambda: left * right,
                ast.Div: lambda: left / right}[type(node.op)]()
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1:
        name = _dotted(node.func)
        arg = _value(node.args[0]) if node.args else None
        if name == "float" and isinstance(arg, str) and arg.strip().lower() in ("inf", "-inf", "nan", "+inf"):
            return float(arg)
        if name.startswith("np.") and name[3:] in _NUMPY_SCALARS:
            return _numpy_scalar(name[3:], arg)
    raise ValueError(f"not a printed literal: {type(node).__name__}")


def _require_number(value: Any) -> None:
    if not isinstance(value, (int, float, complex)):  # bools pass: they are ints
        raise ValueError("arithmetic on something that is not a number")


def _numpy_scalar(kind: str, arg: Any) -> Any:
    """A NumPy scalar's printed form as the plain Python value it stands for."""
    if kind.startswith(("float", "longdouble")):
        return float(arg if arg is not None else 0.0)
    if kind.startswith(("int", "uint")):
        return int(arg if arg is not None else 0)
    if kind.startswith(("complex", "clongdouble")):
        return complex(arg if arg is not None else 0)
    if kind.startswith("bool"):
        return bool(arg)
    if kind == "str_":
        return str(arg if arg is not None else "")
    return arg


# ------------------------------------------------------------------ the whole judgement

Runner = Callable[[str], tuple[str, str, bool]]  # program -> (stdout, stderr, timed out)


def judge_answer(response: str, test_cases: list[dict], right_exe_result: str, package: str, constructor: str,
                 run: Runner) -> Outcome:
    """The original judge's outcome for one answer; `run` executes the program (in sebench's sandbox)."""
    program = test_program(last_python_block(response), test_cases, package, constructor)
    refused = _static_outcome(program, package, constructor)
    if refused:
        return refused
    stdout, stderr, timed_out = run(program)
    if stdout == "":
        return Outcome("exe_error", "timed out" if timed_out else "printed nothing", stdout, stderr, timed_out)
    try:
        right = same_results(printed_results(stdout), right_exe_result)
    except (IndexError, RecursionError, MemoryError) as exc:
        return Outcome("exe_error", f"results cannot be compared: {type(exc).__name__}", stdout, stderr)
    if right:
        return Outcome("right", "", stdout, stderr)
    return Outcome("result_error", "a printed result differs from the expected one", stdout, stderr)


def reward_answer(response: str, test_cases: list[dict], right_exe_result: str, package: str, constructor: str,
                  run: Runner) -> Outcome:
    """The original's GRPO reward for one answer as an outcome ("right" is reward 1, anything else 0)."""
    program = reward_program(first_python_block(response), test_cases, package)
    refused = _static_outcome(program, package, constructor)
    if refused:
        return refused
    stdout, stderr, timed_out = run(program)
    if stderr or timed_out:
        return Outcome("exe_error", "timed out" if timed_out else "wrote to stderr", stdout, stderr, timed_out)
    printed = printed_results(stdout)
    try:
        right = all(same_printed(expected, printed[i], REWARD_TOLERANCE)
                    for i, expected in enumerate(right_exe_result.split("#")))
    except (IndexError, RecursionError, MemoryError) as exc:
        return Outcome("exe_error", f"results cannot be compared: {type(exc).__name__}", stdout, stderr)
    return Outcome("right" if right else "result_error", "", stdout, stderr)


def _static_outcome(program: str, package: str, constructor: str) -> Outcome | None:
    """The outcome decided before running (steps 3 and 4: the package-use check, then NumPy), or None."""
    ok, why = uses_package(program, first_function(program), package, constructor)
    if not ok:
        return Outcome("without_zwc", why)
    try:
        if imports_numpy(program):
            return Outcome("numpy", "imports numpy")
    except (SyntaxError, ValueError, RecursionError) as exc:
        return Outcome("exe_error", f"cannot be analysed: {type(exc).__name__}")
    return None


# ------------------------------------------------------------------ the judge object (protocol "original")

# the sebench verdict that stands for each original outcome (exe_error: a timeout when the run timed out)
VERDICT_OF = {"right": "correct", "result_error": "wrong_answer", "numpy": "forbidden_import",
              "exe_error": "runtime_error", "without_zwc": "not_using_package"}


class OriginalJudge:
    """`Judge`'s interface under protocol "original": the rules above; each program runs in sebench's
    sandbox, where the package behaves as the original's did (its printing included)."""

    def __init__(self, instance: Instance | Path | str, workers: int | None = None, *, timeout_s: float = 3.0,
                 bwrap: bool | None = None, memory_mb: int = 1024):
        instance = instance if isinstance(instance, Instance) else Instance.open(instance)
        require_numpy(instance, "--protocol original (its rules are written for NumPy)")
        self.instance = instance
        manifest = instance.manifest()
        self.package = manifest["package"]
        self.constructor = str(manifest.get("constructor", "")).rsplit(".", 1)[-1] or "array"
        self.workers = workers or os.cpu_count() or 2
        self.timeout_s = timeout_s
        self.sandbox = Sandbox(instance.package_dir, self.package, workers=self.workers, bwrap=bwrap,
                               memory_mb=memory_mb, semantics="original", max_stdout=MAX_STDOUT)
        self._released: dict | None = None  # the released rows of an imported instance, read on first reward
        self._printed: dict[str, str] = {}  # task_id -> its reference's printed results (built tasks)

    def __enter__(self) -> OriginalJudge:
        self.sandbox.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sandbox.__exit__(*exc)

    def package_identity(self) -> dict:
        return {"package": self.package, "seed": self.instance.manifest().get("seed")}

    def run(self, program: str, timeout_s: float | None = None,
            cancel: threading.Event | None = None) -> tuple[str, str, bool]:
        """(stdout, stderr, timed out) of the program; a timed-out program has printed nothing (as there)."""
        result = self.sandbox.run(program, "", [], timeout_s or self.timeout_s, cancel=cancel)
        timed_out = result.status == "timeout"
        stderr = result.stderr or (result.error or "" if result.status != "ok" else "")
        return ("" if timed_out else result.stdout), stderr, timed_out

    def judge(self, task: Task, response: str, sample_idx: int = 0) -> Verdict:
        return self.judge_local(task, response, sample_idx)

    def judge_local(self, task: Task, response: str, sample_idx: int = 0, *, timeout_s: float | None = None,
                    cancel: threading.Event | None = None) -> Verdict:
        """One verdict; `timeout_s` overrides the judge's, `cancel` stops the run (the sandbox server's call)."""
        found = judge_answer(response, task.test_cases, task.right_exe_result or "", self.package,
                             self.constructor, lambda program: self.run(program, timeout_s, cancel))
        verdict = VERDICT_OF[found.outcome]
        if found.outcome == "without_zwc" and not last_python_block(response):
            verdict = "no_code"
        elif found.outcome == "without_zwc" and found.reason.startswith("syntax error"):
            verdict = "syntax_error"
        elif found.timed_out:
            verdict = "timeout"
        detail = {"outcome": found.outcome, "message": found.reason}
        if found.stderr:
            detail["stderr"] = found.stderr[-2000:]
        total = len(task.test_cases)
        return Verdict(task.task_id, int(sample_idx), verdict, total if found.right else 0, total, detail,
                       split=task.split, kind=task.kind, protocol="original", outcome=found.outcome)

    def judge_many(self, items: list[tuple[Task, str, int]]) -> list[Verdict]:
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(lambda item: self.judge(*item), items))

    def reward(self, task: Task, response: str) -> float:
        """The original's GRPO reward of one answer: 1.0 or 0.0 (`reward_answer`) on the task's test cases
        and printed results as the original's RL data holds them (`reward_data`)."""
        cases, expected = self.reward_data(task)
        found = reward_answer(response, cases, expected, self.package, self.constructor, self.run)
        return 1.0 if found.right else 0.0

    def reward_data(self, task: Task) -> tuple[list[dict], str]:
        """(test cases, right_exe_result) for the reward: an imported task's released row as it is (inputs
        with `np.array` included); a task sebench built: what the original's package prints for its
        reference solution, as the original made right_exe_result (the task's own printed outputs have
        full precision where that package printed 8 digits, which the reward's 1e-10 would fail)."""
        if self._released is None:
            from sebench.tasks import released_rows

            self._released = released_rows(self.instance.root)
        row = self._released.get(task.task_id)
        if row and isinstance(row.get("test_cases"), list) and isinstance(row.get("right_exe_result"), str):
            return [{**c, "input": str(c.get("input", ""))} for c in row["test_cases"] if isinstance(c, dict)], \
                row["right_exe_result"]
        if task.task_id not in self._printed:
            self._printed[task.task_id] = self._reference_printed(task)
        return task.test_cases, self._printed[task.task_id]

    def _reference_printed(self, task: Task) -> str:
        """The reference solution's printed results under the original's semantics (else the task's own)."""
        if not task.reference_solution.strip():
            return task.right_exe_result or ""
        stdout, stderr, timed_out = self.run(reward_program(task.reference_solution + "\n", task.test_cases,
                                                            self.package))
        printed = printed_results(stdout)
        if stderr or timed_out or len(printed) != len(task.test_cases):
            return task.right_exe_result or ""
        return "#".join(printed)

    def rewards(self, answers: list[tuple[Task, str]]) -> list[float]:
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(lambda item: self.reward(*item), answers))

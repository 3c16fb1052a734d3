"""How noisy model-written tasks are: do a task's expected outputs agree with the real library's?

A task that a model wrote from the docs of one function F stores its own solution's outputs as the
expected ones, and the model may have misread F (the "noisy tasks" of self-play). The truth used here is
NumPy's original of F (from the instance's private mapping, never shown to a model) called on the task's
arguments in the order of its signature, `np.F(a, b)` for `def task(a, b):`. It runs in the trusted
harness on NumPy's side (sebench.tasks.execute, as the task generator verifies its own tasks), with the
package's names in the inputs replaced by NumPy's, and each result is compared with the task's expected
output by the judge's value rule (sebench.values.matches). A task agrees when every case matches.

A task that correctly does more than call F on its arguments (an extra axis, arithmetic on the result)
counts as disagreeing, so the share of disagreeing tasks is an upper bound of the share of wrong ones.
"""

from __future__ import annotations

import ast
import re

from sebench.instance import Instance
from sebench.records import Task
from sebench.tasks.execute import Job, run_jobs
from sebench.tasks.spec import numpy_names
from sebench.values import decode, matches


def library_agreement(instance: Instance, tasks: list[Task], functions: list[str], workers: int = 2) -> list[bool]:
    """Per task, written from the docs of functions[i] (a public name): whether every expected output is
    NumPy's own result on the same inputs (see the module docstring)."""
    mapping = instance.mapping()
    original = {public: key for key, public in mapping["functions"].items()}
    numpy_name = numpy_names(list(original.values()))
    to_numpy = _input_translator(original, numpy_name)
    jobs = []
    for i, (task, function) in enumerate(zip(tasks, functions)):
        params = signature_params(task.function_name)
        if params is None or function not in original:
            continue
        args = ", ".join(params)
        code = (f"import numpy as np\n\n\ndef {task.entry_point}({args}):\n"
                f"    return {numpy_name[original[function]]}({args})\n")
        jobs.append(Job(str(i), code, task.entry_point, [to_numpy(c["input"]) for c in task.test_cases], "numpy"))
    results = run_jobs(instance.package_dir, jobs, workers)
    agree = []
    for i, task in enumerate(tasks):
        cases = results.get(str(i))
        agree.append(cases is not None and len(cases) == len(task.expected) and all(
            case["ok"] and matches(decode(case["value"]), expected)
            for case, expected in zip(cases, task.expected)))
    return agree


def signature_params(signature: str) -> list[str] | None:
    """The positional parameter names of a `def name(a, b):` line (None when it does not parse)."""
    try:
        tree = ast.parse(signature.strip().splitlines()[0] + "\n    pass\n")
    except (SyntaxError, IndexError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef):
        return None
    return [a.arg for a in node.args.posonlyargs + node.args.args]


def _input_translator(original: dict[str, str], numpy_name: dict[str, str]):
    """A function that rewrites the package's public names in an input text as NumPy's (`np.` names)."""
    names = sorted(original, key=len, reverse=True)
    if not names:
        return lambda text: text
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\b")
    return lambda text: pattern.sub(lambda m: numpy_name[original[m.group(1)]], text)

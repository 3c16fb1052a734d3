"""A task's reference solution rewritten with real NumPy: the numpy mode's right answer (tests only)."""

from __future__ import annotations

import re

from sebench.instance import Instance
from sebench.records import Task
from sebench.tasks.spec import numpy_names


def numpy_solution(task: Task, instance: Instance) -> str | None:
    """The reference with `import numpy as np` and NumPy's names for the package's; None when its test inputs
    name the package (their arrays are the package's own)."""
    mapping = instance.mapping()
    package = mapping["package"]
    if any(package in str(case.get("input", "")) for case in task.test_cases):
        return None
    original = {public: key for key, public in mapping["functions"].items()}
    if mapping.get("constructor"):
        original[mapping["constructor"]] = "numpy.array"
    numpy_name = numpy_names(list(original.values()))
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(original, key=len, reverse=True))) + r")\b")
    code = pattern.sub(lambda m: numpy_name[original[m.group(1)]], task.reference_solution)
    return re.sub(rf"^import {package}$", "import numpy as np", code, flags=re.M)

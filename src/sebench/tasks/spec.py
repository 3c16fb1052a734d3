"""A task template and its rendering for one instance.

A template's reference solution is written over its library's names in braces: `{mean}(x, axis=1)`,
`{linalg.inv}(m)`. It is rendered twice: with the instance's public names (`import zwc` ...
`zwc.kocito(x, axis=1)`, the reference stored in the task) and with the original (NumPy's as
`import numpy as np` ... `np.mean(x, axis=1)`, any other library's by its dotted keys, `import more_itertools`
... `more_itertools.chunked(v, 2)`: the cross-check). The functions a task uses are exactly the names in its body.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sebench.obfuscate import NUMPY_RENAMED
from sebench.values import literal

NAME_RE = re.compile(r"\{((?:linalg\.)?[A-Za-z_][A-Za-z0-9_]*)\}")  # a class too: {Tally}
CONSTRUCTOR = "numpy.array"
# Standard modules a reference may use (all on the judge's allowlist).
STDLIB = ("math", "cmath", "itertools", "functools")


@dataclass(frozen=True)
class ArrayArg:
    """An input that must be passed as a package array: written with the constructor's public name."""

    value: Any


Gen = Callable[[random.Random, int], dict]


@dataclass(frozen=True)
class Template:
    """One kind of problem: statement variants, signature, reference body and an input generator.

    key:    unique id ("mean.row_average"); the template identity used by the split-hygiene rules.
    entry:  the function's name; params: its parameter names (in order).
    body:   the function body (indented by the renderer) over NumPy names in braces.
    texts:  problem statements, each a complete variant (setting, parameters, input and output forms).
    gen:    gen(rng, i) -> {param: plain value} for the i-th test case (edge cases at chosen i).
    cases:  minimum number of agreeing test cases for the task to be kept.
    tags:   "train": only ever used for training; "ctor": the constructor counts as a function of the
            task; "repr": outputs are repr strings (NumPy's "array(" read as the constructor's name).
    library: the original's import name that `{name}` keys live under ("numpy": "numpy.mean").
    """

    key: str
    entry: str
    params: tuple[str, ...]
    body: str
    texts: tuple[str, ...]
    gen: Gen
    cases: int = 8
    tries: int = 16
    tags: tuple[str, ...] = field(default=())
    library: str = "numpy"

    @property
    def functions(self) -> tuple[str, ...]:
        """The mapping keys this template's body calls, in order of first use ("numpy.mean", ...)."""
        seen: dict[str, None] = {}
        for name in NAME_RE.findall(self.body):
            seen.setdefault(f"{self.library}.{name}", None)
        return tuple(seen)

    @property
    def focus(self) -> tuple[str, ...]:
        """The functions the task is about: the constructor only counts when it is the only one."""
        fns = self.functions
        rest = tuple(f for f in fns if f != CONSTRUCTOR)
        return fns if "ctor" in self.tags else (rest or fns)

    @property
    def kind(self) -> str:
        return "single" if len(self.focus) == 1 else "multiple"

    def signature(self) -> str:
        return f"def {self.entry}({', '.join(self.params)}):"


def render_body(body: str, names: dict[str, str], library: str = "numpy") -> str:
    """Replaces each {name} with names["<library>.<name>"]."""

    def sub(match: re.Match) -> str:
        key = f"{library}.{match.group(1)}"
        try:
            return names[key]
        except KeyError:
            raise KeyError(f"template names unknown function {key}") from None

    return NAME_RE.sub(sub, body)


def numpy_names(keys: list[str] | tuple[str, ...]) -> dict[str, str]:
    """{"numpy.mean": "np.mean", "numpy.linalg.inv": "np.linalg.inv", ...} for the given keys."""
    out = {}
    for key in keys:
        short = key[len("numpy."):]
        head, _, last = short.rpartition(".")
        last = NUMPY_RENAMED.get(last, last)
        out[key] = "np." + (f"{head}.{last}" if head else last)
    return out


def original_names(template: Template) -> tuple[dict[str, str], str, str | None]:
    """The names, module and alias that render a template over its original library: NumPy's as `np.x`
    (numpy_names), any other library's by their dotted keys (`more_itertools.chunked`)."""
    if template.library == "numpy":
        return numpy_names(template.functions), "numpy", "np"
    return {key: key for key in template.functions}, template.library, None


def render_code(template: Template, names: dict[str, str], module: str, alias: str | None = None) -> str:
    """A complete program: imports, then `def entry(params):` with the rendered body."""
    body = render_body(template.body, names, template.library)
    imports = [f"import {module}" + (f" as {alias}" if alias else "")]
    imports += [f"import {m}" for m in STDLIB if re.search(rf"\b{m}\.", body)]
    lines = "\n".join(("    " + line) if line.strip() else "" for line in body.strip("\n").splitlines())
    return "\n".join(imports) + "\n\n\n" + template.signature() + "\n" + lines + "\n"


def input_string(kwargs: dict, params: tuple[str, ...], constructor: str) -> str:
    """The keyword-argument string of one test case: "readings=[[1.5, 2.0]], k=2"."""
    parts = []
    for name in params:
        value = kwargs[name]
        if isinstance(value, ArrayArg):
            parts.append(f"{name}={constructor}({literal(value.value)})")
        else:
            parts.append(f"{name}={literal(value)}")
    return ", ".join(parts)

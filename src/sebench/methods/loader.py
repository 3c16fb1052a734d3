"""Finding a method by its name: a built-in, an installed entry point (group `sebench.methods`), a module
attribute (`pkg.module:attr`) or a file's attribute (`path/to/file.py:attr`).

Like lm-evaluation-harness's registry, a name resolves lazily, its object is checked against the contract,
and where it came from (its origin and source file) is kept for the manifest.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from sebench.methods.contract import Agent, Method, MethodError

ENTRY_POINT_GROUP = "sebench.methods"

# built-in methods that are not training regimes: name -> ("module:attr", what it is)
BUILTINS = {
    "base": ("sebench.methods.builtins:Base", "the start model unchanged"),
    "open-book": ("sebench.methods.builtins:OpenBook", "the start model with the docs in its prompt at test time "
                  "(not eligible: a reference, as SWE-bench's gold)"),
    "memory": ("sebench.methods.builtins:Memory", "experience memory: the start model's judged-correct "
               "training answers recalled into each test prompt (an agent)"),
    "docs-cpt": ("sebench.methods.docs_only:DocsCPT", "next-token training on the studied functions' docs as "
                 "written (the control)"),
    "docs-cpt-augmented": ("sebench.methods.docs_only:DocsCPTAugmented", "K rule-made rewrites of each doc mixed "
                           "with the Closed-SFT examples in one stage"),
    "pit": ("sebench.methods.docs_only:PIT", "PIT++'s order: tasks; tasks with their docs; the docs-only "
            "functions' docs with a few tasks kept"),
    "context-distill": ("sebench.methods.docs_only:ContextDistill", "the open-book model's judged-correct answers "
                        "to task and doc-example prompts, trained closed-book"),
}


@dataclass(frozen=True)
class MethodRef:
    """A resolved method name: its label in the study, the spec given, its origin and its object."""

    label: str
    spec: str
    origin: str  # "built-in" | "entry point" | "module" | "file"
    target: str  # "module:attr" that imports it (a file's path for origin "file")
    source: Path | None  # the file that defines it

    def load(self) -> object:
        """The method's class or function, checked against the contract."""
        obj = _import(self.target, self.spec)
        if not (inspect.isclass(obj) and issubclass(obj, Method)) and not inspect.isfunction(obj):
            raise MethodError(f"method '{self.spec}': {self.target} is {type(obj).__name__}, not a subclass of "
                              "sebench.methods.Method or a function f(ctx, **arguments)")
        return obj

    def load_class(self) -> type[Agent]:
        """The agent class a method returned, rebuilt at test time."""
        obj = _import(self.target, self.spec)
        if not (inspect.isclass(obj) and issubclass(obj, Agent)):
            raise MethodError(f"method '{self.spec}': {self.target} is not a subclass of sebench.methods.Agent")
        return obj

    def source_sha256(self) -> str | None:
        if self.source is None or not self.source.is_file():
            return None
        return hashlib.sha256(self.source.read_bytes()).hexdigest()


def is_method_spec(name: str) -> bool:
    """Whether a `--regimes` item names a method (a built-in method, an entry point, or module/file:attr)."""
    return ":" in name or name.endswith(".py") or name in BUILTINS or name in entry_points()


def resolve(spec: str) -> MethodRef:
    """The MethodRef of a method name; unknown names are answered with the closest known one."""
    if spec in BUILTINS:
        target = BUILTINS[spec][0]
        return MethodRef(spec, spec, "built-in", target, _module_file(target.split(":")[0]))
    points = entry_points()
    if spec in points:
        target = points[spec]
        return MethodRef(spec, spec, "entry point", target, _module_file(target.split(":")[0]))
    where, sep, attr = spec.rpartition(":")
    if not sep and spec.endswith(".py"):  # the file alone: the class or function in it is to be named
        raise MethodError(f"method '{spec}': name the class or function in the file, as {spec}:NAME")
    if not sep or not where or not attr.isidentifier():
        known = [*BUILTINS, *points]
        close = difflib.get_close_matches(spec, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise MethodError(f"unknown method '{spec}'{hint} (a built-in, an entry point of group "
                          f"'{ENTRY_POINT_GROUP}', pkg.module:Attr or path/to/file.py:Attr)")
    if where.endswith(".py"):
        path = Path(where).expanduser().resolve()
        if not path.is_file():
            raise MethodError(f"method '{spec}': no file {path}")
        return MethodRef(attr, spec, "file", f"{path}:{attr}", path)
    if not all(part.isidentifier() for part in where.split(".")):
        what = "a file that is not Python" if Path(where).expanduser().is_file() else "neither a file nor a module"
        raise MethodError(f"method '{spec}': '{where}' is {what} (give path/to/file.py:Attr or pkg.module:Attr)")
    file = _module_file(where)
    if file is None:
        raise MethodError(f"method '{spec}': no module '{where}' can be imported here (give path/to/file.py:Attr "
                          "or an installed pkg.module:Attr)")
    return MethodRef(attr, spec, "module", spec, file)


def entry_points() -> dict[str, str]:
    """Installed methods: entry point name -> "module:attr"."""
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _module_file(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin else None


def _import(target: str, spec: str) -> object:
    where, _, attr = target.rpartition(":")
    try:
        if where.endswith(".py"):
            name = "sebench_method_" + hashlib.sha256(where.encode()).hexdigest()[:12]
            module_spec = importlib.util.spec_from_file_location(name, where)
            module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
            sys.modules[name] = module
            module_spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(where)
    except ImportError as exc:
        raise MethodError(f"method '{spec}': cannot import {where}: {exc}") from None
    if not hasattr(module, attr):
        raise MethodError(f"method '{spec}': {where} has no attribute '{attr}'")
    return getattr(module, attr)

"""The one harness that runs trusted code against a generated package in a child process.

This file is a script (the standard library and sebench/values.py beside it; NumPy is imported where a
command needs it) that the parent starts with `command_line`; tests import it as the module `sebench.harness` and call
its functions in-process. It never runs model-written code: the judge's sandbox (judge/zygote.py,
judge/sandbox.py) does that, with its own isolation.

    python -I -B harness.py COMMAND PACKAGE_DIR [ARGS] < requests > answers

COMMAND        stdin                                  stdout
reference      JSON lines: {"id", "code", "entry",    JSON lines: {"id", "cases": [{"ok": true, "value": data}
               "inputs": [kwargs text], "side":       | {"ok": false, "error": text}]} (values in the
               "package"|"numpy", "package": name}    task-data form of sebench.values)
examples       JSON lines: {"id", "stmts":            JSON lines: {"id", "results": [[status, output,
  POISON       [[source, [bound names]]]}, run as     [reprs of the bound names]]]}; exit 3 when the
  PRELUDE      doctest does, sharing one namespace    prelude (the package's import) fails
surface        the mapping (JSON)                     [top names, linalg names, array attributes,
                                                      {NumPy error name: the package's public name}]
probe          the mapping (JSON)                     the leak audit's run-time probe (see `probe_package`)

PACKAGE_DIR goes first on sys.path, so `import <package>` finds the generated package; further folders
after os.pathsep in it go last (a library's original that is not installed, e.g. a user's module:attr).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

HARNESS = Path(__file__).resolve()
CASE_SECONDS = 2.0  # CPU-time limit of one reference call or one example statement: the same on a busy machine
WALL_FACTOR = 15  # and a wall-clock limit of 15 times that, for a statement that waits rather than computes
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # CPU time ~ wall time
MAX_VALUE_CHARS = 20000  # a reference output longer than this (as JSON) fails its case
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

if __package__:  # imported as sebench.harness
    from sebench.values import to_task_data
else:  # a child started with -I cannot import sebench: load sebench/values.py (standard library only) by its path
    _spec = importlib.util.spec_from_file_location("_sebench_values", HARNESS.with_name("values.py"))
    _values = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_values)
    to_task_data = _values.to_task_data


# ---- the parent's side ------------------------------------------------------------------------------


def command_line(command: str, package_dir: Path | str, *args: str) -> list[str]:
    """The argv that runs COMMAND of this harness in an isolated child interpreter."""
    return [sys.executable, "-I", "-B", str(HARNESS), command, str(package_dir), *args]


def run(command: str, package_dir: Path | str, stdin: str, *args: str, timeout: float = 600,
        **popen) -> subprocess.CompletedProcess:
    """Runs COMMAND in a child process (text in, text out) with one BLAS thread; `popen` adds cwd/env for
    subprocess.run."""
    popen["env"] = {**(popen.get("env") or os.environ), **ONE_THREAD}
    return subprocess.run(command_line(command, package_dir, *args), input=stdin, capture_output=True, text=True,
                          timeout=timeout, **popen)


# ---- shared pieces of the child -----------------------------------------------------------------------


class Timeout(BaseException):
    """Raised by the alarm after CASE_SECONDS; a BaseException so that `except Exception` cannot hide it."""


def _alarm(signum, frame):
    raise Timeout(f"over {CASE_SECONDS} s")


class time_limit:
    """Raises Timeout in the body after `seconds` of the process's CPU time, or WALL_FACTOR times that of
    wall-clock time (main thread, POSIX): what a build keeps does not depend on how busy the machine is."""

    def __init__(self, seconds: float = CASE_SECONDS):
        self.seconds = seconds

    def __enter__(self):
        signal.signal(signal.SIGALRM, _alarm)
        signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, self.seconds)
        signal.setitimer(signal.ITIMER_REAL, self.seconds * WALL_FACTOR)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        return False


def safe_repr(value) -> str:
    """repr() without memory addresses; never raises."""
    try:
        return _ADDRESS.sub("", repr(value))
    except BaseException as exc:
        return f"<unrepresentable {type(exc).__name__}>"


def resolve(package, dotted: str):
    """The object of a public dotted name ("zwc.rfx.quvohe") inside the imported package."""
    obj = package
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _public(obj) -> list[str]:
    return sorted(name for name in dir(obj) if not name.startswith("_"))


def _serve_lines(stdin, stdout, handle) -> None:
    """One JSON answer line per JSON request line, flushed after each."""
    for line in stdin:
        if line.strip():
            stdout.write(json.dumps(handle(json.loads(line))) + "\n")
            stdout.flush()


# ---- reference: trusted reference solutions ----------------------------------------------------------


def numpy_plain(value):
    """NumPy results as plain data (the NumPy side of a reference has no `_plain`)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [numpy_plain(v) for v in value]
    return value


def run_reference(job: dict) -> dict:
    """Runs one reference program on each of its inputs: {"id", "cases": [...]}."""
    ns = {"__name__": "__reference__"}
    try:
        exec(compile(job["code"], "<reference>", "exec"), ns)
    except BaseException as exc:  # a broken reference fails every case
        return {"id": job["id"], "cases": [{"ok": False, "error": f"{type(exc).__name__}: {exc}"}] * len(job["inputs"])}
    plain = sys.modules[job["package"]]._plain if job["side"] == "package" else numpy_plain
    cases = []
    for text in job["inputs"]:
        try:
            with time_limit():
                value = to_task_data(plain(eval(f"{job['entry']}({text})", ns)))
            if len(json.dumps(value)) > MAX_VALUE_CHARS:
                raise ValueError("output too large")
            cases.append({"ok": True, "value": value})
        except BaseException as exc:
            cases.append({"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
    return {"id": job["id"], "cases": cases}


# ---- examples: doc examples, statement by statement --------------------------------------------------


def _poison_memory(poison: float) -> None:
    """Fills freed blocks of common sizes with `poison`, so that uninitialised outputs differ per run."""
    import numpy as np

    for size in (1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 24, 32, 64, 100, 128, 256, 512, 1024):
        for dtype in ("float64", "int64", "complex128"):
            fill = int(poison % 1000003) if dtype == "int64" else poison
            block = np.full(size, fill, dtype=dtype)
            del block


def run_example(job: dict, prelude: str, poison: float) -> dict:
    """Runs one example's statements in one namespace: {"id", "results": [[status, output, bound]]}."""
    ns = {"__name__": "__example__"}
    exec(prelude, ns)
    real_stdout, results = sys.stdout, []
    for source, binds in job["stmts"]:
        _poison_memory(poison)
        shown, buffer = [], io.StringIO()
        sys.displayhook = lambda v: shown.append(safe_repr(v)) if v is not None else None  # noqa: B023 - set anew for each statement
        sys.stdout = buffer
        status = "ok"
        try:
            with time_limit():
                exec(compile(source, "<example>", "single"), ns)
        except Timeout:
            status = "timeout"
        except BaseException as exc:
            status = f"error {type(exc).__name__}: {str(exc)[:200]}"
        finally:
            sys.stdout = real_stdout
        bound = [safe_repr(ns.get(name)) for name in binds]
        results.append([status, (buffer.getvalue() + "\n".join(shown)).rstrip("\n"), bound])
    return {"id": job["id"], "results": results}


# ---- surface: the package's public names and error types ---------------------------------------------

_ERROR_PROVOCATIONS = [  # NumPy's error name, the function that raises it, its arguments
    ("LinAlgError", "numpy.linalg.inv", ([[1.0, 2.0], [2.0, 4.0]],), {}),
    ("AxisError", "numpy.mean", ([1.0, 2.0],), {"axis": 5}),
]


def probe_surface(mapping: dict) -> list:
    """[public top-level names, public linalg names, public attributes of the array type,
    {"LinAlgError"/"AxisError": the package's public name of the error it raises instead}]."""
    import importlib

    pkg = importlib.import_module(mapping["package"])
    lin = getattr(pkg, mapping.get("linalg") or "_", None)
    array = resolve(pkg, mapping["constructor"])([1.0, 2.0])
    errors = {}
    for numpy_name, key, args, kwargs in _ERROR_PROVOCATIONS:
        try:
            resolve(pkg, mapping["functions"][key])(*args, **kwargs)
        except Exception as exc:
            for holder, prefix in ((pkg, mapping["package"]), (lin, f"{mapping['package']}.{mapping.get('linalg')}")):
                if holder is not None and getattr(holder, type(exc).__name__, None) is type(exc):
                    errors[numpy_name] = f"{prefix}.{type(exc).__name__}"
    return [_public(pkg), _public(lin) if lin is not None else [], _public(type(array)), errors]


# ---- probe: everything the leak audit looks at in a running package ----------------------------------

_MISSING_METHODS = ["mean", "sum", "tolist", "astype", "reshape", "flatten", "item", "T", "dtype", "__array__",
                    "_data", "base", "view", "max", "all", "any", "copy", "dot"]
_VALUES = [  # label, constructor argument
    ("int vector", [1, 2, 3]), ("bool vector", [True, False]), ("complex vector", [1 + 2j, 3 - 1j]),
    ("empty", []), ("3-D", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), ("scalar array", 3.5),
    ("nan inf", [float("nan"), float("inf"), -float("inf")]), ("long vector", list(range(3000))),
    ("string array", ["a", "bc"]),
]
_RESULTS = [  # label, NumPy name (key without "numpy."), args, kwargs
    ("mean", "mean", ([1.0, 2.0],), {}), ("eig", "linalg.eig", ([[2.0, 0.0], [0.0, 3.0]],), {}),
    ("qr", "linalg.qr", ([[1.0, 2.0], [3.0, 4.0]],), {}), ("svd", "linalg.svd", ([[1.0, 2.0], [3.0, 4.0]],), {}),
    ("slogdet", "linalg.slogdet", ([[1.0, 2.0], [3.0, 4.0]],), {}),
    ("eigh", "linalg.eigh", ([[2.0, 1.0], [1.0, 2.0]],), {}),
    ("unique counts", "unique", ([3, 1, 3],), {"return_counts": True}), ("divmod", "divmod", ([7, 8], 3), {}),
    ("frexp", "frexp", ([8.0],), {}), ("modf", "modf", ([2.5],), {}),
    ("histogram", "histogram", ([1, 2, 2, 3],), {"bins": 2}),
    ("lstsq", "linalg.lstsq", ([[1.0, 0.0], [0.0, 1.0]], [1.0, 2.0]), {}), ("shape", "shape", ([[1, 2]],), {}),
    ("meshgrid", "meshgrid", ([1, 2], [3, 4]), {}), ("nonzero", "nonzero", ([0, 1, 2],), {}),
    ("vectorize", "vectorize", (lambda a: a + 1,), {}), ("ix_", "ix_", ([0, 1], [2, 3]), {}),
]
_FAILURES = [  # label, NumPy name, args, kwargs: calls that must fail without showing NumPy
    ("reshape to a bad size", "reshape", ([1, 2, 3], (2,)), {}),
    ("matmul shape mismatch", "matmul", ([1, 2], [1, 2, 3]), {}),
    ("singular inverse", "linalg.inv", ([[1.0, 2.0], [2.0, 4.0]],), {}),
    ("cholesky not definite", "linalg.cholesky", ([[1.0, 2.0], [3.0, -4.0]],), {}),
    ("bad axis", "mean", ([1.0, 2.0],), {"axis": 5}), ("unknown keyword", "mean", ([1.0, 2.0],), {"nope": 1}),
    ("string to sqrt", "sqrt", ("abc",), {}), ("ragged input", "add", ([[1], [1, 2]], 1), {}),
    ("solve singular", "linalg.solve", ([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0]), {}),
    ("det non-square", "linalg.det", ([[1.0, 2.0, 3.0]],), {}),
    ("concatenate mismatch", "concatenate", (([[1, 2]], [[1, 2, 3]]),), {}),
    ("arange bad step", "arange", (0, 5, 0), {}),
]


class _Probe:
    """Collects the audit's evidence: names, docstrings, reprs and strs, and provoked errors."""

    def __init__(self, mapping: dict):
        import importlib

        self.mapping = mapping
        self.pkg = importlib.import_module(mapping["package"])
        self.out = {"top": _public(self.pkg), "linalg": [], "array_attrs": [], "docs": {}, "reprs": [],
                    "errors": [], "problems": []}
        linalg = mapping.get("linalg")
        self.lin = getattr(self.pkg, linalg, None) if linalg else None
        if self.lin is not None:
            self.out["linalg"] = _public(self.lin)
        self.functions = {k.replace("numpy.", "", 1): resolve(self.pkg, v)
                          for k, v in mapping.get("functions", {}).items()}
        constructor = mapping.get("constructor")
        self.make = resolve(self.pkg, constructor) if constructor else self.functions.get("array")

    def doc(self, label: str, obj) -> None:
        text = getattr(obj, "__doc__", None)
        if isinstance(text, str) and text.strip():
            self.out["docs"][label] = text

    def value(self, label: str, make):
        try:
            value = make()
        except Exception as exc:
            self.out["problems"].append(f"{label}: could not make the value ({type(exc).__name__}: {exc})")
            return None
        self.out["reprs"].append(["repr " + label, safe_repr(value)])
        self.out["reprs"].append(["str " + label, _ADDRESS.sub("", str(value))])
        return value

    def provoke(self, label: str, action) -> None:
        try:
            action()
        except BaseException as exc:
            frames = [f.filename for f in traceback.extract_tb(exc.__traceback__)
                      if "/numpy/" in f.filename.replace("\\", "/")]
            self.out["errors"].append([label, type(exc).__module__, type(exc).__name__, str(exc),
                                       frames[0] if frames else ""])

    def names(self) -> None:
        package = self.mapping["package"]
        self.doc(package, self.pkg)
        for holder, prefix, names in ((self.pkg, package, self.out["top"]),
                                      (self.lin, f"{package}.{self.mapping.get('linalg')}", self.out["linalg"])):
            for name in names:
                obj = getattr(holder, name)
                self.doc(f"{prefix}.{name}", obj)
                self.out["reprs"].append([f"name {prefix}.{name}", safe_repr(obj)])

    def array(self) -> None:
        x = self.value("float matrix", lambda: self.make([[1.5, 2.0], [3.0, 4.5]]))
        if x is None:
            return
        cls = type(x)
        self.out["array_attrs"] = _public(cls)
        type_name = f"{self.mapping['package']}.{self.mapping.get('array_type', cls.__name__)}"
        self.doc(type_name, cls)
        for attr in self.out["array_attrs"]:
            self.doc(f"{type_name}.{attr}", getattr(cls, attr))
            try:
                value = getattr(x, attr)
            except Exception:
                self.provoke("attribute ." + attr, lambda: getattr(x, attr))  # noqa: B023 - called at once
                continue
            if not callable(value):
                self.out["reprs"].append(["attribute ." + attr, safe_repr(value)])
        for method in _MISSING_METHODS:
            if method not in self.out["array_attrs"]:
                self.provoke("method ." + method, lambda m=method: getattr(x, m)())
        self.provoke("truth value", lambda: bool(x))
        self.provoke("index out of range", lambda: x[5])
        self.provoke("shape mismatch +", lambda: x + self.make([1, 2, 3]))
        self.provoke("add a string", lambda: x + "a")

    def calls(self) -> None:
        for label, data in _VALUES:
            self.value(label, lambda d=data: self.make(d))
        for label, name, args, kwargs in _RESULTS:
            if name in self.functions:
                self.value("result of " + label, lambda n=name, a=args, k=kwargs: self.functions[n](*a, **k))
        for label, name, args, kwargs in _FAILURES:
            if name in self.functions:
                self.provoke(label, lambda n=name, a=args, k=kwargs: self.functions[n](*a, **k))
        self.provoke("missing attribute", lambda: self.pkg.nope)


def probe_package(mapping: dict) -> dict:
    """{"top", "linalg", "array_attrs": public names; "docs": {name: docstring}; "reprs": [[label, text]];
    "errors": [[label, module, type, message, first NumPy frame or ""]]; "problems": [text]}."""
    probe = _Probe(mapping)
    probe.names()
    probe.array()
    probe.calls()
    return probe.out


# ---- the child's entry point ----------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    command, package_dir = argv[0], argv[1]
    first, *extra = package_dir.split(os.pathsep)  # extra: where a library outside site-packages lives
    if first:
        sys.path.insert(0, first)
    sys.path.extend(extra)
    warnings.simplefilter("ignore")
    if command == "reference":
        _serve_lines(sys.stdin, sys.stdout, run_reference)
    elif command == "examples":
        poison, prelude = float(argv[2]), argv[3]
        try:
            exec(prelude, {})
        except BaseException as exc:
            sys.stderr.write(f"cannot import the package: {type(exc).__name__}: {exc}\n")
            return 3
        _serve_lines(sys.stdin, sys.stdout, lambda job: run_example(job, prelude, poison))
    elif command == "surface":
        sys.stdout.write(json.dumps(probe_surface(json.loads(sys.stdin.read()))))
    elif command == "probe":
        sys.stdout.write(json.dumps(probe_package(json.loads(sys.stdin.read()))))
    else:
        sys.stderr.write(f"harness: unknown command {command!r}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

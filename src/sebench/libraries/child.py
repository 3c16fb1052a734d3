"""The child process that runs a built package for the builder: doc examples and the audit's probe.

    python -m sebench.libraries.child examples|probe < request.json > answer.json

It runs with the package folder (and, for a library outside site-packages, the original's folder) on
PYTHONPATH, so that a broken or hanging package cannot break the build; every call has a time limit.
"""

from __future__ import annotations

import doctest
import importlib
import json
import re
import signal
import sys
import traceback

CALL_SECONDS = 5
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
PROBE_ARGUMENTS = ((), (None,), ([3, 1, 2],), ([3, 1, 2], 2))


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"over {CALL_SECONDS} s")


def _limited(fn, *args):
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CALL_SECONDS)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)


class _Recorder(doctest.DocTestRunner):
    def __init__(self):
        super().__init__(verbose=False)
        self.passed: set[int] = set()
        self.index: dict[int, int] = {}

    def report_success(self, out, test, example, got):
        self.passed.add(self.index[id(example)])

    def report_failure(self, out, test, example, got):
        pass

    def report_unexpected_exception(self, out, test, example, exc_info):
        pass


def passing_examples(package: str, doc: str) -> list[int]:
    """Indices (in doctest's parse order) of the doc's examples that reproduce their output, twice."""
    kept = None
    for _ in range(2):
        test = doctest.DocTestParser().get_doctest(doc, {package: importlib.import_module(package)}, "doc", None, 0)
        runner = _Recorder()
        runner.index = {id(ex): i for i, ex in enumerate(test.examples)}
        try:
            _limited(runner.run, test, None, lambda text: None)
        except Timeout:
            return []
        kept = runner.passed if kept is None else kept & runner.passed
    return sorted(kept or ())


def examples(request: dict) -> dict:
    return {name: passing_examples(request["package"], doc) for name, doc in request["docs"].items()}


def _record(label: str, exc: BaseException) -> list:
    frames = [f"{f.filename}:{f.name}" for f in traceback.extract_tb(exc.__traceback__)[1:]]
    return [label, type(exc).__module__, type(exc).__name__, ADDRESS.sub("", str(exc)), frames]


def probe(request: dict) -> dict:
    """Reprs of every public object and of what it returns on a few plain arguments, and the errors
    (type, message, traceback frames) that bad arguments provoke."""
    package = importlib.import_module(request["package"])
    reprs, errors = [], []
    for name in package.__all__:
        obj = getattr(package, name)
        reprs.append([name, ADDRESS.sub("", repr(obj))])
        for n, args in enumerate(PROBE_ARGUMENTS):
            label = f"{name}/{n}"
            try:
                value = _limited(obj, *args)
                reprs += [[label, ADDRESS.sub("", repr(value))], [label, ADDRESS.sub("", str(value))]]
                if hasattr(value, "__next__"):
                    reprs.append([label + "/next", ADDRESS.sub("", repr(_limited(next, value)))])
            except Exception as exc:  # noqa: BLE001 - provoking errors is the point
                errors.append(_record(label, exc))
    return {"reprs": reprs, "errors": errors}


def main(argv: list[str]) -> int:
    request = json.loads(sys.stdin.read())
    sys.stdout.write(json.dumps({"examples": examples, "probe": probe}[argv[0]](request)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

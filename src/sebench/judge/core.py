"""The Judge: one response to one task -> one Verdict. The same object serves evaluation and RL rewards.

Pipeline per item: extract the code (sebench.answers) -> static rules (static.py) -> run the test inputs in
the sandbox (sandbox.py), locally or on `sebench sandbox serve` servers -> compare with Task.expected
outside the sandbox (sebench.values). Every item gets a verdict: an unexpected failure is `judge_error`,
counted, never dropped.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sebench.answers import extract_code
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.instance_library import require_numpy
from sebench.judge.static import Rules, check_code, package_calls
from sebench.judge.verdict import expected_for, make_verdict, verdict_from_run
from sebench.records import Task, Verdict
from sebench.values import is_printed

log = logging.getLogger(__name__)

LIBRARIES = ("package", "numpy")  # what the static rules require an answer to use (Judge's `library`)


class Judge:
    """Judges responses to tasks of one instance.

    workers: concurrent programs (default: the number of CPUs). sandbox_urls: judge on these
    `sebench sandbox serve` servers instead of locally (work is spread across them). Extra keyword
    options: bwrap (None auto / True / False) and memory_mb for the local sandbox; library "numpy" (the numpy
    mode) applies the static rules to real NumPy instead of the package (Rules.of_numpy), locally only.
    """

    def __init__(self, instance: Instance | Path | str, workers: int | None = None,
                 sandbox_urls: list[str] | None = None, timeout_s: float = 3.0, *, bwrap: bool | None = None,
                 memory_mb: int = 1024, library: str = "package"):
        if library not in LIBRARIES:
            raise SebenchError(f"unknown judge library '{library}'; choose one of {', '.join(LIBRARIES)}")
        if library == "numpy" and sandbox_urls:
            raise SebenchError("the numpy mode is judged with a local sandbox; leave out --sandbox-url")
        self.instance = instance if isinstance(instance, Instance) else Instance.open(instance)
        self.library = library
        if library == "numpy":
            require_numpy(self.instance, "the numpy mode (real NumPy instead of the package)")
        self.rules = Rules.of_numpy() if library == "numpy" else Rules.of_instance(self.instance)
        self._selected_as = self._numpy_names() if library == "numpy" else {}
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.sandbox_urls = list(sandbox_urls or [])
        if not self.sandbox_urls:
            self._check_original_importable()
        self.timeout_s = float(timeout_s)
        self._bwrap = bwrap
        self._memory_mb = memory_mb
        self._sandbox = None
        self._remote = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _check_original_importable(self) -> None:
        """One line, before any answer is judged, when the sandbox could not import the library that a
        non-NumPy instance's package imports (a training view, without the mapping, is not checked)."""
        from sebench.judge.sandbox import unimportable_original

        if not self.instance.mapping_path.is_file():
            return
        module = self.instance.mapping().get("module", "numpy")
        why = unimportable_original(module) if module != "numpy" and isinstance(module, str) else None
        if why:
            raise SebenchError(f"{self.instance.root}: its package imports the original library, but {why}: the "
                               "judge's sandbox imports from site-packages only; install it there (pip install, "
                               "not -e), see docs/libraries.md")

    # ---------------------------------------------------------------------------------- lifecycle
    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._pool:
                self._pool.shutdown(wait=True)
                self._pool = None
            if self._sandbox:
                self._sandbox.close()
                self._sandbox = None
            if self._remote:
                self._remote.close()
                self._remote = None

    @property
    def sandbox(self):
        with self._lock:
            if self._sandbox is None:
                from sebench.judge.sandbox import Sandbox

                package = self.instance.manifest()["package"] if self.library == "numpy" else self.rules.package
                sandbox = Sandbox(self.instance.package_dir, package, self.workers,
                                  bwrap=self._bwrap, memory_mb=self._memory_mb,
                                  value_modules=("numpy",) if self.library == "numpy" else ())
                sandbox.start()
                self._sandbox = sandbox
            return self._sandbox

    def _remote_pool(self):
        with self._lock:
            if self._remote is None:
                from sebench.judge.remote import RemotePool

                self._remote = RemotePool(self.sandbox_urls, self.package_identity(), self.timeout_s)
            return self._remote

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="sebench-judge")
            return self._pool

    # ---------------------------------------------------------------------------------- judging
    def judge(self, task: Task, response: str, sample_idx: int = 0) -> Verdict:
        return self.judge_many([(task, response, sample_idx)])[0]

    def judge_many(self, items: list[tuple[Task, str, int]]) -> list[Verdict]:
        """Verdicts for (task, response, sample_idx) items, in input order."""
        items = list(items)
        if not items:
            return []
        if self.sandbox_urls:
            return self._remote_pool().judge_many(items)
        if len(items) == 1:
            return [self.judge_local(*items[0])]
        return list(self._executor().map(lambda item: self.judge_local(*item), items))

    def _numpy_names(self) -> dict[str, str]:
        """The package's public names -> NumPy's (for a task's selected functions in the numpy mode)."""
        mapping = self.instance.mapping()
        names = {public: key for key, public in mapping.get("functions", {}).items()}
        if mapping.get("constructor"):
            names[mapping["constructor"]] = "numpy.array"
        return names

    def package_identity(self) -> dict:
        manifest = self.instance.manifest()
        return {"package": self.rules.package, "seed": manifest.get("seed")}

    def judge_local(self, task: Task, response: str, sample_idx: int = 0, *, timeout_s: float | None = None,
                    cancel: threading.Event | None = None) -> Verdict:
        """One verdict in this process's sandbox; `timeout_s` overrides the judge's, `cancel` stops the run."""
        try:
            return self._judge(task, response, sample_idx, timeout_s or self.timeout_s, cancel)
        except Exception as exc:  # counted as judge_error, never dropped
            log.exception("judge error on %s/%s", task.task_id, sample_idx)
            return make_verdict(task, sample_idx, "judge_error", 0, message=f"{type(exc).__name__}: {exc}")

    def _judge(self, task: Task, response: str, sample_idx: int, timeout_s: float,
               cancel: threading.Event | None) -> Verdict:
        code = extract_code(response)
        if code is None:
            return make_verdict(task, sample_idx, "no_code", 0, message="no fenced python code block", calls=[])
        calls = package_calls(code, self.rules.package)  # the report's right-call signal
        selected = tuple(self._selected_as.get(f, f) for f in task.selected_functions or ())
        static = check_code(code, task.entry_point, self.rules, selected)
        if static.verdict:
            where = f" (line {static.line})" if static.line else ""
            return make_verdict(task, sample_idx, static.verdict, 0, message=static.message + where, calls=calls)
        inputs = [str(tc.get("input", "")) if isinstance(tc, dict) else str(tc) for tc in task.test_cases]
        printed = any(is_printed(expected_for(task, i)) for i in range(len(inputs)))
        run = self.sandbox.run(code, task.entry_point, inputs, timeout_s, printed=printed, cancel=cancel)
        verdict = verdict_from_run(task, sample_idx, run)
        return dataclasses.replace(verdict, detail={**verdict.detail, "calls": calls})

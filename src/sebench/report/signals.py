"""Signals below the pass@1 floor: what a model got right short of a correct answer, each with its interval.

* **right call**: of the functions a task needs, the share each answer calls (correct or not), over every
  (answer, needed function) pair; read from the calls the judge records in each verdict's detail.calls
  (verdicts judged before the judge recorded calls have no right-call value);
* **tests passed**: the share of test cases passed, over every (answer, test case) pair;
* **failure kinds** (after NovelAPIBench's categories): each answer that is not correct falls in one of
  FAILURES by its verdict and message: a kind that splits a verdict by its message (REFINED), else its
  verdict under the name the main table gives it (report.fmt.VERDICT_SHORT), so one failure has one name.

Each signal is a share of hits among trials counted per cluster (run, task), so it takes the accuracy's
interval for these models (metrics.accuracy_counts) and its paired difference with the untrained model
(metrics.paired_counts), as the main table does. In runs with docs-only functions each row is also counted
in each group of report.docs_only ("with_tasks", "docs_only"), where pass@1 often ties at 0. report.json's
"signals": one row per main-table row and group, {"model", "regime", "mode", "split", "protocol", "group"
("all" or a group), "right_call": null | Signal, "tests_passed": null | Signal, "failures": {kind: Signal}}
with Signal {"share", "ci95", "trials", "vs_untrained": null | Paired} (null for the failure kinds).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict

from sebench.metrics import Cluster, Counts, accuracy_counts, paired_counts
from sebench.records import Verdict
from sebench.report.docs_only import GROUPS, TITLES, group_of
from sebench.report.fmt import VERDICT_SHORT, delta_ci, md_row, p_value, pct, signed, span
from sebench.report.tables import BASELINE, RunData, protocol_of, row_sort_key

# kinds that split a verdict by its message, then every other failing verdict under its VERDICT_SHORT name
REFINED = ("original used", "wrong name", "wrong arguments", "wrong value")
FAILURES = (VERDICT_SHORT["no_code"], REFINED[0], VERDICT_SHORT["not_using_package"], *REFINED[1:],
            *(name for verdict, name in VERDICT_SHORT.items()
              if verdict not in ("correct", "wrong_answer", "no_code", "not_using_package")))
_WRONG_NAME = re.compile(r"is not a public name of the package|AttributeError: module .* has no attribute")
_WRONG_ARGS = re.compile(r"\bTypeError\b")
Hits = Callable[[RunData, Verdict], tuple[int, int] | None]  # an answer's (hits, trials), None if unknown
ALL = "all"
GroupRow = tuple[str, str, str, str, str, str]  # (model, regime, mode, split, protocol, group)


def failure_kind(v: Verdict, originals: frozenset[str] = frozenset({"numpy"})) -> str | None:
    """The failure kind of an answer (FAILURES); None when it is correct. `originals`: the top-level modules of
    the library the package renames (RunData.original_modules): importing one is "original used"."""
    message = str(v.detail.get("message") or "")
    if v.verdict == "correct":
        return None
    if v.verdict in ("no_code", "not_using_package"):
        return VERDICT_SHORT[v.verdict]
    if v.verdict == "forbidden_import" and any(re.search(rf"\b{re.escape(m)}\b", message) for m in originals):
        return "original used"
    if _WRONG_NAME.search(message):
        return "wrong name"
    if v.verdict == "runtime_error" and _WRONG_ARGS.search(message):
        return "wrong arguments"
    return "wrong value" if v.verdict == "wrong_answer" else VERDICT_SHORT.get(v.verdict, v.verdict)


def right_call(run: RunData, v: Verdict) -> tuple[int, int] | None:
    """(needed functions the answer calls, needed functions); None when calls or needs are unknown."""
    needed = run.task_functions.get(v.task_id)
    calls = v.detail.get("calls")
    if not needed or calls is None:
        return None
    called = {run.naming.get(c, c) for c in calls}
    return sum(fn in called for fn in needed), len(needed)


def tests_passed(run: RunData, v: Verdict) -> tuple[int, int] | None:
    """(test cases passed, test cases); None for a task without test cases."""
    return (v.tests_passed, v.tests_total) if v.tests_total else None


def _failure(kind: str) -> Hits:
    return lambda run, v: (int(failure_kind(v, run.original_modules) == kind), 1)


SIGNALS: dict[str, Hits] = {"right_call": right_call, "tests_passed": tests_passed,
                            **{f"failure:{kind}": _failure(kind) for kind in FAILURES}}


def _groups(run: RunData, v: Verdict) -> list[str]:
    """ALL, and the task's docs-only group where the run has docs-only functions."""
    group = group_of(run.task_functions.get(v.task_id, []), set(run.docs_only)) if run.docs_only else None
    return [ALL] if group is None else [ALL, group]


def _counts(runs: list[RunData]) -> dict[str, dict[GroupRow, Counts]]:
    """signal -> row -> cluster -> (trials, hits), pooled over runs as the main table pools them."""
    out: dict[str, dict[GroupRow, dict[Cluster, list[int]]]] = {
        name: defaultdict(lambda: defaultdict(lambda: [0, 0])) for name in SIGNALS}
    for run in runs:
        for ev in run.evals:
            key = (run.model, ev.regime, ev.mode, ev.split, protocol_of(ev.verdicts))
            for v in ev.verdicts:
                for name, hits in SIGNALS.items():
                    got = hits(run, v)
                    if got is None:
                        continue
                    for group in _groups(run, v):
                        tally = out[name][(*key, group)][(str(run.root), v.task_id)]
                        tally[0] += got[1]
                        tally[1] += got[0]
    return {name: {key: {c: (n, h) for c, (n, h) in clusters.items()} for key, clusters in rows.items()}
            for name, rows in out.items()}


def _signal(counts: dict[GroupRow, Counts], key: GroupRow, paired: bool = True) -> dict | None:
    own = counts.get(key)
    if not own:
        return None
    stats = accuracy_counts(own)
    base = counts.get((key[0], BASELINE, *key[2:])) if paired else None
    diff = paired_counts(own, base) if base and key[1] != BASELINE else None
    return {"share": stats["accuracy"], "ci95": stats["ci95"], "trials": sum(n for n, _ in own.values()),
            "vs_untrained": None if diff is None else asdict(diff)}


def signal_rows(runs: list[RunData]) -> list[dict]:
    """One row per (model, regime, mode, split, protocol) that has verdicts, and per group (module docstring)."""
    counts = _counts(runs)
    keys = sorted({key for rows in counts.values() for key in rows},
                  key=lambda k: (row_sort_key(dict(zip(("model", "regime", "mode", "split"), k))),
                                 (ALL, *GROUPS).index(k[5])))
    rows = []
    for key in keys:
        model, regime, mode, split, protocol, group = key
        rows.append({"model": model, "regime": regime, "mode": mode, "split": split, "protocol": protocol,
                     "group": group, "right_call": _signal(counts["right_call"], key),
                     "tests_passed": _signal(counts["tests_passed"], key),
                     "failures": {kind: _signal(counts[f"failure:{kind}"], key, paired=False) for kind in FAILURES}})
    return rows


def _cell(signal: dict | None, delta: bool = False) -> str:
    if signal is None:
        return ""
    text = f"{pct(signal['share'])} ({span(signal['ci95'])})"
    diff = signal.get("vs_untrained")
    if delta and diff is not None:
        text += f"; Δ {signed(diff['delta'])} {delta_ci(diff['ci95'])}, p {p_value(diff['p'])}"
    return text


def signals_markdown(rows: list[dict], accuracy: dict[tuple, dict]) -> str:
    """Two tables: pass@1 beside right call and tests passed (each with Δ vs untrained), and the failure
    kinds; `accuracy`: pass@1 rows ({"accuracy", "ci95"}) by (model, regime, mode, split, protocol, group)."""
    with_model = len({r["model"] for r in rows}) > 1
    grouped = any(r["group"] != ALL for r in rows)
    lead = (["model"] if with_model else []) + ["regime", "mode", "split"] + (["tasks of"] if grouped else [])
    head = [*lead, "accuracy % (95% CI)", "right call % (95% CI); Δ vs untrained", "tests passed % (95% CI); Δ vs untrained"]
    lines = [md_row(head), "|" + "---|" * len(head)]
    shown = [k for k in FAILURES if any(r["failures"][k] and r["failures"][k]["share"] for r in rows)]  # those seen
    kinds = [md_row([*lead, *(f"{k} %" for k in shown)]), "|" + "---|" * (len(lead) + len(shown))]
    for r in rows:
        key = (r["model"], r["regime"], r["mode"], r["split"], r["protocol"], r["group"])
        main = accuracy.get(key)
        first = ([r["model"]] if with_model else []) + [r["regime"], r["mode"], r["split"]]
        first += [TITLES.get(r["group"], r["group"])] if grouped else []
        pass1 = "" if main is None else f"{pct(main['accuracy'])} ({span(main['ci95'])})"
        lines.append(md_row([*first, pass1, _cell(r["right_call"], True), _cell(r["tests_passed"], True)]))
        kinds.append(md_row([*first, *(_cell(r["failures"][k]) for k in shown)]))
    return "\n".join(lines) + "\n\n" + "\n".join(kinds) + "\n"

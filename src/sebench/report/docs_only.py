"""Test results grouped by "functions with tasks" and "docs only".

A run whose manifest lists `docs_only` functions (RunConfig.docs_only) trained without any task of those
functions. Each of its test tasks falls in one group by the functions it selects:

    "with_tasks"   every selected function kept its training tasks
    "docs_only"    at least one selected function is docs-only

Tasks whose functions the run's data does not name are in neither (counted as `ungrouped_tasks`); runs
without docs-only functions are left out. Pooled seeds are grouped each by its own list, then counted together
as the main table does: `metrics.verdict_stats` (intervals clustered by (run, task), seeds a second level) and
`metrics.paired_difference` against closed-sft and the untrained model in the same mode, split, protocol and
group. report.json's "docs_only_groups" (null when no run has docs-only functions):

    {"groups": ["with_tasks", "docs_only"],
     "runs": [{"run": dir, "seed": N, "docs_only": [names as in "functions"]}],
     "ungrouped_tasks": int (distinct (run, task id) in no group, over every row),
     "rows": [{"model", "regime", "mode", "split", "protocol", "ungrouped_tasks": int,
               "with_tasks" | "docs_only": null | {"n", "tasks", "correct", "accuracy", "se", "effective_n",
                   "ci95": [lo, hi] (these models), "seeds", "over_seeds" (metrics.verdict_stats),
                   "vs_closed_sft": null | Paired, "vs_untrained": null | Paired}}]}

Paired is `metrics.Paired` as a dict: delta, se, ci95 (these models), p, pairs, test, over_seeds.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict

from sebench.metrics import ACCURACY_CI, DELTA_CI, paired_difference, task_key, verdict_stats
from sebench.report.fmt import delta_ci, delta_over_seeds, md_row, over_seeds, p_value, pct, signed, span, targets_note
from sebench.report.tables import BASELINE, RowKey, RunData, Sample, protocol_of, row_sort_key

GROUPS = ("with_tasks", "docs_only")
TITLES = {"with_tasks": "with tasks", "docs_only": "docs only"}
REFERENCES = (("vs_closed_sft", "closed-sft"), ("vs_untrained", BASELINE))  # (field, regime compared with)
STAT_FIELDS = ("n", "tasks", "correct", "accuracy", "se", "effective_n", "ci95", "seeds", "over_seeds")
GroupKey = tuple[RowKey, str]  # (row, group)


def group_of(functions: list[str], docs_only: set[str]) -> str | None:
    """The group of a task selecting `functions`; None when its functions are unknown."""
    if not functions:
        return None
    return "docs_only" if any(f in docs_only for f in functions) else "with_tasks"


def _grouped(runs: list[RunData]) -> tuple[dict[GroupKey, list[Sample]], dict[RowKey, set[tuple[str, str]]]]:
    """The test samples of each (row, group), pooled over runs, and each row's ungrouped (run, task) pairs."""
    samples: dict[GroupKey, list[Sample]] = defaultdict(list)
    ungrouped: dict[RowKey, set[tuple[str, str]]] = {}
    for run in runs:
        hidden = set(run.docs_only)
        for ev in run.evals:
            if ev.split == "train":
                continue
            key = (run.model, ev.regime, ev.mode, ev.split, protocol_of(ev.verdicts))
            ungrouped.setdefault(key, set())  # every evaluated row gets a line, even one with no grouped task
            for v in ev.verdicts:
                group = group_of(run.task_functions.get(v.task_id, []), hidden)
                if group is None:
                    ungrouped[key].add((str(run.root), v.task_id))
                else:
                    samples[(key, group)].append((task_key(v, str(run.root)), v.verdict))
    return samples, ungrouped


def _group_stats(samples: dict[GroupKey, list[Sample]], key: RowKey, group: str) -> dict | None:
    """A group's accuracy with its interval and its paired differences against the reference regimes."""
    own = samples.get((key, group))
    if not own:
        return None
    stats = verdict_stats(own)
    out = {name: stats[name] for name in STAT_FIELDS}
    for name, regime in REFERENCES:
        other = samples.get(((key[0], regime, *key[2:]), group))
        diff = paired_difference(own, other) if other and regime != key[1] else None
        out[name] = None if diff is None else asdict(diff)
    return out


def docs_only_groups(runs: list[RunData]) -> dict | None:
    """The section's data (module docstring); None when no run has docs-only functions."""
    grouped = [run for run in runs if run.docs_only]
    if not grouped:
        return None
    samples, ungrouped = _grouped(grouped)
    rows = []
    for key, unknown in ungrouped.items():
        model, regime, mode, split, protocol = key
        row = {"model": model, "regime": regime, "mode": mode, "split": split, "protocol": protocol,
               "ungrouped_tasks": len(unknown)}
        rows.append(row | {group: _group_stats(samples, key, group) for group in GROUPS})
    rows.sort(key=row_sort_key)
    return {"groups": list(GROUPS),
            "runs": [{"run": str(run.root), "seed": run.seed, "docs_only": run.docs_only} for run in grouped],
            "ungrouped_tasks": len(set().union(*ungrouped.values())), "rows": rows}


def _delta(diff: dict | None, several: bool) -> str:
    if diff is None:
        return ""
    text = f"{signed(diff['delta'])} {delta_ci(diff['ci95'])}, p {p_value(diff['p'])}"
    return text + (f"; over seeds {delta_over_seeds(diff.get('over_seeds'))}" if several else "")


def _accuracy(g: dict, several: bool) -> str:
    text = f"{pct(g['accuracy'])} ({span(g['ci95'])})"
    return text + (f"; over seeds {over_seeds(g.get('over_seeds'))}" if several else "")


def docs_only_markdown(section: dict) -> str:
    """One line per row: in each group its tasks, accuracy with interval, and Δ against the references."""
    rows = section["rows"]
    several = len(section["runs"]) > 1
    with_model = len({r["model"] for r in rows}) > 1
    head = (["model"] if with_model else []) + ["regime", "mode", "split"]
    for group in GROUPS:
        head += [f"{TITLES[group]}: {title}" for title in
                 ("tasks", "accuracy % (95% CI, these models)", "Δ vs closed-sft", f"Δ vs {BASELINE}")]
    lines = [md_row(head), "|" + "---|" * len(head)]
    for r in rows:
        cells = ([r["model"]] if with_model else []) + [r["regime"], r["mode"], r["split"]]
        for group in GROUPS:
            g = r[group]
            cells += ["0", "", "", ""] if g is None else [
                str(g["tasks"]), _accuracy(g, several), _delta(g["vs_closed_sft"], several),
                _delta(g["vs_untrained"], several)]
        lines.append(md_row(cells))
    runs = "; ".join(f"seed {r['seed']}: {', '.join(r['docs_only'])}" for r in section["runs"])
    unknown = section["ungrouped_tasks"]
    tail = f" Tasks whose functions are unknown, in no group: {unknown}." if unknown else ""
    return ("\n".join(lines) + f"\n\nDocs-only functions ({runs}).{tail}\n\n{targets_note(several)} {ACCURACY_CI} "
             f"{DELTA_CI}\n")

"""Reading run directories and counting their verdicts: the numbers behind the report (no plotting).

A run directory (written by `sebench run`, or by hand with the stage commands) holds:

    RUN_DIR/manifest.json                              optional: {"model": SPEC, "seed": N, "data": "data",
                                                       "docs_only": [public names] (report.docs_only), ...}
    RUN_DIR/evals/<regime>/<mode>/<split>/verdicts.jsonl   the judge's verdicts of one evaluation
    RUN_DIR/train/<regime>/**/loss.csv                 training loss curves (columns step and loss)
    RUN_DIR/train/<regime>/**/rounds/round-K/summary.json  self-play: one round's counts (train.selfplay)
    RUN_DIR/train/<label>/method.json                  a user's method: origin, marks, cost (report.methods)
    RUN_DIR/<data>/...                                 the instance whose tasks were evaluated (default
                                                       "data", then "instance"): for the functions of each task

`regime` is "untrained" for the model before training, else the training regime ("closed-sft", ...).
Several run directories are pooled: samples of runs with the same model are counted together (seeds),
runs of different models stay in separate rows. Every row's numbers are `sebench.metrics.verdict_stats`
(the judge's summary counts with the same function): intervals clustered by task with seeds as a second
level, unbiased pass@k only where every task of the row has at least k samples. Every difference between
two regimes of a model in the same mode, split and protocol, and between the untrained model with help (open
book, memory) and a closed-book regime, is `sebench.metrics.paired_difference`: paired by (run, task id) over
the tasks both answered.
"""

from __future__ import annotations

import csv
import io
import logging
import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import open_plain, plain_matches, plain_path, read_json_object
from sebench.instance import SPLIT_FILES, Instance
from sebench.metrics import TaskKey, paired_difference, task_key, verdict_stats
from sebench.records import HELPED_MODES, Verdict, iter_json_lines, read_verdicts
from sebench.report.methods import read_methods

REGIME_ORDER = ("untrained", "closed-sft-random", "open-sft", "closed-sft", "open-rl", "closed-rl", "closed-sft-rl", "self-play-sft",
                "self-play-rl")
MODE_ORDER = ("closed", "open", "full-doc", "retrieval", "memory", "numpy")
SPLIT_ORDER = ("single_test", "multiple_test", "train")
BASELINE = "untrained"
log = logging.getLogger(__name__)
LEARNED_AT = 0.5  # a function counts as learned when at least half of its closed-book samples are correct


@dataclass
class EvalSet:
    """The verdicts of one evaluation: one model state (regime), one prompt mode, one split."""

    regime: str
    mode: str
    split: str
    verdicts: list[Verdict]


@dataclass
class RunData:
    """What the report needs from one run directory."""

    root: Path
    model: str
    seed: int | None
    evals: list[EvalSet]
    task_functions: dict[str, list[str]] = field(default_factory=dict)  # task_id -> function labels
    losses: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # regime -> (step, loss)
    settings: dict[str, str] = field(default_factory=dict)  # regime -> the training settings a study switches
    not_trained: dict[str, str] = field(default_factory=dict)  # regime -> why the study could not train it
    no_verdicts: list[str] = field(default_factory=list)  # regime/mode/split of each empty verdicts file (no row)
    self_play: dict[str, list[dict]] = field(default_factory=dict)  # regime -> its rounds' summaries, in order
    methods: dict[str, dict] = field(default_factory=dict)  # label -> its method.json (a user's method)
    docs_only: list[str] = field(default_factory=list)  # manifest's docs-only functions, named as task_functions
    naming: dict[str, str] = field(default_factory=dict)  # public name -> NumPy original (calls, in report.signals)
    recalls: dict[str, list[dict]] = field(default_factory=dict)  # label -> its name recalls (report.name_recall)
    library: str = "numpy"  # the library the run's package renames (its settings' `library`)

    @cached_property
    def original_modules(self) -> frozenset[str]:
        """The top-level modules of the library the package renames: the roots of its originals' names (the
        mapping), else the library's registry name as a module name. Computed once a run: the failure kinds
        ask it for every verdict."""
        roots = frozenset(name.split(".", 1)[0] for name in self.naming.values() if "." in name)
        return roots or frozenset({self.library.replace("-", "_")})


def load_run(root: str | Path, data: Path | None = None) -> RunData:
    """Reads one run directory; a directory without any verdicts is an error naming the expected layout.
    `data`: the instance whose tasks were evaluated, when the run directory does not say (hand-made runs)."""
    root = Path(root)
    if not root.is_dir():
        raise SebenchError(f"{root}: no such run directory")
    manifest = _manifest(root / "manifest.json")
    task_functions, original = _task_functions(root, manifest, data)
    evals = [
        EvalSet(p.parent.parent.parent.name, p.parent.parent.name, p.parent.name, read_verdicts(p))
        for p in plain_matches(root, "evals/*/*/*/verdicts.jsonl")
    ]
    if not evals:
        raise SebenchError(
            f"{root}: no verdicts found; expected RUN_DIR/evals/<regime>/<mode>/<split>/verdicts.jsonl "
            "(written by `sebench run`, or by `sebench judge --out` at that path)"
        )
    return RunData(
        root=root,
        model=str(manifest.get("model") or root.name),
        seed=manifest.get("seed"),
        evals=[ev for ev in evals if ev.verdicts],
        no_verdicts=[f"{ev.regime}/{ev.mode}/{ev.split}" for ev in evals if not ev.verdicts],
        task_functions=task_functions,
        losses=_losses(root),
        settings=_train_settings(root),
        not_trained=dict(manifest.get("not_trained") or {}),
        self_play=self_play_rounds(root),
        methods=read_methods(root),
        docs_only=sorted({original.get(f, f) for f in manifest.get("docs_only") or []}),
        naming=original,
        recalls={p.parent.name: _read_recalls(p) for p in plain_matches(root, "evals/*/name_recall.json")},
        library=str((manifest.get("config") or {}).get("library") or "numpy"),
    )


MANIFEST_FIELDS: dict[str, tuple[type, ...]] = {"model": (str,), "seed": (int,), "data": (str,), "config": (dict,),
                                                "not_trained": (dict,), "docs_only": (list,)}


def _manifest(path: Path) -> dict:
    """A run's manifest ({} where absent), each field the report reads of its type (null allowed): a seed of
    NaN or 1e999 made report.json no JSON, a list where a dict belongs a traceback."""
    manifest = _read_json(path)
    for name, kinds in MANIFEST_FIELDS.items():
        value = manifest.get(name)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise SebenchError(f"{path}: field '{name}': expected {' or '.join(k.__name__ for k in kinds)}, "
                               f"got {value!r}"[:300])
    return manifest


def _read_json(path: Path) -> dict:
    """The JSON object of a run's file (files.read_json_object: never through a link); {} where it is absent."""
    if not path.exists() and not path.is_symlink():
        return {}
    return read_json_object(path)


def _read_recalls(path: Path) -> list[dict]:
    """The functions of a name_recall.json (Recall records of sebench.rollout.name_recall), each checked: a
    name once (a function is one trial), a rank from 1 to its candidates; the first bad one named."""
    functions = _read_json(path).get("functions", [])
    if not isinstance(functions, list):
        raise SebenchError(f"{path}: field 'functions': expected a list")
    first: dict[str, int] = {}
    for i, r in enumerate(functions):
        where = f"{path}: functions[{i}]"
        if not isinstance(r, dict):
            raise SebenchError(f"{where}: expected a JSON object")
        missing = next((name for name in ("name", "candidates", "rank") if name not in r), None)
        if missing:
            raise SebenchError(f"{where}: field '{missing}': missing")
        if not isinstance(r["name"], str):
            raise SebenchError(f"{where}: field 'name': expected str, got {type(r['name']).__name__}")
        if type(r["candidates"]) is not int or r["candidates"] < 1:
            raise SebenchError(f"{where}: field 'candidates': must be a whole number >= 1 (got {r['candidates']!r})")
        if type(r["rank"]) is not int or not 1 <= r["rank"] <= r["candidates"]:
            raise SebenchError(f"{where}: field 'rank': must be a whole number from 1 to candidates "
                               f"({r['candidates']}) (got {r['rank']!r})")
        if first.setdefault(r["name"], i) != i:
            raise SebenchError(f"{where}: field 'name': {r['name']!r} repeats functions[{first[r['name']]}]")
    return functions


def _own_instance(root: Path, data: object) -> Path | None:
    """The instance a run's manifest names, where it lies inside the run; one that lies elsewhere (a run
    made with `--data DIR`) is read only where the user names it again (`sebench report --data DIR`): a
    manifest is a description, never followed out of its run."""
    rel = Path(str(data))
    if rel.is_absolute() or ".." in rel.parts:
        log.warning("%s: its instance lies outside it (%s); pass --data to name the functions of its tasks", root, data)
        return None
    return plain_path(root, rel)


def _task_functions(root: Path, manifest: dict, given: Path | None = None) -> tuple[dict[str, list[str]], dict]:
    """task_id -> the functions it uses, named by their NumPy originals when the mapping is there; and that
    naming (public name -> original) for other lists of public names.

    The report is for the researcher, never shown to a model, so it may read the private mapping; NumPy
    names make functions comparable across instances of different seeds (whose names differ)."""
    named = _own_instance(root, manifest.get("data")) if manifest.get("data") else None
    data = next((d for d in (named, given, root / "data", root / "instance") if d and d.is_dir()), None)
    if data is None:
        return {}, {}
    mapping = _read_json(Instance(data).mapping_path).get("functions", {})
    original = {public: name for name, public in mapping.items()}
    out = {}
    for rel in SPLIT_FILES.values():
        if (data / rel).is_file():
            for _, obj in iter_json_lines(data / rel):
                out[obj["task_id"]] = [original.get(f, f) for f in obj.get("selected_functions", [])]
    return out, original


def _losses(root: Path) -> dict[str, list[tuple[float, float]]]:
    out = {}
    for path in plain_matches(root, "train/*/**/loss.csv"):
        regime = path.relative_to(root / "train").parts[0]
        points = read_loss_csv(path)
        if points:
            out.setdefault(regime, points)
    return out


def _train_settings(root: Path) -> dict[str, str]:
    """regime -> its switchable settings, from train/<regime>/**/train_config.json: the RL gap's suspects
    (clipping, negative advantages, old log-probabilities) for GRPO, the SFT target for SFT."""
    out = {}
    for path in plain_matches(root, "train/*/**/train_config.json"):
        regime = path.relative_to(root / "train").parts[0]
        c = _read_json(path).get("config", {})
        parts = []
        if c.get("target") and ("sft" in regime):
            parts.append(f"target {c['target']}")
        if "rl" in regime.split("-"):
            parts += [f"clip [{c.get('epsilon')}, {c.get('epsilon_high')}]", f"neg. adv. {c.get('negative_advantages')}",
                      f"old logps {c.get('old_logps')}"]
        out.setdefault(regime, ", ".join(parts))
    return out


def self_play_rounds(root: Path) -> dict[str, list[dict]]:
    """regime -> the summaries of its self-play rounds (also of a regime that kept nothing to train on),
    without the per-task agreement map."""
    out: dict[str, list[dict]] = {}
    for path in plain_matches(root, "train/*/**/rounds/round-*/summary.json"):
        regime = path.relative_to(root / "train").parts[0]
        summary = {k: v for k, v in _read_json(path).items() if k != "agreement"}
        out.setdefault(regime, []).append(summary)
    return {regime: sorted(rounds, key=lambda r: r.get("round", 0)) for regime, rounds in sorted(out.items())}


def read_loss_csv(path: Path) -> list[tuple[float, float]]:
    """(step, loss) pairs of a loss.csv; the step column is "step" (else the row number), the loss
    column "loss" or "train_loss"; rows without a finite loss value (e.g. evaluation rows) are skipped. Read as
    files.open_plain does; a file that is not UTF-8 CSV is one line naming it."""
    try:
        with io.TextIOWrapper(open_plain(path), encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise SebenchError(f"{path}: not a UTF-8 CSV file ({str(exc)[:120]})") from None
    points = []
    for i, row in enumerate(rows):
        value = row.get("loss") or row.get("train_loss")
        try:
            point = (float(row.get("step") or i), float(value))
        except (TypeError, ValueError):
            continue
        if all(map(math.isfinite, point)):
            points.append(point)
    return points


# ---- ordering -------------------------------------------------------------------------------------


def _rank(value: str, order: tuple[str, ...]) -> tuple[int, str]:
    return (order.index(value) if value in order else len(order), value)


def _order(model: str, regime: str, mode: str, split: str) -> tuple:
    return (model, _rank(regime, REGIME_ORDER), _rank(mode, MODE_ORDER), _rank(split, SPLIT_ORDER))


def row_sort_key(row: dict) -> tuple:
    return _order(row["model"], row["regime"], row["mode"], row["split"])


# ---- tables ---------------------------------------------------------------------------------------


def protocol_of(verdicts: list[Verdict]) -> str:
    """The protocol that judged these verdicts ("sebench" for files from before protocols; "mixed" if several)."""
    found = {v.protocol or "sebench" for v in verdicts} or {"sebench"}
    return found.pop() if len(found) == 1 else "mixed"


RowKey = tuple[str, str, str, str, str]  # (model, regime, mode, split, protocol)
Sample = tuple[TaskKey, str]  # (task key, verdict name)


def _samples(runs: list[RunData]) -> dict[RowKey, list[Sample]]:
    """The samples of each row, pooled over runs (seeds) of the same model."""
    groups: dict[RowKey, list[Sample]] = defaultdict(list)
    for run in runs:
        for ev in run.evals:
            key = (run.model, ev.regime, ev.mode, ev.split, protocol_of(ev.verdicts))
            groups[key] += [(task_key(v, str(run.root)), v.verdict) for v in ev.verdicts]
    return groups


def _per_run(samples: list[Sample], seeds: dict[str, int | None]) -> list[dict]:
    """A row's samples and accuracy in each of its runs (seeds: run directory -> its seed)."""
    counts: dict[str, list[int]] = {}
    for key, verdict in samples:
        tally = counts.setdefault(key[0], [0, 0])
        tally[0] += 1
        tally[1] += verdict == "correct"
    return [{"run": run, "seed": seeds[run], "n": n, "correct": c, "accuracy": c / n} for run, (n, c) in counts.items()]


def main_table(runs: list[RunData]) -> list[dict]:
    """One row per (model, regime, mode, split, protocol), pooled over runs (seeds) of the same model, with
    its paired difference against the untrained model and, for a user's method, its method.json's fields."""
    groups = _samples(runs)
    seeds = {str(run.root): run.seed for run in runs}
    rows = []
    for key, samples in groups.items():
        model, regime, mode, split, protocol = key
        row = {"model": model, "regime": regime, "mode": mode, "split": split, "protocol": protocol,
               **verdict_stats(samples)}
        row["runs"] = _per_run(samples, seeds)
        row["settings"] = next((r.settings[regime] for r in runs if r.model == model and r.settings.get(regime)), "")
        method = next((r.methods[regime] for r in runs if r.model == model and regime in r.methods), None)
        if method is not None:
            row["method"] = {name: method.get(name) for name in ("origin", "spec", "returns", "eligible", "verified")}
        base = (model, BASELINE, mode, split, protocol)
        row["vs_untrained"] = _paired(groups, key, base) if regime != BASELINE and base in groups else None
        rows.append(row)
    rows.sort(key=row_sort_key)
    return rows


def _paired(groups: dict[RowKey, list[Sample]], a: RowKey, b: RowKey) -> dict | None:
    diff = paired_difference(groups[a], groups[b])
    return None if diff is None else asdict(diff)


def comparisons(runs: list[RunData]) -> list[dict]:
    """Every pair of regimes of a model in the same mode, split and protocol: the later regime (in the
    main table's order) minus the earlier, paired by task; then the untrained model in each of HELPED_MODES
    minus each closed-book regime (`mode_b` "closed"); pairs without a task in common are left out."""
    groups = _samples(runs)
    by_setting: dict[tuple, list[RowKey]] = defaultdict(list)
    for key in sorted(groups, key=lambda k: _order(*k[:4])):
        by_setting[(key[0], key[2], key[3], key[4])].append(key)
    out = []
    for (model, mode, split, protocol), keys in by_setting.items():
        for i, b in enumerate(keys):
            for a in keys[i + 1:]:
                diff = _paired(groups, a, b)
                if diff is not None:
                    out.append({"model": model, "mode": mode, "split": split, "protocol": protocol, "a": a[1],
                                "b": b[1], **diff})
    for model, mode, split, protocol in list(by_setting):
        helped = (model, BASELINE, mode, split, protocol)
        if mode not in HELPED_MODES or helped not in groups:
            continue
        for b in by_setting.get((model, "closed", split, protocol), []):
            diff = _paired(groups, helped, b)
            if diff is not None:
                out.append({"model": model, "mode": mode, "mode_b": "closed", "split": split, "protocol": protocol,
                            "a": BASELINE, "b": b[1], **diff})
    return out


def function_table(runs: list[RunData], mode: str = "closed") -> dict:
    """Per-function accuracy of each (model, regime) in `mode`, from single-function test tasks (else
    from every test task, crediting each function it uses), and which functions each regime learned."""
    cells: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    use_split = "single_test" if any(
        ev.split == "single_test" and ev.mode == mode for run in runs for ev in run.evals
    ) else None
    for run in runs:
        for ev in run.evals:
            if ev.mode != mode or ev.split == "train" or (use_split and ev.split != use_split):
                continue
            column = cells[(run.model, ev.regime)]
            for v in ev.verdicts:
                for fn in run.task_functions.get(v.task_id, []):
                    column[fn][0] += 1
                    column[fn][1] += v.verdict == "correct"
    columns = sorted(cells, key=lambda mr: (mr[0], _rank(mr[1], REGIME_ORDER)))
    functions = sorted({fn for col in cells.values() for fn in col})
    accuracy = {
        f"{m}|{r}": {fn: cells[(m, r)][fn][1] / cells[(m, r)][fn][0] for fn in functions if cells[(m, r)][fn][0]}
        for m, r in columns
    }
    samples = {f"{m}|{r}": {fn: cells[(m, r)][fn][0] for fn in functions if cells[(m, r)][fn][0]} for m, r in columns}
    learned = {}
    for m, r in columns:
        acc = accuracy[f"{m}|{r}"]
        base = accuracy.get(f"{m}|{BASELINE}", {})
        got = sorted(fn for fn, a in acc.items() if a >= LEARNED_AT)
        learned[f"{m}|{r}"] = {
            "learned": got,
            "new_vs_untrained": [] if r == BASELINE else [fn for fn in got if base.get(fn, 0.0) < LEARNED_AT],
        }
    return {
        "mode": mode,
        "split": use_split or "all test splits",
        "threshold": LEARNED_AT,
        "columns": [{"model": m, "regime": r, "key": f"{m}|{r}"} for m, r in columns],
        "functions": functions,
        "accuracy": accuracy,
        "samples": samples,
        "learned": learned,
    }

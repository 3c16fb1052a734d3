"""The report of lifelong runs: `build_continual_report(RUN_DIRS, OUT)` writes report.json, report.md and
matrices.png from each run's lifelong.json (the schedule) and its evaluations, seeds pooled.

Per split and track (a design under one schedule): the accuracy matrix (a table and a heatmap), the
measures of report/continual.py for the pooled matrix and for each run, and the mix-ups of the last
stage's answers, as counted by report/continual.py.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from sebench import __version__
from sebench.errors import SebenchError
from sebench.files import plain_path, read_json_object
from sebench.output_files import write_text_atomic
from sebench.records import Rollout, Verdict, read_records, read_verdicts
from sebench.report import continual
from sebench.report.fmt import md_row, signed
from sebench.report.transfer import transfer_markdown, transfer_results

log = logging.getLogger(__name__)

SCHEDULE_FILE = "lifelong.json"
BASE_LIBRARY = "warm-up library"  # the mix-up column of the base's own library


def is_lifelong_run(run_dir: Path) -> bool:
    """Whether `run_dir` is a lifelong run (it holds the schedule of libraries that `--preset lifelong` writes)."""
    return (Path(run_dir) / SCHEDULE_FILE).is_file()


def _schedule(run_dir: Path) -> dict:
    path = Path(run_dir) / SCHEDULE_FILE
    if not path.exists() and not path.is_symlink():
        raise SebenchError(f"{run_dir}: no {SCHEDULE_FILE}; not a lifelong run (sebench run --preset lifelong)")
    schedule = read_json_object(path)
    why = _schedule_error(schedule)
    if why:
        raise SebenchError(f"{path}: {why}; not the schedule `sebench run --preset lifelong` writes")
    return schedule


def _schedule_error(s: dict) -> str | None:
    """The first field of a lifelong.json that is not of the shape its writer gives (experiment.lifelong_study),
    as "field 'NAME': ..."; None when every field the report reads is."""
    def strings(value: object) -> bool:
        return isinstance(value, list) and all(isinstance(x, str) for x in value)

    def data(entry: object) -> bool:
        return isinstance(entry, dict) and isinstance(entry.get("data"), str)

    libraries = s.get("libraries")
    if not isinstance(libraries, dict) or not all(data(v) and type(v.get("position")) is int for v in libraries.values()):
        return "field 'libraries': expected {name: {position, data, ...}}"
    checks = {
        "seed": s.get("seed") is None or type(s.get("seed")) is int,
        "mode": isinstance(s.get("mode"), str),
        "splits": strings(s.get("splits")),
        "base_library": s.get("base_library") is None or data(s.get("base_library")),
        "tracks": isinstance(s.get("tracks"), list) and all(
            isinstance(t, dict) and isinstance(t.get("name"), str) and strings(t.get("libraries"))
            and set(t["libraries"]) <= set(libraries) and isinstance(t.get("rows"), list) and t["rows"]
            and all(strings(r) and len(r) == 2 for r in t["rows"]) and "design" in t and "replay" in t
            for t in s.get("tracks") or []),
        "transfers": all(isinstance(t, dict) and strings([t.get("model"), t.get("source"), t.get("target")])
                         and {t["source"], t["target"]} <= set(libraries) for t in s.get("transfers") or []),
        "transfer_modes": s.get("transfer_modes") is None or strings(s.get("transfer_modes")),
    }
    return next((f"field '{name}': not of the shape expected" for name, ok in checks.items() if not ok), None)


def _eval_file(run_dir: Path, schedule: dict, model: str, library: str, split: str, name: str) -> Path:
    return plain_path(run_dir, Path("evals", model, library, schedule["mode"], split, name))


def _read(path: Path, kind: type) -> list:
    """A file's records (none where it is absent); verdicts with a sample of a task at most once."""
    if not path.exists() and not path.is_symlink():
        return []
    return read_verdicts(path) if kind is Verdict else read_records(path, kind)


def track_result(runs: list[tuple[Path, dict]], track: dict, split: str) -> dict:
    """The pooled matrix, measures (pooled and per run) and last-stage mix-ups of one track."""
    shorts = [continual.library_column(runs[0][1]["libraries"][lib]) for lib in track["libraries"]]
    rows = [name for name, _ in track["rows"]]
    pooled: dict[tuple[str, str], list[Verdict]] = {}
    per_run = []
    for run_dir, schedule in runs:
        cells = {(name, short): _read(_eval_file(run_dir, schedule, model, lib, split, "verdicts.jsonl"), Verdict)
                 for name, model in track["rows"] for lib, short in zip(track["libraries"], shorts)}
        for key, verdicts in cells.items():
            pooled.setdefault(key, []).extend(verdicts)
        matrix = continual.accuracy_matrix(rows, shorts, cells)
        per_run.append({"run": str(run_dir), "seed": schedule["seed"],
                        "measures": continual.measures(matrix, track["replay"] is not None)})
    matrix = continual.accuracy_matrix(rows, shorts, pooled)
    return {
        "name": track["name"], "design": track["design"], "replay": track["replay"], "rows": rows,
        "libraries": shorts, "correct": [list(r) for r in matrix.correct], "n": [list(r) for r in matrix.n],
        "accuracy": matrix.values(), "measures": continual.measures(matrix, track["replay"] is not None),
        "per_run": per_run, "mixup": _last_stage_mixups(runs, track, shorts, split),
    }


def _last_stage_mixups(runs: list[tuple[Path, dict]], track: dict, shorts: list[str], split: str) -> dict:
    """{library: mixup_counts} of the last row's answers to each library, pooled over the runs."""
    model = track["rows"][-1][1]
    out: dict[str, dict] = {}
    for run_dir, schedule in runs:
        apis = {short: continual.library_api(plain_path(run_dir, schedule["libraries"][lib]["data"]))
                for lib, short in zip(track["libraries"], shorts)}
        if schedule.get("base_library"):
            apis[BASE_LIBRARY] = continual.library_api(plain_path(run_dir, schedule["base_library"]["data"]))
        for lib, short in zip(track["libraries"], shorts):
            path = _eval_file(run_dir, schedule, model, lib, split, "rollouts.jsonl")
            others = {name: api for name, api in apis.items() if name != short}
            counts = continual.mixup_counts((r.code for r in _read(path, Rollout)), apis[short], others)
            out[short] = continual.add_counts(out[short], counts) if short in out else counts
    return out


def build_continual_report(run_dirs: list[Path], out: Path, plots_enabled: bool = True) -> Path:
    """Writes OUT/report.json, OUT/report.md and (unless disabled) OUT/matrices.png; returns report.md."""
    runs = [(Path(d), _schedule(d)) for d in run_dirs]
    names = list(dict.fromkeys(t["name"] for _, s in runs for t in s["tracks"]))
    splits = list(dict.fromkeys(split for _, s in runs for split in s["splits"]))
    data = {"sebench_version": __version__, "runs": [{"dir": str(d), "seed": s["seed"]} for d, s in runs],
            "splits": {}}
    for split in splits:
        tracks = []
        for name in names:
            having = [(d, s) for d, s in runs if any(t["name"] == name for t in s["tracks"])]
            track = next(t for t in having[0][1]["tracks"] if t["name"] == name)
            result = track_result(having, track, split)
            if any(n for row in result["n"] for n in row):
                tracks.append(result)
        _compare_with_at_once(tracks)
        data["splits"][split] = {"tracks": tracks}
        transfers = transfer_results(runs, split)
        if transfers:
            data["splits"][split]["transfer"] = transfers
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data["figures"] = _plots(data, out) if plots_enabled else {}
    write_text_atomic(out / "report.json", json.dumps(data, indent=1) + "\n")
    md = out / "report.md"
    write_text_atomic(md, render_markdown(data))
    log.info("report written to %s", md)
    return md


def _compare_with_at_once(tracks: list[dict]) -> None:
    """Adds to each sequential track its ACC minus the ACC of its design's at-once reference (when run)."""
    reference = {t["design"]: t["measures"]["average_accuracy"] for t in tracks if t["replay"] is None}
    for t in tracks:
        if t["replay"] is not None and t["design"] in reference:
            ours, theirs = t["measures"]["average_accuracy"], reference[t["design"]]
            t["measures"]["acc_minus_at_once"] = None if ours is None or theirs is None else ours - theirs


def _plots(data: dict, out: Path) -> dict[str, str]:
    from sebench.report import plots

    figures = {}
    for split, entry in data["splits"].items():
        if entry["tracks"]:
            path = plots.accuracy_matrices(entry["tracks"], out / f"matrices-{split}.png", split)
            figures[split] = path.name
    return figures


# ---- markdown -----------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _pp(x: float | None) -> str:
    return "–" if x is None else signed(x)


def matrix_markdown(track: dict) -> str:
    """The accuracy matrix as a table: a row per stage, a column per library, "accuracy % (correct/n)"."""
    lines = [md_row(["after \\ on", *track["libraries"]]), "|---|" + "---|" * len(track["libraries"])]
    for s, row in enumerate(track["rows"]):
        cells = [f"{_pct(a)} ({c}/{n})" if n else "–" for a, c, n in
                 zip(track["accuracy"][s], track["correct"][s], track["n"][s])]
        lines.append(md_row([row, *cells]))
    return "\n".join(lines) + "\n"


def _mixup_total(track: dict) -> tuple[int, int, int]:
    counts = track["mixup"].values()
    return sum(c["any"] for c in counts), sum(c["package"] for c in counts), sum(c["n"] for c in counts)


def measures_markdown(tracks: list[dict]) -> str:
    """One row per track: ACC, BWT, FWT, forgetting (mean and per library), the last stage's mix-ups."""
    head = ("| track | ACC % | ACC − at once pp | BWT pp | FWT pp | forgetting pp (mean) | forgetting pp per library | "
            "mix-ups after the last stage |")
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for t in tracks:
        m = t["measures"]
        hits, packages, n = _mixup_total(t)
        per_library = ", ".join(f"{lib} {_pp(f)}" for lib, f in zip(t["libraries"], m.get("forgetting", [])))
        lines.append(md_row([t["name"], _pct(m["average_accuracy"]), _pp(m.get("acc_minus_at_once")),
                             _pp(m.get("backward_transfer")), _pp(m.get("forward_transfer")),
                             _pp(m.get("mean_forgetting")), per_library or "–",
                             f"{_pct(hits / n if n else None)}% ({hits}/{n}; another's package: {packages})"]))
    return "\n".join(lines) + "\n"


def mixup_markdown(track: dict) -> str:
    """The last stage's answers to each library (rows) that use another library's identifiers (columns)."""
    named = {name for c in track["mixup"].values() for name in c["by"]}
    others = [lib for lib in track["libraries"] if lib in named] + sorted(named - set(track["libraries"]))
    lines = [md_row(["answers to", *others, "any", "another's package"]),
             "|---|" + "---|" * (len(others) + 2)]
    for lib, c in track["mixup"].items():
        cells = ["" if name == lib else f"{c['by'].get(name, 0)}/{c['n']}" for name in others]
        lines.append(md_row([lib, *cells, f"{c['any']}/{c['n']}", f"{c['package']}/{c['n']}"]))
    return "\n".join(lines) + "\n"


def per_run_markdown(tracks: list[dict]) -> str:
    lines = ["| track | seed | ACC % | BWT pp | FWT pp | forgetting pp (mean) |", "|---|---|---|---|---|---|"]
    for t in tracks:
        for r in t["per_run"]:
            m = r["measures"]
            lines.append(md_row([t["name"], r["seed"], _pct(m["average_accuracy"]), _pp(m.get("backward_transfer")),
                                 _pp(m.get("forward_transfer")), _pp(m.get("mean_forgetting"))]))
    return "\n".join(lines) + "\n"


DEFINITIONS = (
    "R[s][j] is the closed-book accuracy on library j's test tasks after stage s (row *base*: the base model "
    "before any stage), seeds pooled as samples. ACC = mean of the last row; BWT = mean over j < k of "
    "R[k][j] − R[j][j] and FWT = mean over j ≥ 2 of R[j−1][j] − R[0][j] (Lopez-Paz & Ranzato 2017, GEM; the "
    "baseline b_j of FWT is the base's accuracy on library j); forgetting of library j < k = its best "
    "accuracy after stages 1..k−1 minus its final accuracy (Chaudhry et al. 2018). pp: percentage points. "
    "A mix-up is an answer to one library whose code uses an identifier of another library's public API "
    "(package, submodule, array type or function name, from its api_doc and manifest) that its own API "
    "lacks (*another's package*: of those, the answers that name another library's package); the *warm-up "
    "library* is the base's own.\n"
)


TRANSFER_NOTE = (
    "A model trained on one library's package alone (from the base), and the base, evaluated on another "
    "library's package closed-book and open-book (with the docs of the functions a task needs). Δ: trained "
    "minus base, paired by task, seeds pooled (sebench.metrics).\n"
)


def summary_markdown(data: dict) -> str:
    """The measures and the matrices of every split (what `sebench run` prints)."""
    parts = []
    for split, entry in data["splits"].items():
        parts.append(f"{split}:\n\n" + measures_markdown(entry["tracks"]))
        parts += [f"{t['name']}:\n\n" + matrix_markdown(t) for t in entry["tracks"]]
        if entry.get("transfer"):
            parts.append("transfer across libraries:\n\n" + transfer_markdown(entry["transfer"]))
    return "\n".join(parts)


def render_markdown(data: dict) -> str:
    runs = data["runs"]
    parts = ["# SE-Bench lifelong report\n",
             f"Runs ({len(runs)}): " + "; ".join(f"`{r['dir']}` (seed {r['seed']})" for r in runs) + "\n",
             DEFINITIONS]
    for split, entry in data["splits"].items():
        tracks = entry["tracks"]
        parts += [f"## {split}\n", "### Measures\n", measures_markdown(tracks), "### Accuracy matrices\n"]
        parts += [f"**{t['name']}**\n\n" + matrix_markdown(t) for t in tracks]
        if split in data.get("figures", {}):
            parts.append(f"![Accuracy matrices, {split}]({data['figures'][split]})\n")
        if entry.get("transfer"):
            parts += ["### Transfer across libraries\n", TRANSFER_NOTE, transfer_markdown(entry["transfer"])]
        parts.append("### Mix-ups after the last stage (answers using another library's names / answers)\n")
        parts += [f"**{t['name']}**\n\n" + mixup_markdown(t) for t in tracks]
        if len(runs) > 1:
            parts += ["### Per seed\n", per_run_markdown(tracks)]
    return "\n".join(parts)

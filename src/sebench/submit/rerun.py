"""`sebench verify --rerun`: the bundled method trained again from its bundled source, in fresh studies with
the run's settings, on the bundle's seed (compared with the bundle, task by task) or on held-out seeds.

A run whose decoding is greedy with one sample (temperature 0, n 1) must give every verdict again; otherwise each
split's accuracy must fall within the bundle's 95% interval. The result says which rule it applied.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from sebench.errors import SebenchError
from sebench.submit.bundle import BASELINE, SOURCE_DIR, Bundle, read_bundle
from sebench.submit.verify import Mismatch, run_config

log = logging.getLogger(__name__)

EQUAL = "equal per task (greedy, one sample)"
WITHIN = "within the bundle's 95% interval (sampled)"
KEPT = ("regime", "mode", "split", "n", "accuracy", "ci95", "vs_untrained")


def rerun_bundle(path: Path, work: Path, seeds: list[int] | None = None) -> dict:
    """Trains and evaluates the bundle's method again under `work`: on the bundle's seed (no `seeds`:
    compare_rerun's result) or on `seeds` (held_out's result)."""
    bundle = read_bundle(path)
    source = extract_sources(bundle, Path(work) / "source")
    if not seeds:
        root = run_study(bundle, source, Path(work) / "runs" / "rerun", bundle.json("run/manifest.json")["seed"])
        return compare_rerun(bundle, root)
    roots = [scrub(run_study(bundle, source, Path(work) / "runs" / f"seed-{s}", s)) for s in seeds]
    return held_out(bundle, roots)


def scrub(root: Path) -> Path:
    """A finished held-out run without its test splits and mapping, so that the next seed's method, which may
    read beside its own run, finds none of them."""
    import shutil

    for folder in ("instance", "data"):
        for part in ("datasets/test", "private"):
            shutil.rmtree(root / folder / part, ignore_errors=True)
    return root


def extract_sources(bundle: Bundle, folder: Path) -> Path:
    """The bundled source files under `folder`, importable from it (for a module or an entry point)."""
    for name, data in bundle.members.items():
        if name.startswith(SOURCE_DIR):
            target = folder / name.removeprefix(SOURCE_DIR)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    if bundle.submission.get("origin") in ("module", "entry point"):
        sys.path.insert(0, str(folder))  # the study resolves the method here, its fenced child from PYTHONPATH
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    return folder.resolve()


def rerun_config(bundle: Bundle, source: Path, seed: int):
    """The run's settings, for the bundled method alone, loaded from `source`, on `seed`."""
    sub = bundle.submission
    config = bundle.json("run/manifest.json").get("config") or {}
    label, changes = sub["label"], {"seed": seed, "regimes": [sub["label"]]}
    if sub.get("origin") != "built-in":
        entry = str(source / sub["entry"]) if sub.get("origin") == "file" else sub["entry"]
        changes["methods"] = {**(config.get("methods") or {}), label: {"method": entry, **(sub.get("args") or {})}}
    return run_config(bundle, **changes)


def run_study(bundle: Bundle, source: Path, root: Path, seed: int) -> Path:
    """One fresh study of the bundled method on `seed`; returns its run directory."""
    from sebench.experiment import Study

    log.info("re-run of %s on seed %d in %s", bundle.submission["label"], seed, root)
    try:
        Study(rerun_config(bundle, source, seed), root, argv=["verify", "--rerun"]).run()
    except Mismatch as exc:
        raise SebenchError(str(exc)) from None
    label = bundle.submission["label"]
    if not list((root / "evals" / label).glob("*/*/verdicts.jsonl")):
        why = (json.loads((root / "manifest.json").read_text(encoding="utf-8")).get("not_trained") or {}).get(label)
        raise SebenchError(f"re-run of {label} on seed {seed}: not trained ({why or 'no evaluation'})")
    return root


def _verdicts(lines: list[dict]) -> dict[tuple, str]:
    return {(v["task_id"], v["sample_idx"]): v["verdict"] for v in lines}


def compare_rerun(bundle: Bundle, root: Path) -> dict:
    """The re-run against the bundle: every verdict (greedy) or every split's accuracy in its interval."""
    label, decoding = bundle.submission["label"], bundle.submission.get("decoding") or {}
    greedy = decoding.get("n") == 1 and not decoding.get("temperature")
    mismatch = (first_changed_task(bundle, root, label) if greedy else outside_interval(bundle, root, label))
    return {"rule": EQUAL if greedy else WITHIN, "reproduced": mismatch is None, "mismatch": mismatch,
            "rows": rows(root, label)}


def first_changed_task(bundle: Bundle, root: Path, label: str) -> str | None:
    for name in bundle.eval_files("verdicts"):
        if not name.startswith(f"evals/{label}/"):
            continue
        again_path = root / name
        if not again_path.is_file():
            return f"{name}: the re-run did not evaluate this split"
        again = _verdicts([json.loads(line) for line in again_path.read_text(encoding="utf-8").splitlines() if line])
        for key, verdict in _verdicts(bundle.lines(name)).items():
            if again.get(key) != verdict:
                return f"{name}: task {key[0]} sample {key[1]}: bundle {verdict}, re-run {again.get(key)}"
    return None


def outside_interval(bundle: Bundle, root: Path, label: str) -> str | None:
    recorded = {(r["mode"], r["split"]): r for r in bundle.json("report/rows.json") if r["regime"] == label}
    for row in rows(root, label):
        old = recorded.get((row["mode"], row["split"]))
        if old and not old["ci95"][0] <= row["accuracy"] <= old["ci95"][1]:
            return (f"report/rows.json: {label} {row['mode']} {row['split']}: re-run accuracy {row['accuracy']:.3f} "
                    f"outside the bundle's interval [{old['ci95'][0]:.3f}, {old['ci95'][1]:.3f}]")
    return None


def rows(root: Path | list[Path], label: str) -> list[dict]:
    """The report's rows of `label` and the untrained model over one run or several (pooled seeds)."""
    from sebench.report import build_report

    roots = root if isinstance(root, list) else [root]
    out = roots[0].parent / "report"
    build_report(roots, out, plots_enabled=False)
    table = json.loads((out / "report.json").read_text(encoding="utf-8"))["main_table"]
    return [{k: r.get(k) for k in KEPT} for r in table if r["regime"] in (label, BASELINE)]


def held_out(bundle: Bundle, roots: list[Path]) -> dict:
    """The method on the held-out seeds, pooled: its rows; the seeds themselves are not recorded."""
    return {"seeds": len(roots), "rows": rows(roots, bundle.submission["label"])}


def read_seeds(path: Path) -> list[int]:
    """Seeds, one a line (# starts a comment); a line that is not an integer is an error naming it."""
    seeds = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            seeds.append(int(text))
        except ValueError:
            raise SebenchError(f"{path}:{number}: '{text}' is not a seed (one integer a line)") from None
    if not seeds:
        raise SebenchError(f"{path}: no seeds (one integer a line)")
    return seeds

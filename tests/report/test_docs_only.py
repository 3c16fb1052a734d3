"""The report's "functions with tasks" / "docs only" groups against hand-made runs and hand-counted numbers."""

import json
import math
from pathlib import Path

import pytest

from sebench.records import Task, Verdict, write_records
from sebench.report import build_report
from sebench.report.docs_only import group_of

FUNCTIONS = {"numpy.mean": "pkg.kocito", "numpy.sum": "pkg.zabure", "numpy.linalg.inv": "pkg.rfx.quvohe"}
TASKS = {  # task id -> (split, its selected functions)
    "t0": ("single_test", ["pkg.kocito"]), "t1": ("single_test", ["pkg.zabure"]),
    "t2": ("single_test", ["pkg.rfx.quvohe"]), "t3": ("single_test", ["pkg.kocito"]),
    "m0": ("multiple_test", ["pkg.kocito", "pkg.zabure"]), "m1": ("multiple_test", ["pkg.kocito", "pkg.rfx.quvohe"]),
}
CORRECT = {  # regime -> task id -> correct samples out of 2 (the same in every seed)
    "untrained": {"t0": 1, "t1": 0, "t2": 0, "t3": 0, "m0": 0, "m1": 0},
    "closed-sft": {"t0": 2, "t1": 0, "t2": 2, "t3": 1, "m0": 1, "m1": 2},
    "docs-cpt": {"t0": 1, "t1": 2, "t2": 1, "t3": 2, "m0": 2, "m1": 0},
}
UNKNOWN = "x9"  # a task evaluated but absent from the data's split files


def _write_run(root: Path, seed: int, docs_only: list[str] | None) -> Path:
    """A run directory: manifest (with the docs-only public names), data split files, fake verdicts."""
    for split in ("single_test", "multiple_test"):
        tasks = [Task(task_id=tid, split=s, kind="single" if len(fns) == 1 else "multiple", query="q",
                      function_name="def solve(x):", entry_point="solve", example="", test_cases=[],
                      right_exe_result="", selected_functions=fns) for tid, (s, fns) in TASKS.items() if s == split]
        write_records(root / f"data/datasets/test/{split}.jsonl", tasks)
    (root / "data/private").mkdir(parents=True)
    (root / "data/private/mapping.json").write_text(json.dumps({"package": "pkg", "functions": FUNCTIONS}))
    manifest = {"model": "tiny", "seed": seed, "data": "data"} | ({"docs_only": docs_only} if docs_only else {})
    (root / "manifest.json").write_text(json.dumps(manifest))
    for regime, correct in CORRECT.items():
        for split in ("single_test", "multiple_test"):
            ids = [tid for tid, (s, _) in TASKS.items() if s == split] + ([UNKNOWN] if split == "single_test" else [])
            verdicts = [Verdict(tid, k, "correct" if k < correct.get(tid, 0) else "wrong_answer", 0, 8,
                                mode="closed", split=split) for tid in ids for k in range(2)]
            write_records(root / "evals" / regime / "closed" / split / "verdicts.jsonl", verdicts)
    return root


def _section(tmp_path: Path, lists: list[list[str] | None]) -> tuple[dict | None, str]:
    runs = [_write_run(tmp_path / f"seed{i}", i, docs) for i, docs in enumerate(lists)]
    md = build_report(runs, tmp_path / "out", plots_enabled=False)
    return json.loads((tmp_path / "out/report.json").read_text())["docs_only_groups"], md.read_text()


def _row(section: dict, regime: str, split: str = "single_test") -> dict:
    return next(r for r in section["rows"] if r["regime"] == regime and r["split"] == split)


def test_group_of_needs_every_function_with_tasks():
    assert group_of(["a", "b"], {"b"}) == "docs_only"
    assert group_of(["a"], {"b"}) == "with_tasks"
    assert group_of([], {"b"}) is None


def test_one_seed_groups_counts_and_paired_difference(tmp_path):
    section, md = _section(tmp_path, [["pkg.zabure"]])
    assert section["runs"] == [{"run": str(tmp_path / "seed0"), "seed": 0, "docs_only": ["numpy.sum"]}]
    row = _row(section, "docs-cpt")
    assert (row["with_tasks"]["tasks"], row["docs_only"]["tasks"], row["ungrouped_tasks"]) == (3, 1, 1)
    assert row["with_tasks"]["n"] == 6 and row["with_tasks"]["accuracy"] == pytest.approx(4 / 6)
    assert row["docs_only"]["accuracy"] == 1.0
    # with tasks, docs-cpt - closed-sft per task: t0 0.5-1, t2 0.5-1, t3 1-0.5
    diff = row["with_tasks"]["vs_closed_sft"]
    se = math.sqrt(((1 / 3) ** 2 + (1 / 3) ** 2 + (2 / 3) ** 2) / (3 * 2))  # sd over N - 1, / sqrt(N)
    assert (diff["delta"], diff["pairs"]) == (pytest.approx(-1 / 6), 3)
    assert diff["se"] == pytest.approx(se)
    assert diff["ci95"][0] < -1 / 6 < diff["ci95"][1] and diff["p"] == 1.0  # every sign pattern of 3 is as far
    assert diff["over_seeds"]["note"] == "too few seeds for an interval over seeds"
    assert row["docs_only"]["vs_closed_sft"]["delta"] == pytest.approx(1.0)  # t1: 1 - 0
    assert row["docs_only"]["vs_untrained"]["delta"] == pytest.approx(1.0)
    multiple = _row(section, "docs-cpt", "multiple_test")  # m0 uses the docs-only numpy.sum among others
    assert (multiple["with_tasks"]["tasks"], multiple["docs_only"]["tasks"], multiple["ungrouped_tasks"]) == (1, 1, 0)
    assert _row(section, "closed-sft")["with_tasks"]["vs_closed_sft"] is None
    assert _row(section, "untrained")["docs_only"]["vs_untrained"] is None
    assert "## Functions with tasks and docs-only functions" in md
    assert "| docs-cpt | closed | single_test | 3 | 66.7 (" in md
    assert "seed 0: numpy.sum" in md


def test_pooled_seeds_group_each_by_its_own_list(tmp_path):
    section, _ = _section(tmp_path, [["pkg.zabure"], ["pkg.rfx.quvohe"], None])
    assert [r["seed"] for r in section["runs"]] == [0, 1]  # the run without docs-only functions is left out
    row = _row(section, "docs-cpt")
    # seed 0: t1 docs-only, t0 t2 t3 with tasks; seed 1: t2 docs-only, t0 t1 t3 with tasks
    assert (row["with_tasks"]["tasks"], row["docs_only"]["tasks"], row["ungrouped_tasks"]) == (6, 2, 2)
    assert row["docs_only"]["accuracy"] == pytest.approx(3 / 4)  # seed 0 t1 2/2, seed 1 t2 1/2
    assert row["with_tasks"]["accuracy"] == pytest.approx(9 / 12)
    # Δ vs closed-sft by hand: docs only (1 - 0, 0.5 - 1) / 2; with tasks (-.5 -.5 +.5 | -.5 +1 +.5) / 6
    assert row["docs_only"]["vs_closed_sft"]["delta"] == pytest.approx(0.25)
    assert row["docs_only"]["vs_closed_sft"]["pairs"] == 2
    assert row["with_tasks"]["vs_closed_sft"]["delta"] == pytest.approx(1 / 12)
    assert row["with_tasks"]["vs_closed_sft"]["pairs"] == 6
    assert row["docs_only"]["vs_untrained"]["delta"] == pytest.approx(0.75)  # (1 - 0, 0.5 - 0) / 2
    assert section["ungrouped_tasks"] == 2  # x9 in each seed, counted once over the regimes' rows


def test_no_section_without_docs_only_functions(tmp_path):
    section, md = _section(tmp_path, [None, None])
    assert section is None
    assert "docs-only functions" not in md

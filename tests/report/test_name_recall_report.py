"""The report's name recall rows, recounted from hand-written recall files: top-1 and top-10 with intervals, Δ
paired by function against the untrained model, pooled over seeds, by group where functions are docs-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sebench.records import Verdict, write_records
from sebench.report import build_report

FUNCTIONS = [f"pkg.f{i}" for i in range(6)]
DOCS_ONLY = FUNCTIONS[4:]


def _run(root: Path, seed: int, ranks: dict[str, list[int]]) -> Path:
    run = root / f"seed{seed}"
    (run / "evals").mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": seed, "docs_only": DOCS_ONLY}))
    for label, got in ranks.items():
        write_records(run / "evals" / label / "closed" / "single_test" / "verdicts.jsonl",
                      [Verdict("t0", 0, "wrong_answer", 0, 1, split="single_test", mode="closed")])
        recalls = [{"name": f, "rank": r, "candidates": 50, "logprob": -float(r)} for f, r in zip(FUNCTIONS, got)]
        (run / "evals" / label / "name_recall.json").write_text(json.dumps({"functions": recalls}))
    return run


def _rows(report: Path) -> dict:
    table = json.loads((report / "report.json").read_text())["name_recall"]
    return {(r["regime"], r["group"]): r for r in table["rows"]}, table


def test_recall_rows_pool_seeds_and_split_docs_only_functions(tmp_path):
    untrained = [7, 3, 20, 50, 9, 12]
    trained = [1, 1, 2, 1, 4, 1]
    runs = [_run(tmp_path, s, {"untrained": untrained, "closed-sft": trained}) for s in (0, 1)]
    md = build_report(runs, tmp_path / "report", plots_enabled=False)
    rows, table = _rows(tmp_path / "report")
    assert table["candidates"] == 50 and table["chance"] == {"top1": pytest.approx(1 / 50), "top10": pytest.approx(0.2)}
    assert set(rows) == {(regime, group) for regime in ("untrained", "closed-sft")
                         for group in ("all", "with_tasks", "docs_only")}
    whole = rows[("closed-sft", "all")]
    assert whole["functions"] == 12
    assert whole["top1"]["share"] == pytest.approx(4 / 6)
    assert whole["top10"]["share"] == 1.0 and whole["median_rank"] == 1
    assert rows[("untrained", "all")]["top10"]["share"] == pytest.approx(3 / 6)  # ranks 7, 3 and 9 of 50
    assert rows[("untrained", "all")]["median_rank"] == 10.5
    lo, hi = whole["top1"]["ci95"]
    assert 0 < lo < 4 / 6 < hi < 1
    docs_only = rows[("closed-sft", "docs_only")]
    assert docs_only["functions"] == 4 and docs_only["top1"]["share"] == pytest.approx(0.5)
    assert rows[("closed-sft", "with_tasks")]["top1"]["share"] == pytest.approx(3 / 4)
    diff = whole["top1"]["vs_untrained"]
    assert diff["pairs"] == 12 and diff["delta"] == pytest.approx(4 / 6)
    assert 0 < diff["ci95"][0] < 4 / 6 < diff["ci95"][1] and diff["p"] < 0.05
    assert rows[("untrained", "all")]["top1"]["vs_untrained"] is None
    text = md.read_text()
    assert "## Name recall" in text and "top-1 2.0%" in text
    line = next(x for x in text.splitlines() if x.startswith("| closed-sft | docs only |"))
    assert "| 4 | 50.0 (" in line


def test_a_tie_at_the_floor_reads_as_a_tie_with_its_bound(tmp_path):
    run = _run(tmp_path, 0, {"untrained": [5] * 6, "closed-sft": [19] * 6})
    build_report([run], tmp_path / "report", plots_enabled=False)
    rows, _ = _rows(tmp_path / "report")
    diff = rows[("closed-sft", "all")]["top1"]["vs_untrained"]
    assert diff["delta"] == 0 and diff["ci95"][0] < 0 < diff["ci95"][1] and diff["p"] == 1
    top10 = rows[("closed-sft", "all")]["top10"]["vs_untrained"]  # each rank fell out of the first 10: top-10 sees it
    assert top10["delta"] == -1.0 and top10["pairs"] == 6 and top10["ci95"][1] < 0 and top10["p"] < 0.05


def test_no_section_without_recall_files(tmp_path):
    run = tmp_path / "run"
    write_records(run / "evals/untrained/closed/single_test/verdicts.jsonl",
                  [Verdict("t0", 0, "wrong_answer", 0, 1, split="single_test", mode="closed")])
    md = build_report([run], tmp_path / "report", plots_enabled=False)
    assert json.loads((tmp_path / "report/report.json").read_text())["name_recall"] is None
    assert "Name recall" not in md.read_text()

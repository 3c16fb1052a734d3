"""`sebench leaderboard BUNDLE... --out DIR`: the bundles' rows, ranked, beside the paper's reported rows.

    DIR/leaderboard.json   every row: method, base model, preset, seeds, closed-book accuracy per split with its
                           interval, the paired difference from the same base with p, cost, marks, rank band
    DIR/leaderboard.md     the same table in Markdown (the docs site's page)
    DIR/index.html         a static page: the table, a base-model filter and an accuracy-against-cost plot

Every number is the bundle's report rows (sebench.report, recomputed by `sebench verify`); the marks
verified, re-run and held-out come from BUNDLE.verify.json when it verified this very bundle (its sha256).
Rank bands: rows sorted by single-function accuracy; a row joins the band of the band's first row while their
95% intervals overlap, and starts the next band otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import file_sha256
from sebench.submit.bundle import Bundle, read_bundle, write_text
from sebench.submit.entry import COSTS, SPLITS, Cell, Entry
from sebench.submit.verify import record_path

log = logging.getLogger(__name__)

PAPER = "SE-Bench paper, Table 2 (Qwen3-8B)"


def _reported(method: str, single: float, multiple: float, note: str = "") -> Entry:
    return Entry(method, "Qwen3-8B", "paper", "", {"single_test": Cell(single), "multiple_test": Cell(multiple)},
                 marks={"reported": PAPER + (f"; {note}" if note else "")}, reported=True)


REPORTED = (
    _reported("Closed-SFT → RL", 0.544, 0.179),
    _reported("Experience memory", 0.471, 0.155),
    _reported("Closed-SFT", 0.396, 0.116),
    _reported("Open-SFT", 0.0, 0.0),
    _reported("Open-RL", 0.0, 0.0),
    _reported("Closed-RL", 0.0, 0.0),
    _reported("Self-play + RL", 0.0, 0.0),
    _reported("Open-book with the docs", 0.853, 0.705, "pass@64; not eligible (docs at test time)"),
)


def write_leaderboard(bundles: list[Path], out: Path) -> Path:
    """Writes DIR's three files; returns DIR/index.html."""
    from sebench.submit.page import html_page, markdown_table

    rows = leaderboard_rows(bundles)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "leaderboard.json", json.dumps({"entries": [e.to_json() for e in rows]}, indent=1) + "\n")
    write_text(out / "leaderboard.md", markdown_table(rows))
    write_text(out / "index.html", html_page(rows))
    log.info("leaderboard of %d bundles written to %s", len(bundles), out)
    return out / "index.html"


def leaderboard_rows(bundles: list[Path]) -> list[Entry]:
    """The bundles' rows, ranked, then the reported ones."""
    return [*rank([entry_of(read_bundle(path)) for path in bundles]), *REPORTED]


def board_markdown(bundles: list[Path]) -> str:
    """The table and the plot, for a Markdown page (the docs site's leaderboard)."""
    from sebench.submit.page import markdown_table, plot

    rows = leaderboard_rows(bundles)
    return markdown_table(rows, title=False) + "\n" + plot(rows) + "\n"


def entry_of(bundle: Bundle) -> Entry:
    """A bundle's row: its report rows, its method's cost and marks, and its verification."""
    sub, method = bundle.submission, bundle.json("method/method.json")
    label, record = sub["label"], verification(bundle)
    rows = {r["split"]: r for r in bundle.json("report/rows.json") if r["regime"] == label and r["mode"] == "closed"}
    held = (record or {}).get("held_out") or {}
    seeds = str(sub.get("seed")) + (f" + {held['seeds']} held out" if held else "")
    return Entry(label, str(sub.get("base_model")), str(sub.get("preset")), seeds,
                 {split: cell(rows[split]) for split in SPLITS if split in rows},
                 {name: (method.get("cost") or {}).get(name) for name in COSTS}, marks(method, record, label),
                 source=bundle.path.name)


def cell(row: dict) -> Cell:
    diff = row.get("vs_untrained") or {}
    return Cell(row["accuracy"], tuple(row["ci95"]) if row.get("ci95") else None, diff.get("delta"), diff.get("p"))


def verification(bundle: Bundle) -> dict | None:
    """BUNDLE.verify.json, when it verified this bundle's bytes; else None (a stale or foreign record)."""
    path = record_path(bundle.path)
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SebenchError(f"{path}: not valid JSON ({exc.msg})") from None
    if record.get("bundle_sha256") != file_sha256(bundle.path):
        log.warning("%s: verifies another version of %s; ignored", path, bundle.path.name)
        return None
    return record


def marks(method: dict, record: dict | None, label: str) -> dict:
    """verified, re-run, held-out, eligible, network, isolation layer (None: not known)."""
    record = record or {}
    rerun, held = record.get("rerun"), record.get("held_out")
    return {"verified": bool(record.get("verified")),
            "re-run": None if rerun is None else bool(rerun.get("reproduced")),
            "held-out": None if held is None else held.get("seeds"),
            "held-out single": held_out_accuracy(held, label),
            "eligible": method.get("eligible"), "network": method.get("network"),
            "isolation": method.get("isolation")}


def held_out_accuracy(held: dict | None, label: str) -> float | None:
    """The method's closed-book single-function accuracy over the held-out seeds, pooled."""
    rows = [r for r in (held or {}).get("rows") or [] if (r["regime"], r["mode"], r["split"]) ==
            (label, "closed", "single_test")]
    return rows[0]["accuracy"] if rows else None


def rank(entries: list[Entry]) -> list[Entry]:
    """The entries sorted by single-function accuracy with their rank bands (module docstring)."""
    def score(e: Entry) -> tuple:
        return tuple(-(e.cells[s].accuracy if s in e.cells else -1.0) for s in SPLITS)

    ranked, band, leader = [], 0, None
    for entry in sorted(entries, key=score):
        interval = entry.cells.get("single_test") and entry.cells["single_test"].ci95
        if interval and (leader is None or interval[1] < leader[0]):
            band, leader = band + 1, interval
        ranked.append(dataclasses.replace(entry, band=band if interval else None))
    return ranked

"""`sebench leaderboard BUNDLE... --out DIR`: the bundles' rows beside the paper's reported rows.

    DIR/leaderboard.json   every row: method, base model, preset, seeds, level, tasks per split, closed-book
                           accuracy per split with its interval, the paired difference from the same base with p,
                           cost, marks, rank band
    DIR/leaderboard.md     the same table in Markdown (the docs site's page)
    DIR/index.html         a static page: the table, a base-model filter and an accuracy-against-cost plot

The board trusts no file beside a bundle: it verifies every bundle itself (`verify_bundle`), keeping the result
in the verifier's store keyed by the bundle's sha256 (a cache: the same bytes are not judged twice). A
re-run's or held-out result comes from that store, or from a ledger the maintainers keep (`ledger`:
LEDGER/<sha256>.json written by `sebench verify --rerun --store LEDGER`), and counts only for a bundle the board
itself re-judged. Every field shown is read from the run's records (crosscheck.shown_fields) and every number
from the rows the verifier recomputed.

Only reproduced entries are ranked, each benchmark apart (the same base model, preset, protocol and decoding, and
the settings of crosscheck.BENCHMARK a run changed from its preset, which its preset column names); the rest are
listed below them, unranked. A ranked entry's band is 1 + the number of entries of the same benchmark whose 95%
interval lies wholly above its own: entries in one band are not told apart at this sample size, and one very
uncertain entry changes no other band. Entries of equal accuracy are listed by method and bundle name.

Each result is listed once: of the bundles whose method's answers are the same (the same bundle under two names,
or its answers packed again under another label) the one of the highest level is listed, the first given among
equals; the others are listed as failing, naming it (`once`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

from sebench.errors import SebenchError
from sebench.submit.bundle import Bundle, read_bundle, rows_of, sha256, write_text
from sebench.submit.crosscheck import changed_settings, shown_fields
from sebench.submit.entry import COSTS, SPLITS, Cell, Entry
from sebench.submit.verify import (
    FAILS,
    HELD_OUT,
    LEVELS,
    MANIFEST,
    REPRODUCED,
    default_store,
    level_of,
    read_record,
    rules,
    verify_bundle,
    write_record,
)

log = logging.getLogger(__name__)
RANKED = (REPRODUCED, HELD_OUT)

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


def write_leaderboard(bundles: list[Path], out: Path, store: Path | None = None, ledger: Path | None = None) -> Path:
    """Writes DIR's three files; returns DIR/index.html."""
    from sebench.submit.page import html_page, markdown_table

    rows = leaderboard_rows(bundles, store, ledger)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "leaderboard.json", json.dumps({"entries": [e.to_json() for e in rows]}, indent=1) + "\n")
    write_text(out / "leaderboard.md", markdown_table(rows))
    write_text(out / "index.html", html_page(rows))
    log.info("leaderboard of %d bundles written to %s", len(bundles), out)
    return out / "index.html"


def leaderboard_rows(bundles: list[Path], store: Path | None = None, ledger: Path | None = None) -> list[Entry]:
    """The bundles' rows, ranked ones first, then the unranked ones, then the reported ones."""
    entries = [board_entry(Path(path), store or default_store(), ledger) for path in bundles]
    return [*rank(once(entries)), *REPORTED]


def board_entry(path: Path, store: Path, ledger: Path | None) -> Entry:
    """A bundle's row, from its bytes read once: what is verified, and what is shown, is of the same bytes."""
    try:
        bundle = read_bundle(path)
    except (SebenchError, OSError) as exc:  # a bundle that cannot be read fails alone
        return entry_of(path, {"verified": False, "mismatch": str(exc), "level": FAILS}, None)
    return entry_of(path, checked(bundle, store, ledger), bundle)


def once(entries: list[Entry]) -> list[Entry]:
    """Each result once: of the entries with the same answers (the same bundle under another name, or its answers
    packed again under another label) the one of the highest level is kept, the first given among equals; the
    others are listed as failing, naming it (so a copy cannot push out a reproduced entry by coming first)."""
    kept: dict[str, Entry] = {}
    for e in entries:
        if e.answers and (e.answers not in kept or LEVELS.index(e.level) > LEVELS.index(kept[e.answers].level)):
            kept[e.answers] = e
    out = []
    for e in entries:
        first = kept.get(e.answers)
        if e.answers and first is not e and first is not None:
            e = Entry(e.method, "", "", "", {}, marks={"fails": f"the same answers as {first.source} ({first.method}): "
                                                                "one result, one entry"}, source=e.source, level=FAILS)
        out.append(e)
    return out


def answers_digest(bundle: Bundle) -> str:
    """The sha256 of the method's answers as the judge reads them (each folder's mode and split, task, sample,
    response and code; not their timings or usage) on the run's instance: the hashes of its data files, which
    verify compared with the rebuilt instance's, not that of the bundled data manifest's text (the same
    manifest written with other spaces, or naming another folder it was selected from, verifies as well)."""
    label = bundle.submission["label"]
    answers = [(name.split("/", 2)[2], [[r.get(k) for k in ("task_id", "sample_idx", "response", "code")]
                                        for r in bundle.lines(name)])
               for name in bundle.eval_files("rollouts") if name.split("/")[1] == label]
    data = {k: v for k, v in (bundle.manifest.get("data_hashes") or {}).items() if k != MANIFEST}
    text = json.dumps([data, answers], sort_keys=True, ensure_ascii=False)
    return sha256(text.encode())


def board_markdown(bundles: list[Path], store: Path | None = None, ledger: Path | None = None) -> str:
    """The table and the plot, for a Markdown page (the docs site's leaderboard)."""
    from sebench.submit.page import markdown_table, plot

    rows = leaderboard_rows(bundles, store, ledger)
    return markdown_table(rows, title=False) + "\n" + plot(rows) + "\n"


def checked(bundle: Bundle, store: Path, ledger: Path | None) -> dict:
    """The bundle's verification: the store's record of these bytes made under these rules (verify.rules),
    else one made now (and stored); with a re-run or held-out result from the ledger where the store has none."""
    digest = bundle.sha256
    record = read_record(store, digest)
    if record is None or "verified" not in record or record.get("rules") != rules():
        try:
            write_record(verify_bundle(bundle.path, bundle=bundle), store)
            record = read_record(store, digest) or {}
        except (SebenchError, OSError) as exc:  # a bundle that cannot be read or rebuilt fails alone
            record = {"verified": False, "mismatch": str(exc)}
    if ledger is not None and record.get("verified"):
        kept = read_record(ledger, digest) or {}
        record = {**record, **{k: kept.get(k) for k in ("rerun", "held_out") if not record.get(k) and kept.get(k)}}
    return {**record, "level": level_of(record)}


def entry_of(path: Path, record: dict, bundle: Bundle | None) -> Entry:
    """A bundle's row: its recomputed rows, the fields its records show, its level."""
    if record["level"] == FAILS or bundle is None:
        return Entry(path.name.removesuffix(".tar.gz"), "", "", "", {}, marks={"fails": record.get("mismatch")},
                     source=path.name, level=FAILS)
    label, shown = bundle.submission["label"], shown_fields(bundle)
    rows = {r["split"]: r for r in rows_of(bundle.members) if r["regime"] == label and r["mode"] == "closed"}
    held = record.get("held_out") or {}
    seeds = str(shown["seed"]) + (f" + {held['seeds']} held out" if held else "")
    changed = changed_settings(bundle)
    preset = str(shown["preset"]) + (f" (changed: {', '.join(changed)})" if changed else "")
    return Entry(label, str(shown["base_model"]), preset, seeds,
                 {split: cell(rows[split]) for split in SPLITS if split in rows},
                 {name: shown["cost"].get(name) for name in COSTS}, marks(shown, record, label),
                 source=path.name, level=record["level"], tasks={s: rows[s].get("tasks") for s in SPLITS if s in rows},
                 group=json.dumps([shown["base_model"], preset, shown["protocol"], shown["decoding"]], sort_keys=True),
                 answers=answers_digest(bundle))


def cell(row: dict) -> Cell:
    diff = row.get("vs_untrained") or {}
    return Cell(row["accuracy"], tuple(row["ci95"]) if row.get("ci95") else None, diff.get("delta"), diff.get("p"))


def marks(shown: dict, record: dict, label: str) -> dict:
    """level, re-run, held-out, eligible, network, isolation layer, decoding (None: not known)."""
    rerun, held = record.get("rerun"), record.get("held_out")
    decoding = shown["decoding"]
    return {"level": record["level"],
            "re-run": None if rerun is None else bool(rerun.get("reproduced")),
            "held-out": None if held is None else held.get("seeds"),
            "held-out single": held_out_accuracy(held, label),
            "eligible": shown["eligible"], "network": shown["network"], "isolation": shown["isolation"],
            "decoding": f"n {decoding['n']}, temperature {decoding['temperature']}", "protocol": shown["protocol"]}


def held_out_accuracy(held: dict | None, label: str) -> float | None:
    """The method's closed-book single-function accuracy over the held-out seeds, pooled."""
    rows = [r for r in (held or {}).get("rows") or [] if (r["regime"], r["mode"], r["split"]) ==
            (label, "closed", "single_test")]
    return rows[0]["accuracy"] if rows else None


def rank(entries: list[Entry]) -> list[Entry]:
    """Reproduced entries by base model and single-function accuracy, with their bands (module docstring);
    then the others, unranked."""
    def score(e: Entry) -> tuple:
        return (e.group, e.base_model, *(-(e.cells[s].accuracy if s in e.cells else -1.0) for s in SPLITS),
                e.method, e.source)  # ties by name: the order the bundles were given does not matter

    ranked = [e for e in entries if e.level in RANKED]
    out = [dataclasses.replace(e, band=band(e, ranked)) for e in sorted(ranked, key=score)]
    return out + sorted((e for e in entries if e.level not in RANKED), key=lambda e: (e.level == FAILS, score(e)))


def band(entry: Entry, ranked: list[Entry]) -> int | None:
    """1 + the entries of the same group whose single-function interval lies wholly above this one's."""
    mine = entry.cells.get("single_test")
    if mine is None or mine.ci95 is None:
        return None
    above = [e for e in ranked if (e.group, e.base_model) == (entry.group, entry.base_model) and e.cells.get("single_test")
             and e.cells["single_test"].ci95 and e.cells["single_test"].ci95[0] > mine.ci95[1]]
    return 1 + len(above)

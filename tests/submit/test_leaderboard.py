"""`sebench leaderboard`: a verified bundle's row with its numbers and marks beside the paper's reported rows, rank
bands from overlapping intervals, and the page in a real headless browser (rows, marks, plot, the base-model filter,
no console error)."""

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from sebench.cli import main
from sebench.submit.entry import Cell, Entry
from sebench.submit.leaderboard import REPORTED, rank

LABEL = "ReferenceSFT"


def _entry(name: str, accuracy: float, lo: float, hi: float) -> Entry:
    return Entry(name, "m", "quick", "0", {"single_test": Cell(accuracy, (lo, hi))})


def test_rank_bands_join_overlapping_intervals_and_split_apart_ones():
    ranked = rank([_entry("c", 0.40, 0.30, 0.50), _entry("a", 0.80, 0.70, 0.90), _entry("b", 0.75, 0.65, 0.85),
                   _entry("d", 0.20, 0.10, 0.29), Entry("e", "m", "quick", "0", {})])
    assert [(e.method, e.band) for e in ranked] == [("a", 1), ("b", 1), ("c", 2), ("d", 3), ("e", None)]


@pytest.fixture(scope="module")
def board(submitted, shared_work, tmp_path_factory):
    """The leaderboard of the verified bundle: (its folder, the bundle's run)."""
    run, bundle = submitted
    assert main(["verify", str(bundle), "--work", str(shared_work)]) == 0
    out = tmp_path_factory.mktemp("board")
    assert main(["leaderboard", str(bundle), "--out", str(out)]) == 0
    return out, run


def test_the_leaderboard_rows_hold_the_bundles_numbers_and_marks(board):
    out, run = board
    entries = json.loads((out / "leaderboard.json").read_text())["entries"]
    mine = next(e for e in entries if e["method"] == LABEL)
    report = json.loads((run / "report/report.json").read_text())["main_table"]
    single = next(r for r in report if r["regime"] == LABEL and r["split"] == "single_test" and r["mode"] == "closed")
    assert mine["cells"]["single_test"]["accuracy"] == single["accuracy"]
    assert mine["cells"]["single_test"]["ci95"] == single["ci95"]
    assert mine["cells"]["single_test"]["delta"] == single["vs_untrained"]["delta"]
    assert mine["marks"]["verified"] is True and mine["marks"]["eligible"] is True and mine["band"] == 1
    assert mine["cost"]["tokens_trained"] > 0 and mine["seeds"] == "0"
    reported = [e for e in entries if e["reported"]]
    assert len(reported) == len(REPORTED) and {"Closed-SFT", "Closed-SFT → RL"} <= {e["method"] for e in reported}
    closed_sft = next(e for e in reported if e["method"] == "Closed-SFT")
    assert closed_sft["cells"]["single_test"]["accuracy"] == 0.396 and closed_sft["band"] is None
    md = (out / "leaderboard.md").read_text()
    assert f"| 1 | {LABEL} |" in md and "reported: SE-Bench paper" in md


def test_a_changed_bundle_loses_its_verified_mark(board, submitted, tmp_path):
    bundle = tmp_path / "copy.tar.gz"
    shutil.copy(submitted[1], bundle)
    shutil.copy(f"{submitted[1]}.verify.json", f"{bundle}.verify.json")
    bundle.write_bytes(bundle.read_bytes() + b"\0")  # another file than the one verified
    assert main(["leaderboard", str(bundle), "--out", str(tmp_path / "out")]) == 0
    entries = json.loads((tmp_path / "out/leaderboard.json").read_text())["entries"]
    assert next(e for e in entries if e["method"] == LABEL)["marks"]["verified"] is False


def _browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_the_page_in_a_headless_browser(board, submitted):
    chromium = _browser()
    if chromium is None:
        pytest.skip("no chromium (apt-get install chromium)")
    out, run = board
    base = json.loads((run / "manifest.json").read_text())["model"]
    url = f"{(out / 'index.html').as_uri()}#base={quote(base, safe='')}"
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--enable-logging=stderr", "--v=0", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    dom = done.stdout
    assert done.returncode == 0 and 'data-ready="1"' in dom, done.stderr[-2000:]  # the script ran to its end
    assert not [line for line in done.stderr.splitlines() if "CONSOLE" in line], done.stderr
    rows = [line for line in dom.split("<tr ") if line.startswith('class="entry')]
    assert len(rows) == 1 + len(REPORTED)
    mine = next(r for r in rows if f">{LABEL}<" in r)
    assert 'class="mark">verified<' in mine and "display: none" not in mine
    assert all("display: none" in r for r in rows if 'class="entry reported"' in r)  # filtered to the tiny model
    assert dom.count('<circle class="point"') == 1 and "<svg" in dom


def test_a_verification_record_keeps_the_earlier_results_of_the_same_file(tmp_path):
    from sebench.submit import Verification
    from sebench.submit.verify import write_record

    record = tmp_path / "b.tar.gz.verify.json"
    rerun, held = {"rule": "r", "reproduced": True, "mismatch": None}, {"seeds": 2, "rows": []}
    write_record(Verification("b", "aa", LABEL, True, rerun=rerun), record)
    write_record(Verification("b", "aa", LABEL, True, held_out=held), record)
    kept = json.loads(record.read_text())
    assert kept["rerun"] == rerun and kept["held_out"] == held
    write_record(Verification("b", "bb", LABEL, True), record)  # another file: nothing carried over
    assert json.loads(record.read_text())["rerun"] is None


def test_the_docs_hook_fills_the_leaderboard_page():
    import importlib.util

    hook_file = Path(__file__).resolve().parents[2] / "docs/_hooks/leaderboard.py"
    spec = importlib.util.spec_from_file_location("leaderboard_hook", hook_file)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.on_page_markdown("# Board\n\n<!-- leaderboard -->\n", None, None, None)
    assert "<!-- leaderboard -->" not in page and "| Closed-SFT | Qwen3-8B |" in page and "<svg" in page
    for bundle in sorted(hook.ENTRIES.glob("*.tar.gz")):  # every checked-in entry has its verification
        assert Path(f"{bundle}.verify.json").is_file(), bundle

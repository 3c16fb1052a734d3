"""`sebench leaderboard`: the board verifies every bundle itself (no file beside a bundle is read), ranks only
reproduced entries, each base model apart, with bands that one very uncertain entry does not merge; the rows carry
the recomputed numbers, task counts and the base model from the run's records; the page, in a real headless
browser at 1400 and 390 px, shows a label that carries HTML as text and does not run off the screen."""

import json
import shutil
import subprocess
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

from sebench.cli import main
from sebench.files import file_sha256
from sebench.submit import Verification, read_bundle
from sebench.submit.bundle import pack
from sebench.submit.entry import Cell, Entry
from sebench.submit.leaderboard import REPORTED, leaderboard_rows, rank
from sebench.submit.page import html_page, markdown_table
from sebench.submit.verify import write_record

LABEL = "ReferenceSFT"
HOSTILE = '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=1</script>'


def _entry(name: str, accuracy: float, lo: float, hi: float, base: str = "m", level: str = "reproduced") -> Entry:
    return Entry(name, base, "quick", "0", {"single_test": Cell(accuracy, (lo, hi))}, level=level)


def test_bands_count_the_entries_wholly_above_and_one_uncertain_entry_merges_nothing():
    entries = [_entry("c", 0.40, 0.30, 0.50), _entry("a", 0.80, 0.70, 0.90), _entry("b", 0.75, 0.65, 0.85),
               _entry("d", 0.20, 0.10, 0.29), Entry("e", "m", "quick", "0", {}, level="reproduced")]
    ranked = [(e.method, e.band) for e in rank(entries)]
    assert ranked == [("a", 1), ("b", 1), ("c", 3), ("d", 4), ("e", None)]
    wide = _entry("wide", 1.0, 0.0, 1.0)  # 2/2: first by accuracy, as uncertain as can be
    assert [(e.method, e.band) for e in rank([wide, *entries])][:5] == [
        ("wide", 1), ("a", 1), ("b", 1), ("c", 3), ("d", 4)]


def test_only_reproduced_entries_are_ranked_and_base_models_never_share_a_band():
    entries = [_entry("x", 0.8, 0.7, 0.9, base="m1"), _entry("y", 0.3, 0.2, 0.4, base="m2"),
               _entry("z", 0.9, 0.85, 0.95, base="m1", level="re-judged"),
               _entry("f", 0.99, 0.98, 1.0, base="m1", level="fails")]
    ranked = rank(entries)
    assert [(e.method, e.band) for e in ranked] == [("x", 1), ("y", 1), ("z", None), ("f", None)]


def test_the_board_prints_a_p_below_five_percent_below_it():
    """A p of 0.0496 beside a Δ whose interval excludes 0 reads 0.0496 on the board, never 0.05 (as the report)."""
    near = Entry("near", "m", "quick", "0", {"single_test": Cell(0.3, (0.2, 0.4), delta=0.1, p=0.0496)}, level="reproduced")
    table = markdown_table([near])
    assert "p 0.0496" in table and "p 0.05)" not in table
    assert "p 0.0496" in unescape(html_page([near]))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return tmp_path_factory.mktemp("store")


def _row(entries: list[Entry], source: str) -> Entry:
    return next(e for e in entries if e.source == source)


def test_the_board_verifies_each_bundle_itself_and_ranks_only_reproduced(submitted, store, tmp_path):
    run, bundle = submitted
    rows = leaderboard_rows([bundle], store)
    mine = _row(rows, bundle.name)
    assert mine.level == "re-judged" and mine.band is None  # judged again here; not reproduced: unranked
    assert (store / f"{file_sha256(bundle)}.json").is_file()  # the board's own verification, kept by hash
    report = json.loads((run / "report/report.json").read_text())["main_table"]
    single = next(r for r in report if r["regime"] == LABEL and r["split"] == "single_test" and r["mode"] == "closed")
    assert mine.cells["single_test"].accuracy == single["accuracy"] and mine.cells["single_test"].ci95 == tuple(
        single["ci95"])
    assert mine.tasks["single_test"] == single["tasks"] and mine.base_model == "hf:tiny"
    assert [e.method for e in rows[1:]] == [e.method for e in REPORTED]
    # the maintainers' ledger holds a re-run of these bytes: now it is ranked
    ledger = tmp_path / "ledger"
    rerun = {"rule": "equal per task", "reproduced": True, "mismatch": None, "rows": []}
    write_record(Verification(str(bundle), file_sha256(bundle), LABEL, True, rerun=rerun), ledger)
    mine = _row(leaderboard_rows([bundle], store, ledger), bundle.name)
    assert mine.level == "reproduced" and mine.band == 1


def test_a_copied_sidecar_or_ledger_record_does_not_lift_a_failing_bundle(submitted, store, tmp_path):
    members = dict(read_bundle(submitted[1]).members)
    members.pop("bundle.json")
    rows = json.loads(members["report/rows.json"])
    next(r for r in rows if r["regime"] == LABEL and r["split"] == "single_test").update(accuracy=1.0)
    members["report/rows.json"] = json.dumps(rows).encode()
    forged = tmp_path / "forged.tar.gz"
    pack(members, LABEL, forged)
    honest = json.loads((store / f"{file_sha256(submitted[1])}.json").read_text())
    sidecar = {**honest, "bundle_sha256": file_sha256(forged), "verified": True, "level": "held-out",
               "rerun": {"reproduced": True}, "held_out": {"seeds": 5, "rows": []}}
    Path(f"{forged}.verify.json").write_text(json.dumps(sidecar))
    ledger = tmp_path / "ledger"
    ledger.mkdir()
    (ledger / f"{file_sha256(forged)}.json").write_text(json.dumps(sidecar))
    assert main(["leaderboard", str(forged), "--out", str(tmp_path / "out"), "--store", str(store),
                 "--ledger", str(ledger)]) == 0
    entry = json.loads((tmp_path / "out/leaderboard.json").read_text())["entries"][0]
    assert entry["level"] == "fails" and entry["band"] is None and "report/rows.json" in entry["marks"]["fails"]
    assert "fails verification" in (tmp_path / "out/leaderboard.md").read_text()


def hostile_entries(real: list[Entry]) -> list[Entry]:
    """The board's rows with two ranked entries whose label and base model carry HTML, and many columns."""
    cells = {"single_test": Cell(0.5, (0.3, 0.7), 0.1, 0.2), "multiple_test": Cell(0.25, (0.1, 0.5))}
    cost = {"wall_seconds": 30.0, "judge_calls": 1200, "tokens_sampled": 123456789, "tokens_trained": 987654321}
    marks = {"eligible": True, "network": False, "isolation": "bwrap", "decoding": "n 1, temperature 0.0",
             "protocol": "sebench", "re-run": True}
    return [Entry(HOSTILE, "<b>base</b>", "quick", "0", cells, cost, marks, band=1, source="x.tar.gz",
                  level="reproduced", tasks={"single_test": 13, "multiple_test": 2}),
            Entry(HOSTILE, "<b>base</b>", "quick", "1", cells, {**cost, "wall_seconds": 60.0}, marks, band=1,
                  source="y.tar.gz", level="reproduced", tasks={"single_test": 13}), *real]


def _browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


PROBE = """<script>document.body.dataset.scroll=document.documentElement.scrollWidth;
document.body.dataset.inner=window.innerWidth;</script></body>"""


def _dom(chromium: str, page: Path, width: int, fragment: str = "") -> str:
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           f"--window-size={width},900", "--enable-logging=stderr", "--v=0", "--dump-dom",
                           page.as_uri() + fragment], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and 'data-ready="1"' in done.stdout, done.stderr[-2000:]  # its script ran to its end
    assert not [line for line in done.stderr.splitlines() if "CONSOLE" in line], done.stderr
    return done.stdout


@pytest.mark.parametrize("width", [1400, 390])
def test_the_page_in_a_headless_browser(submitted, store, tmp_path, width):
    chromium = _browser()
    if chromium is None:
        pytest.skip("no chromium (apt-get install chromium)")
    entries = hostile_entries(leaderboard_rows([submitted[1]], store))
    page = tmp_path / "index.html"
    page.write_text(html_page(entries).replace("</body>", PROBE))
    dom = _dom(chromium, page, width)
    assert "data-pwned" not in dom and "<img" not in dom and dom.count("<script>") == 2  # the page's and the probe's
    assert dom.count("&lt;img src=x") >= 4  # the label is shown as text: two rows, two plot labels
    body = dom.split("<body", 1)[1].split(">", 1)[0]
    scroll, inner = (int(body.split(f'data-{k}="')[1].split('"')[0]) for k in ("scroll", "inner"))
    assert scroll <= inner, (scroll, inner)  # the page body does not run off the screen; the table scrolls
    assert '<div class="scroll"><table' in dom and 'name="viewport"' in dom
    points = [p for p in dom.split('<g class="point"')[1:]]
    assert len(points) == 3 and len({p.split('fill="')[1][:7] for p in points}) == 3  # one colour each
    assert len({p.split("<title>")[1].split("</title>")[0] for p in points}) == 3  # labelled by entry


def test_the_base_model_filter_applies_to_the_table_and_the_plot(submitted, store, tmp_path):
    chromium = _browser()
    if chromium is None:
        pytest.skip("no chromium (apt-get install chromium)")
    page = tmp_path / "index.html"
    page.write_text(html_page(hostile_entries(leaderboard_rows([submitted[1]], store))))
    dom = _dom(chromium, page, 1400, f"#base={quote('hf:tiny', safe='')}")
    rows = [line for line in dom.split("<tr ")[1:] if line.startswith('class="entry')]
    assert len(rows) == 3 + len(REPORTED)
    assert [r for r in rows if "hf:tiny" in r and "display: none" not in r]
    assert all("display: none" in r for r in rows if "hf:tiny" not in r)
    points = dom.split('<g class="point"')[1:]
    shown = [p for p in points if "display: none" not in p.split(">")[0]]
    assert len(points) == 3 and len(shown) == 1 and 'data-base="hf:tiny"' in shown[0]


def test_the_markdown_table_renders_a_label_as_text_through_the_sites_markdown(submitted, store):
    markdown = pytest.importorskip("markdown")
    md = markdown_table(hostile_entries([]))
    html = markdown.markdown(md, extensions=["tables", "attr_list", "admonition", "pymdownx.superfences",
                                             "pymdownx.snippets"])
    assert "<img" not in html and "<script" not in html and "<b>" not in html
    assert HOSTILE in unescape(html) and html.count("<tr>") == 3  # shown as text; no cell split by a pipe


@pytest.mark.slow  # 40-90 s: both checked-in entries judged again from a fresh cache
@pytest.mark.timeout(1200)
def test_the_docs_hook_fills_the_page_and_the_checked_in_entries_verify(tmp_path):
    import importlib.util

    from sebench.submit.verify import verify_bundle

    hook_file = Path(__file__).resolve().parents[2] / "docs/_hooks/leaderboard.py"
    spec = importlib.util.spec_from_file_location("leaderboard_hook", hook_file)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    bundles = sorted(hook.ENTRIES.glob("*.tar.gz"))
    assert bundles and not list(hook.ENTRIES.glob("*.json"))  # no sidecar is kept beside the entries
    for bundle in bundles:
        result = verify_bundle(bundle, work=tmp_path)
        assert result.verified, (bundle.name, result.mismatch)
    page = hook.on_page_markdown("# Board\n\n<!-- leaderboard -->\n", None, None, None)
    assert "<!-- leaderboard -->" not in page and "Closed&#45;SFT" in page and "<svg" in page
    assert page.count("| reproduced |") == len(bundles)  # each re-judged here and re-run in the ledger

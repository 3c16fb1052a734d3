"""Every page of the documentation site reads on a wide screen (1400 px) and on a phone (390 px).

The site is built with `mkdocs build --strict`, served on localhost and opened in one headless Chromium,
page after page, at both widths. On each page: nothing makes the page wider than the window; every table
and code block fits its frame or scrolls inside a frame that fits; at 1400 px each row of a wide results
table (the leaderboard's, the reports') is at most two lines tall; and no code block's copy button covers
its text. Only the site's own server is reached: web fonts from elsewhere are blocked, so the layout
measured is the same with or without a network. Skipped where no Chromium is installed (CI installs it).
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from headless_browser import Browser, chromium

ROOT = Path(__file__).resolve().parents[1]
WIDE, PHONE = 1400, 390
# a row of a wide results table at 1400 px: at most two lines of table text (0.64rem at 20 px, line height
# 1.6) and the cell's padding; a wide table is one of at least WIDE_TABLE columns (the leaderboard has 14)
ROW_HEIGHT, WIDE_TABLE = 60, 6
# the pages whose tables are results: numbers beside numbers, read across a row
RESULTS_PAGES = ("leaderboard/", "results/", "records/")

# what the page measures of itself; frames are the main column (.md-content) and the window
MEASURE = r"""
(() => {
  const found = [];
  const root = document.documentElement;
  const window_ = root.clientWidth;
  const wider = Math.max(root.scrollWidth, document.body.scrollWidth) - window_;
  if (wider > 1) found.push(`the page is ${wider} px wider than the window`);
  const column = document.querySelector(".md-content").getBoundingClientRect();
  const left = Math.max(column.left, 0), right = Math.min(column.right, window_);
  const label = el => `${el.tagName.toLowerCase()} "${el.textContent.replace(/\s+/g, " ").trim().slice(0, 50)}"`;
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const inFrame = r => r.left >= left - 1 && r.right <= right + 1;
  for (const el of document.querySelectorAll(".md-content table, .md-content pre")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;  // not shown (a closed <details>)
    // what may scroll: the element, its code, or an ancestor inside the column
    let scroller = null;
    for (const e of [el.querySelector(":scope > code"), el]) if (e && scrolls(e)) scroller = scroller || e;
    for (let e = el.parentElement; !scroller && e && e.closest(".md-content"); e = e.parentElement)
      if (scrolls(e)) scroller = e;
    const clipped = [el, el.querySelector(":scope > code")].some(e => e && e.scrollWidth > e.clientWidth + 1);
    if (!scroller) {
      if (!inFrame(box) || clipped) found.push(`${label(el)} is cut off: it neither fits nor scrolls`);
    } else if (!inFrame(scroller.getBoundingClientRect())) {
      found.push(`${label(el)} scrolls in a frame wider than the column`);
    }
  }
  const rows = [];
  for (const table of document.querySelectorAll(".md-content table")) {
    const columns = Math.max(...[...table.rows].map(tr => tr.cells.length));
    for (const tr of table.rows) {
      const h = tr.getBoundingClientRect().height;
      if (h > 0) rows.push([h, columns, label(tr)]);
    }
  }
  // the copy button against each word of its code block's text, where that text is visible
  const words = node => [...node.textContent.matchAll(/\S+/g)].map(m => {
    const range = document.createRange();
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    return range;
  });
  for (const pre of document.querySelectorAll(".md-content pre")) {
    const button = pre.querySelector(".md-code__button, .md-clipboard");
    const code = pre.querySelector(":scope > code");
    if (!button || !code || button.getBoundingClientRect().width === 0) continue;
    const b = button.getBoundingClientRect(), view = code.getBoundingClientRect();
    const texts = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let covered = false;
    while (!covered && texts.nextNode()) {
      for (const range of words(texts.currentNode)) {
        for (const r of range.getClientRects()) {
          const x0 = Math.max(r.left, b.left, view.left), x1 = Math.min(r.right, b.right, view.right);
          const y0 = Math.max(r.top, b.top, view.top), y1 = Math.min(r.bottom, b.bottom, view.bottom);
          if (x1 - x0 > 1 && y1 - y0 > 1) covered = true;
        }
      }
    }
    if (covered) found.push(`the copy button covers the text of ${label(pre)}`);
  }
  return {found, rows};
})()
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served_site(tmp_path_factory) -> Iterator[tuple[str, list[str]]]:
    """The site built into a temporary folder, served on localhost: (its address, its pages)."""
    pytest.importorskip("mkdocstrings_handlers.python")
    if chromium() is None:
        pytest.skip("no chromium (apt-get install chromium)")
    site = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
                           cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                           check=False)
    assert build.returncode == 0, build.stdout + build.stderr
    pages = sorted(page.parent.relative_to(site).as_posix() + "/" for page in site.rglob("index.html"))
    pages = [page.removeprefix("./") for page in pages]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", pages
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium()
    if executable is None:
        pytest.skip("no chromium (apt-get install chromium)")
    with Browser(executable) as opened:
        yield opened


def _problems(browser: Browser, address: str, pages: list[str], width: int) -> list[str]:
    problems = []
    for page in pages:
        browser.open(address + page, width)
        measured = browser.evaluate(MEASURE)
        problems += [f"/{page} at {width} px: {found}" for found in measured["found"]]
        if width == WIDE and page.startswith(RESULTS_PAGES):
            problems += [f"/{page} at {width} px: {row} is {height:.0f} px tall"
                         for height, columns, row in measured["rows"] if columns >= WIDE_TABLE and height > ROW_HEIGHT]
    return problems


def test_the_site_has_the_pages_the_check_needs(served_site):
    _address, pages = served_site
    assert len(pages) > 40
    assert {"", "leaderboard/", "results/", "results/inject-report/", "install/", "api/"} <= set(pages)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("width", [WIDE, PHONE])
def test_every_page_reads_at_this_width(served_site, browser, width):
    address, pages = served_site
    problems = _problems(browser, address, pages, width)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_the_hook_marks_cells_by_the_length_of_their_text():
    """docs/_hooks/table_cells.py: a number or a name is short, a note long, a sentence longer; markup is not
    text; a cell with a class of its own keeps it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("table_cells", ROOT / "docs/_hooks/table_cells.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.on_page_content(
        '<table><thead><tr><th>single Δ (p)</th></tr></thead><tbody><tr><td align="right">+64.7 '
        '<code>[38.9, 84.1]</code> (p 0.00098)</td><td>verified; re-run reproduced; eligible; no network</td>'
        f'<td>{"a sentence that goes on " * 5}</td><td class="own">x</td></tr></tbody></table>', None, None, None)
    assert '<th class="cell-short">single Δ (p)</th>' in page and "<thead>" in page
    assert '<td align="right" class="cell-short">+64.7 <code>' in page
    assert '<td class="cell-long">verified' in page
    assert '<td class="cell-longer">a sentence' in page
    assert '<td class="own">x</td>' in page

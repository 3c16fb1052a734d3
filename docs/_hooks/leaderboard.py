"""mkdocs hook: expands `<!-- leaderboard -->` in leaderboard.md into the leaderboard of the bundles checked in
under docs/leaderboard/entries/, beside the paper's reported rows: the same table and plot as `sebench
leaderboard`, made when the site is built. Every bundle is verified then (the result cached by its sha256 in
sebench's cache folder); re-runs come from the maintainers' ledger, docs/leaderboard/verified/."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = ROOT / "docs" / "leaderboard" / "entries"
LEDGER = ROOT / "docs" / "leaderboard" / "verified"
MARKER = "<!-- leaderboard -->"


def board() -> str:
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    from sebench.submit.leaderboard import board_markdown

    return board_markdown(sorted(ENTRIES.glob("*.tar.gz")), ledger=LEDGER)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, board())

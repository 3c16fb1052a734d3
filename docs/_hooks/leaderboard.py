"""mkdocs hook: expands `<!-- leaderboard -->` in leaderboard.md into the leaderboard of the bundles checked in
under docs/leaderboard/entries/ (each with its BUNDLE.verify.json), beside the paper's reported rows: the same
table and plot as `sebench leaderboard`, made when the site is built."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = ROOT / "docs" / "leaderboard" / "entries"
MARKER = "<!-- leaderboard -->"


def board() -> str:
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    from sebench.submit.leaderboard import board_markdown

    return board_markdown(sorted(ENTRIES.glob("*.tar.gz")))


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, board())

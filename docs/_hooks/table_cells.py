"""mkdocs hook: marks each table cell of a page short, long or longer, so that docs/stylesheets/extra.css keeps
a short cell (a number, an interval, a name) on one line and lets a longer one (a note, a sentence) wrap,
in a wide table in a column wide enough for two or three lines. A table wider than its frame then scrolls
sideways with short rows, instead of squeezing every column until its cells wrap word by word."""

from __future__ import annotations

import html
import re

# a cell of at most SHORT characters stays on one line: "+64.7 [38.9, 84.1] (p 0.001)" fits; in a wide table
# on a wide screen, one of at most LONG gets a column for two lines of it, a longer one a wider column
SHORT, LONG = 32, 90
CELL = re.compile(r"<(td|th)((?:\s[^>]*)?)>(.*?)</\1>", re.S)


def cell_class(content: str) -> str:
    """`cell-short`, `cell-long` or `cell-longer`, by the length of the cell's visible text."""
    length = len(" ".join(html.unescape(re.sub(r"<[^>]+>", "", content)).split()))
    return "cell-short" if length <= SHORT else "cell-long" if length <= LONG else "cell-longer"


def _mark(match: re.Match[str]) -> str:
    tag, attributes, content = match.groups()
    if "class=" in attributes:  # a cell that already has a class is styled by whoever gave it
        return match.group(0)
    return f'<{tag}{attributes} class="{cell_class(content)}">{content}</{tag}>'


def on_page_content(content: str, page, config, files) -> str:
    return CELL.sub(_mark, content)

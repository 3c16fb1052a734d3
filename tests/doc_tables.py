"""The documentation's markdown tables as tests read them (the tables that document code are checked against it).

The tables live in the docs pages that explain them: the gpu preset's recipe and the original's training in
docs/gpu.md, the regimes and presets in docs/training.md, each preset's time in docs/presets.md.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GPU_PAGE = ROOT / "docs" / "gpu.md"
TRAINING_PAGE = ROOT / "docs" / "training.md"
PRESETS_PAGE = ROOT / "docs" / "presets.md"
README = ROOT / "README.md"


def doc_table(page: Path, first_header: str) -> list[list[str]]:
    """The rows (cells, stripped) of the table in `page` whose header starts with `| first_header |`."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows

"""Every relative link of the README (which the documentation site does not build, so mkdocs --strict does not
check it) leads to a file of the repository, and an anchor to a heading of the page it names, as GitHub makes
a heading's anchor."""

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings: lower case, punctuation but hyphens dropped, spaces as
    hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", link)]


def test_every_relative_link_of_the_readme_resolves():
    links = relative_links(README)
    assert len(links) > 20 and any(link.startswith("#") for link in links)
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        target = (README.parent / unquote(path)).resolve() if path else README
        if not target.exists() or ROOT not in (target, *target.parents):
            broken.append(f"{link}: no such file in the repository")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: {target.name} has no heading #{anchor}")
    assert not broken, "\n".join(broken)

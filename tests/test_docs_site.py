"""The documentation site as a user sees it: built with `mkdocs build --strict` (about 5 s), then read back.

The API page must give every name a stage exports (its `__all__`) a heading with the name, and each class
and function its signature and docstring, with members only under their class; the header must link the
repository CITATION.cff names; wide tables scroll in their frame; record pages stay out of the navigation,
and the pages left in it speak to users, not of how sebench was made.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
HEADING = re.compile(r'<h([1-6])[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', re.S)


def _hook():
    spec = importlib.util.spec_from_file_location("api_reference", ROOT / "docs" / "_hooks" / "api_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _bare(text: str) -> str:
    return re.sub(r"[\s`*_\[\]]", "", text)


class _Loader(yaml.SafeLoader):
    pass


# mkdocs.yml names a Python function with a `!!python/name:` tag, which the safe loader refuses
_Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix)


def mkdocs_config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def test_the_reference_lists_each_stage_s_whole_front_door():
    """The hook reads each stage's exports with ast; they are exactly the stage's `__all__`, for every stage."""
    hook = _hook()
    listed: dict[str, set[str]] = {}
    for stage, _module, name in hook.exported():
        listed.setdefault(stage, set()).add(name)
    packages = sorted(p.name for p in (ROOT / "src" / "sebench").iterdir() if (p / "__init__.py").is_file())
    exports = {stage: set(getattr(importlib.import_module(f"sebench.{stage}"), "__all__", ())) for stage in packages}
    assert listed == {stage: names for stage, names in exports.items() if names}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocstrings_handlers.python")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
                         cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_every_exported_name_has_its_heading_signature_and_docstring(site):
    griffe = pytest.importorskip("griffe")
    package = griffe.load("sebench", search_paths=[str(ROOT / "src")])
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    headings = [(m.start(), int(m.group(1)), m.group(2), _text(m.group(3)).rstrip("¶ ")) for m in HEADING.finditer(page)]
    hook = _hook()
    exported = hook.exported()
    assert len(exported) > 100
    by_id = {ident: (i, level, text) for i, (_, level, ident, text) in enumerate(headings)}
    problems = []
    for stage, module, name in exported:
        ident = hook.identifier(stage, module, name)
        if ident not in by_id:
            problems.append(f"{ident}: no heading")
            continue
        i, level, text = by_id[ident]
        if (level, text) != (3, name):
            problems.append(f"{ident}: heading h{level} '{text}'")
        # the stage's section is the h2 above it
        stage_heading = next(h for h in reversed(headings[:i]) if h[1] == 2)
        if stage_heading[3] != f"sebench.{stage}":
            problems.append(f"{ident}: under '{stage_heading[3]}'")
        obj = package[f"{stage}.{module}.{name}"]
        obj = obj.final_target if obj.is_alias else obj
        if obj.kind.value not in ("class", "function"):
            continue
        end = next((h[0] for h in headings[i + 1:] if h[1] <= 3), len(page))
        section = page[headings[i][0]:end]
        # a class's signature is its __init__'s (merged in); one without an __init__ of its own has none
        callable_ = obj.kind.value == "function" or "__init__" in obj.all_members
        if callable_ and f'<span class="nf">{name}</span><span class="p">(' not in section:
            problems.append(f"{ident}: no signature")
        # its first words, as markdown renders them (markup and spacing aside)
        first_words = _bare(" ".join((obj.docstring.value if obj.docstring else "").split()[:4]))
        contents = section.split('class="doc doc-contents', 1)[-1]
        if not first_words or first_words not in _bare(html.unescape(re.sub(r"<[^>]+>", "", contents))):
            problems.append(f"{ident}: no docstring")
    assert not problems, "\n".join(problems)


def test_members_are_headed_only_under_their_own_name(site):
    """No orphan headings: each heading under a stage is an exported name (h3) or a member of the h3 above it."""
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    page = page[:page.index('id="records-and-shared-modules"')]
    hook = _hook()
    exported = {hook.identifier(*entry) for entry in hook.exported()}
    owner = None
    orphans = []
    for m in HEADING.finditer(page):
        level, ident = int(m.group(1)), m.group(2)
        if level == 3:
            owner = ident
            if ident not in exported:
                orphans.append(ident)
        elif level > 3 and not (owner and ident.startswith(owner + ".")):
            orphans.append(ident)
    assert not orphans, orphans


def test_wide_tables_scroll_inside_their_frame(site):
    config = mkdocs_config()
    assert config.get("extra_css"), "mkdocs.yml names no extra_css"
    css = "".join((ROOT / "docs" / path).read_text(encoding="utf-8") for path in config["extra_css"])
    rule = re.search(r"\.md-typeset__table\s*\{[^}]*overflow-x:\s*auto", css)
    assert rule, "no rule makes the table wrappers scroll"
    # the built pages load it, the report's widest table among them
    report = (site / "results" / "inject-report" / "index.html").read_text(encoding="utf-8")
    for path in config["extra_css"]:
        assert (site / path).is_file() and f'href="../../{path}"' in report, path
    widest = max(len(re.findall(r"<th\b", head)) for head in re.findall(r"<thead>(.*?)</thead>", report, re.S))
    assert widest >= 14


def test_the_header_links_the_repository_that_citation_cff_names():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # sebench's own repository when CITATION.cff gives one; else the repository of the work it implements
    expected = citation.get("repository-code") or next(ref["repository-code"] for ref in citation["references"]
                                                       if "repository-code" in ref)
    config = mkdocs_config()
    assert config["repo_url"] == expected
    if "repository-code" not in citation:
        assert "sebench" not in config["repo_name"], "the header would call the original's repository sebench's"


def _nav_pages(nav) -> list[tuple[list[str], str]]:
    pages = []
    for entry in nav:
        if isinstance(entry, str):
            pages.append(([], entry))
            continue
        for title, value in entry.items():
            if isinstance(value, str):
                pages.append(([title], value))
            else:
                pages.extend(([title, *path], page) for path, page in _nav_pages(value))
    return pages


def _is_record(docs: Path, page: Path) -> bool:
    """A report of one run (results/*-report.md), a page under records/, or a page that opens by calling itself a record."""
    relative = page.relative_to(docs).as_posix()
    head = "\n".join(page.read_text(encoding="utf-8").splitlines()[:12])  # past a note on its intervals
    return (relative.startswith("records/") or re.fullmatch(r"results/[^/]+-report\.md", relative) is not None
            or re.search(r"\brecord\b", head, re.I) is not None)


def test_records_are_kept_in_the_archive_only():
    """The navigation keeps every record page in its Archive section, and the archive holds records only."""
    docs = ROOT / "docs"
    records = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md") if _is_record(docs, p))
    assert "results/cpu-report.md" in records and "records/off-policy-rule/findings.md" in records
    placed = {page: path for path, page in _nav_pages(mkdocs_config()["nav"])}
    for record in records:
        assert record in placed, f"{record} is not in the nav"
        assert placed[record][0] == "Archive", f"{record} is under {placed[record]}"
    archived = {page for page, path in placed.items() if path[0] == "Archive"}
    assert archived - set(records) == {"archive/index.md", "archive/performance.md"}


# how a page speaks of sebench's own development rather than to its user: a commit named as the code of a
# run, the machine the measurements were made on, tries that were abandoned, settings "of the day"
HISTORY = re.compile(r"\b(?:code\s+of|commit|sebench\s+at|at)\s+(?=[a-f]*\d)[0-9a-f]{7,40}\b|\b(?=[a-f]*\d)[0-9a-f]{7}\b(?= \|)"
                     r"|measuring machine|project's (?:\d-core )?(?:CPU )?machine|\bfirst try\b|of the day\b", re.I)


def test_user_pages_speak_to_users():
    """The pages of the navigation outside the Archive and the changelog, and the README, tell no history."""
    docs = ROOT / "docs"
    pages = [docs / page for path, page in _nav_pages(mkdocs_config()["nav"]) if path[0] not in ("Archive", "Changelog")]
    found = [f"{page.relative_to(ROOT)}: {m.group(0)!r}" for page in [ROOT / "README.md", *pages]
             for m in HISTORY.finditer(page.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)
    assert HISTORY.search("(code of 4253208, 37 min)") and HISTORY.search("| 2026-11-26 | 2b1acc6 | idle |")

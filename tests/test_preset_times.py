"""Every time the documentation states for a preset is the one in docs/presets.md's table, and every preset of
`sebench run` appears in each table of presets (README, docs/training.md, docs/presets.md).

A stated time is an estimate ("about 6 min", "2-3 h a seed") in a sentence, table row or code comment that
names a preset (`quick`, "the lifelong preset", `--preset cpu`; `make demo` runs quick), or that stands under
a heading naming one. Measurements ("5 min 36 s", "3.1 h of stage time", "15-25 min") are not estimates and
are left alone, as are the changelog and the archive's records.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doc_tables import PRESETS_PAGE, README, ROOT, TRAINING_PAGE, doc_table

from sebench.experiment.config import PRESETS

DOCS = ROOT / "docs"
NUMBER = r"\d+(?:\.\d+)?"
# an estimate: "about 6 min", "about 1-1.3 h a seed", "2-3 h a seed", "~12 minutes" (a measured part of a
# run, "warm-up 4.6-5.4 min a seed", is none)
ESTIMATE = re.compile(rf"(?:(?:about|around|roughly|~)\s*({NUMBER}(?:\s*-\s*{NUMBER})?)\s*(min|minutes?|h|hours?)\b"
                      rf"|\b({NUMBER}(?:\s*-\s*{NUMBER})?)\s*(h|hours?) (?:a|per|each) seed\b)")


def _times(text: str) -> list[tuple[str, str]]:
    """(the number or range, the unit) of each estimate in `text`, spaces and spellings aside."""
    return [((match.group(1) or match.group(3)).replace(" ", ""), (match.group(2) or match.group(4))[0])
            for match in ESTIMATE.finditer(text)]


def source() -> dict[str, str]:
    """docs/presets.md's table: preset -> the time it states."""
    return {row[0].strip("`"): row[2] for row in doc_table(PRESETS_PAGE, "preset")}


def _names(text: str) -> set[str]:
    found = {name for name in PRESETS if re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", text)}
    if "make demo" in text:
        found.add("quick")
    return found


def _units(text: str) -> list[str]:
    """Sentences of prose, and each table row and each line of code on its own."""
    units, paragraph, fenced = [], [], False

    def flush():
        if paragraph:
            units.extend(re.split(r"(?<=[.;])\s+(?=[A-Z(`])", " ".join(paragraph)))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            fenced = not fenced
        elif fenced or stripped.startswith("|") or stripped.startswith("#"):
            flush()
            units.append(stripped)
        elif not stripped or re.match(r"[-*] |\d+\. ", stripped):
            flush()
            if stripped:
                paragraph.append(stripped)
        else:
            paragraph.append(stripped)
    flush()
    return units


def user_pages() -> list[Path]:
    """README and the docs pages, less the changelog and the archive (records as they were written)."""
    archived = {"changelog.md"}
    pages = [README]
    for page in sorted(DOCS.rglob("*.md")):
        relative = page.relative_to(DOCS).as_posix()
        if relative in archived or relative.startswith(("archive/", "records/", "_")) \
                or re.fullmatch(r"results/[^/]+-report\.md", relative) or relative == "results/regimes-cpu-run.md":
            continue
        pages.append(page)
    return pages


def stated_times(pages: list[Path] | None = None) -> list[tuple[str, str, set[str], tuple[str, str]]]:
    """(page, the sentence, the presets it names, its estimate) for every estimate next to a preset's name."""
    found = []
    for page in user_pages() if pages is None else pages:
        name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)
        section: set[str] = set()  # the presets the heading above names ("## quick: ...")
        for unit in _units(page.read_text(encoding="utf-8")):
            if unit.startswith("#"):
                section = _names(unit)
                continue
            names = _names(unit) or section
            found.extend((name, unit, names, time) for time in _times(unit) if names)
    return found


def test_the_source_table_times_every_preset():
    times = source()
    assert set(times) == set(PRESETS), "docs/presets.md's table and config.PRESETS disagree"
    for preset, time in times.items():
        assert len(_times(time)) == 1 or "--plan" in time, f"{preset}: '{time}' is no estimate"


def test_every_stated_time_is_the_table_s():
    times = {preset: (_times(time) or [None])[0] for preset, time in source().items()}
    stated = stated_times()
    # the places users read first state times: they must be found
    pages = {page for page, *_ in stated}
    assert {"README.md", "docs/index.md", "docs/training.md", "docs/presets.md"} <= pages, pages
    wrong = [f"{page}: {unit!r} ({'/'.join(sorted(names))}: {source()[sorted(names)[0]]})"
             for page, unit, names, time in stated if time not in {times[name] for name in names}]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("page, first_header", [(README, "preset"), (TRAINING_PAGE, "preset"),
                                                (PRESETS_PAGE, "preset")])
def test_every_preset_is_in_each_table_of_presets(page, first_header):
    rows = [row[0].strip("`") for row in doc_table(page, first_header)]
    assert sorted(rows) == sorted(PRESETS), page.name


def test_the_readme_table_states_the_source_s_times():
    times = source()
    for row in doc_table(README, "preset"):
        preset = row[0].strip("`")
        assert times[preset] in row[-1], f"README's {preset}: '{row[-1]}', presets.md: '{times[preset]}'"


def test_sebench_run_s_help_states_the_table_s_times():
    """`sebench run --help` names every preset, each with the table's time: "quick (...: about 6 min)"."""
    from sebench.cli import build_parser

    subcommands = next(action for action in build_parser()._actions if action.choices and "run" in action.choices)
    description = " ".join(subcommands.choices["run"].description.split())
    for preset, time in source().items():
        said = re.search(rf"(?<![\w-]){re.escape(preset)} \(((?:[^()]|\([^()]*\))*)\)", description)
        assert said, f"sebench run --help does not describe {preset}"
        assert _times(said.group(1))[:1] == _times(time)[:1] and ("--plan" in time) == ("--plan" in said.group(1)), \
            f"sebench run --help: {preset} ({said.group(1)}); docs/presets.md: {time}"


def test_a_wrong_time_is_found(tmp_path):
    """The check reads prose across lines, table rows and code comments."""
    page = tmp_path / "page.md"
    page.write_text("`make demo` trains the embedded model\n(about 12 minutes on 2 CPU cores).\n\n"
                    "| `lifelong` | libraries | CPU, about 3 h a seed |\n\n"
                    "```bash\nsebench run --preset inject   # about 2 h a seed\n```\n"
                    "The quick preset's parts: SFT takes 261 s.\n", encoding="utf-8")
    found = {(tuple(sorted(names)), time) for _, _, names, time in stated_times([page])}
    assert found == {(("quick",), ("12", "m")), (("lifelong",), ("3", "h")), (("inject",), ("2", "h"))}

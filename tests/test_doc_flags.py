"""Every `sebench` command the user docs show is one the command line takes: each command of a ```bash block
of the README and of docs/*.md parses with `sebench`'s own parser (its subcommand, its flags, their values
and its required arguments), and every flag an inline `sebench ...` span names, on any page, is one of that
subcommand's. The pages whose commands CI also runs are test_readme_commands.py's, test_doc_commands.py's
and test_gpu_doc_commands.py's; this covers every page, in a second."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from test_readme_commands import ROOT, doc_commands

from sebench.cli import build_parser

USER_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ALL_PAGES = [*USER_PAGES, *sorted((ROOT / "docs").glob("*/**/*.md"))]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _block_commands() -> list[tuple[str, str]]:
    return [(_name(page), part.strip()) for page in USER_PAGES for command in doc_commands(page)
            for part in command.split("&&") if part.strip().startswith("sebench ")]


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser()


def test_the_pages_show_commands():
    pages = {page for page, _ in _block_commands()}
    assert {"README.md", "docs/training.md", "docs/leaderboard.md", "docs/warmup.md"} <= pages, pages


@pytest.mark.parametrize(("page", "command"), _block_commands())
def test_a_block_command_parses(parser, page, command):
    error = io.StringIO()
    with contextlib.redirect_stderr(error), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit as exc:
            assert not exc.code, f"{page}: {command}\n{error.getvalue().strip()}"


def _subcommand(parser: argparse.ArgumentParser, words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The (sub)command parser the leading words name, and the words after them."""
    while words:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is None or words[0] not in sub.choices:
            break
        parser, words = sub.choices[words[0]], words[1:]
    return parser, words


def _spans() -> list[tuple[str, str]]:
    spans = []
    for page in ALL_PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        spans += [(_name(page), re.sub(r"\s+", " ", m)) for m in re.findall(r"`(sebench [^`]+)`", text)]
    return spans


def test_every_flag_an_inline_command_names_is_its_subcommands(parser):
    spans = _spans()
    assert len(spans) > 100
    wrong = []
    for page, span in spans:
        sub, words = _subcommand(parser, span.split()[1:])
        flags = {w.split("=", 1)[0] for w in words if w.startswith("--")}
        wrong += [f"{page}: `{span}`: {sub.prog} has no {flag}" for flag in sorted(flags - set(sub._option_string_actions))]
    assert not wrong, "\n".join(wrong)

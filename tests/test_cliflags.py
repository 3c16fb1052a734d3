"""A flag's help states its default, a list's as the flag takes it (comma-separated), and the flag parses
to that default when it is not given."""

import argparse
from dataclasses import dataclass

from sebench.cliflags import add_config_flags, option


@dataclass
class Settings:
    skills: list = option(factory=lambda: ["docs", "tasks"], help="what it teaches, comma-separated")
    extra: list = option(factory=list, help="more, comma-separated")
    steps: int = option(8, "optimizer steps")
    seed: int = option(0, "the seed")
    fast: bool = option(False, "go fast")
    note: str | None = option(None, "a note")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="x")
    add_config_flags(parser, Settings)
    return parser


def _help_of(flag: str) -> str:
    action = next(a for a in _parser()._actions if flag in a.option_strings)
    return action.help or ""


def test_a_list_default_is_said_as_the_flag_takes_it_and_an_empty_one_not_at_all():
    assert _help_of("--skills").endswith("(default: docs,tasks)")
    assert _help_of("--steps").endswith("(default: 8)")
    assert "default" not in _help_of("--extra") and "default" not in _help_of("--note")
    assert _help_of("--seed").endswith("(default: 0)") and "default" not in _help_of("--fast")  # 0 is not False


def test_the_default_said_is_the_one_parsed_and_the_flag_takes_it_back():
    parsed = _parser().parse_args([])
    assert parsed.skills == ["docs", "tasks"] and parsed.extra == [] and parsed.steps == 8
    said = _help_of("--skills").rsplit("(default: ", 1)[1].rstrip(")")
    assert _parser().parse_args(["--skills", said]).skills == parsed.skills

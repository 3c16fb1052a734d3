"""Command-line flags generated from a stage's config dataclass, so that flags and config never drift.

Each field becomes `--field-name` with the field's `help` metadata; metadata keys `required` (also
implied by a field without a default), `choices` and `multiple` (repeatable flag) shape the argument;
bools are on/off switches and list fields take comma-separated values. Metadata
`minimum`/`maximum` (inclusive) and `above` (exclusive) bound a number: the flag refuses a value out of
range, and `check_ranges` applies the same bounds to a config made in code.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from pathlib import Path
from typing import Any, Callable, Iterable

from sebench.errors import SebenchError


def add_config_flags(parser: argparse.ArgumentParser, config_cls: type,
                     fields: Iterable[dataclasses.Field]) -> None:
    """Adds one flag per field of `config_cls` (only the given `fields`)."""
    hints = typing.get_type_hints(config_cls)
    for f in fields:
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        required = f.metadata.get("required") or (f.default is dataclasses.MISSING
                                                  and f.default_factory is dataclasses.MISSING)
        shown = not required and f.default is not dataclasses.MISSING and f.default not in (None, False)
        options = {"help": f.metadata["help"] + (f" (default: {f.default})" if shown else ""), "dest": f.name}
        if kind is bool:
            parser.add_argument(flag, action="store_true", **options)
            continue
        if f.metadata.get("multiple"):
            parser.add_argument(flag, action="append", metavar=f.metadata.get("metavar", "VALUE"), **options)
            continue
        optional = type(None) in typing.get_args(kind)  # X | None: the flag's type is X's
        base = next(t for t in typing.get_args(kind) if t is not type(None)) if optional else kind
        listed = typing.get_origin(base) is list
        if listed:  # a comma-separated list (each item one of the choices, if any)
            options["type"] = _comma_list(f.metadata.get("choices"))
        else:
            options["type"] = _ranged(base, f.metadata) if base in (int, float) else Path if base is Path else base
        if required:
            options["required"] = True
        else:
            options["default"] = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if "choices" in f.metadata and not listed:
            options["choices"] = f.metadata["choices"]
        parser.add_argument(flag, **options)


def _comma_list(choices: tuple | None = None) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        items = [part.strip() for part in text.split(",") if part.strip()]
        wrong = [item for item in items if choices and item not in choices]
        if wrong:
            raise argparse.ArgumentTypeError(f"{', '.join(wrong)}: choose from {', '.join(choices)}")
        return items

    parse.__name__ = "comma-separated list"
    return parse


def range_problem(value: Any, metadata: dict) -> str | None:
    """Why `value` is out of the field's bounds (see the module docstring), or None."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value != value:
        return "must be a number (got nan)"
    if "minimum" in metadata and value < metadata["minimum"]:
        return f"must be at least {metadata['minimum']} (got {value})"
    if "above" in metadata and value <= metadata["above"]:
        return f"must be more than {metadata['above']} (got {value})"
    if "maximum" in metadata and value > metadata["maximum"]:
        return f"must be at most {metadata['maximum']} (got {value})"
    return None


def _ranged(base: type, metadata: dict) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = base(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'an integer' if base is int else 'a number'}, got '{text}'")
        problem = range_problem(value, metadata)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = base.__name__
    return parse


def at_least_one(text: str) -> int:
    """A count from a flag: an integer, 1 or more."""
    return _ranged(int, {"minimum": 1})(text)


def port_number(text: str) -> int:
    """A TCP port from a flag: 0 (any free port) to 65535."""
    return _ranged(int, {"minimum": 0, "maximum": 65535})(text)


def check_ranges(config: Any) -> None:
    """Refuses a config (a dataclass built from these flags, or in code) with a value out of its bounds."""
    for f in dataclasses.fields(config):
        problem = range_problem(getattr(config, f.name), f.metadata)
        if problem:
            raise SebenchError(f"--{f.name.replace('_', '-')} {problem}")

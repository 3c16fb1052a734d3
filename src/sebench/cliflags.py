"""A stage's settings, each declared once as a field of its config dataclass, and the flags made from them.

A field is declared with `option(default, help, **metadata)`; it becomes `--field-name` with that help.
Metadata keys `required` (also implied by a field without a default), `choices`, `multiple` (repeatable
flag), `metavar` and `nargs` shape the argument; bools are on/off switches and list fields take
comma-separated values; `cli=False` keeps a field off the command line. `minimum`/`maximum` (inclusive)
and `above` (exclusive) bound a number: the flag refuses a value out of range, and `check_ranges` applies
the same bounds to a config made in code. `speed=True` marks a setting that changes how fast a stage runs
or where it writes, never what it produces: a study's completion records leave it out (`outcome_fields`).
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError


def option(default: Any = dataclasses.MISSING, help: str = "", *, factory: Callable[[], Any] | None = None,
           **metadata: Any) -> Any:
    """A config field: its default (or a `factory` of it), its flag's help and metadata (module docstring)."""
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={"help": help, **metadata})
    return dataclasses.field(default=default, metadata={"help": help, **metadata})


def flag_fields(config_cls: type) -> list[dataclasses.Field]:
    """The fields of `config_cls` that are flags (all but those marked cli=False)."""
    return [f for f in dataclasses.fields(config_cls) if f.metadata.get("cli", True)]


def config_from_flags(config_cls: type, args: argparse.Namespace) -> Any:
    """The config that parsed flags (from `add_config_flags`) describe."""
    return config_cls(**{f.name: getattr(args, f.name) for f in flag_fields(config_cls)})


def config_command(subparsers: Any, name: str, config_cls: type, run: Callable[[Any, argparse.Namespace], int], *,
                   help: str, description: str) -> argparse.ArgumentParser:
    """Adds sub-command `name`, whose flags are `config_cls`'s fields: `run(config, args)` does its work and
    returns the exit status (`args` holds any flag the caller adds to the parser this returns)."""
    parser = subparsers.add_parser(name, help=help, description=description)
    add_config_flags(parser, config_cls)
    parser.set_defaults(func=lambda args: run(config_from_flags(config_cls, args), args))
    return parser


def outcome_fields(config: Any) -> dict[str, Any]:
    """The config's fields as a dict, less those marked speed=True (they do not change what a stage produces)."""
    speed = {f.name for f in dataclasses.fields(config) if f.metadata.get("speed")}
    return {k: v for k, v in dataclasses.asdict(config).items() if k not in speed}


def add_config_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, config_cls: type,
                     fields: Iterable[dataclasses.Field] | None = None, overrides: bool = False) -> None:
    """Adds one flag per field of `config_cls` (only the given `fields`; default: its flag fields). With
    `overrides`, a flag not given is None (it leaves a preset's value alone), and no flag is required."""
    for f in flag_fields(config_cls) if fields is None else fields:
        required = not overrides and (f.metadata.get("required") or (f.default is dataclasses.MISSING
                                                                      and f.default_factory is dataclasses.MISSING))
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        shown = not (required or overrides) and default is not dataclasses.MISSING and not (
            default is None or default is False or default == [])  # 0 is shown
        said = ",".join(map(str, default)) if isinstance(default, list) else default  # as the flag takes it
        options = {"help": f.metadata["help"] + (f" (default: {said})" if shown else ""), "dest": f.name}
        options.update({key: f.metadata[key] for key in ("metavar", "nargs") if key in f.metadata})
        if required:
            options["required"] = True
        elif overrides:
            options["default"] = None
        else:
            options["default"] = default
        kind = value_type(config_cls, f)
        if kind is bool:
            parser.add_argument(flag_name(f.name), action="store_true", **options)
        elif f.metadata.get("multiple"):
            parser.add_argument(flag_name(f.name), action="append", type=kind, **{"metavar": "VALUE", **options})
        else:
            listed = getattr(kind, "__name__", "") == "comma-separated list"
            choices = {"choices": f.metadata["choices"]} if "choices" in f.metadata and not listed else {}
            parser.add_argument(flag_name(f.name), type=kind, **choices, **options)


def flag_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def value_type(config_cls: type, f: dataclasses.Field) -> Callable[[str], Any]:
    """What turns a flag's text into the field's value: bool (a switch), a bounded number, a comma-separated
    list (each item one of the field's choices), a Path, or the field's type."""
    kind = typing.get_type_hints(config_cls)[f.name]
    if type(None) in typing.get_args(kind):  # X | None: the flag's type is X's
        kind = next(t for t in typing.get_args(kind) if t is not type(None))
    if kind is bool:
        return bool
    if "nargs" in f.metadata or f.metadata.get("multiple"):  # each value one argument
        return str
    if typing.get_origin(kind) is list or kind is list:
        return _comma_list(f.metadata.get("choices"))
    if kind in (int, float):
        return _ranged(kind, f.metadata)
    return Path if kind is Path else kind


def _comma_list(choices: tuple | None = None) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        items = [part.strip() for part in text.split(",") if part.strip()]
        wrong = [item for item in items if choices and item not in choices]
        if wrong:
            raise argparse.ArgumentTypeError(f"{', '.join(wrong)}: choose from {', '.join(choices or ())}")
        return items

    parse.__name__ = "comma-separated list"
    return parse


def range_problem(value: Any, metadata: Mapping[str, Any]) -> str | None:
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


def _ranged(base: type, metadata: Mapping[str, Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = base(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {'an integer' if base is int else 'a number'}, got '{text}'") from None
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

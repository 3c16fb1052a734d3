"""Command-line flags generated from a stage's config dataclass, so that flags and config never drift.

Each field becomes `--field-name` with the field's `help` metadata; metadata keys `required`,
`choices` and `multiple` (repeatable flag) shape the argument; bools are on/off switches.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from pathlib import Path
from typing import Iterable


def add_config_flags(parser: argparse.ArgumentParser, config_cls: type,
                     fields: Iterable[dataclasses.Field]) -> None:
    """Adds one flag per field of `config_cls` (only the given `fields`)."""
    hints = typing.get_type_hints(config_cls)
    for f in fields:
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        shown = f.default not in (None, False) and not f.metadata.get("required")
        options = {"help": f.metadata["help"] + (f" (default: {f.default})" if shown else ""), "dest": f.name}
        if kind is bool:
            parser.add_argument(flag, action="store_true", **options)
            continue
        if f.metadata.get("multiple"):
            parser.add_argument(flag, action="append", metavar=f.metadata.get("metavar", "VALUE"), **options)
            continue
        base = next((t for t in typing.get_args(kind) if t is not type(None)), kind)
        options["type"] = Path if base is Path else base
        if f.metadata.get("required"):
            options["required"] = True
        else:
            options["default"] = f.default
        if "choices" in f.metadata:
            options["choices"] = f.metadata["choices"]
        parser.add_argument(flag, **options)

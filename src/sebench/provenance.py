"""The software a run used, recorded in its manifest (experiment) and its train_config.json (train)."""

from __future__ import annotations

import platform
from importlib import metadata

from sebench import __version__

ENGINES = ("numpy", "torch", "transformers", "trl", "peft", "accelerate", "datasets", "matplotlib")


def versions() -> dict[str, str | None]:
    """Python's, the platform's, sebench's (also when run from a source tree) and each engine's version (None:
    not installed)."""
    found: dict[str, str | None] = {"python": platform.python_version(), "platform": platform.platform(),
                                    "sebench": __version__}
    for name in ENGINES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found

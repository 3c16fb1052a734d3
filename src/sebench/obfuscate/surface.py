"""Which NumPy functions the generated package covers: the 278 rows of the original benchmark's surface.

The table ships as package data (data/numpy_api_surface.tsv, a copy of the reference file), so an
installed sebench needs no checkout beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from sebench.errors import SebenchError

SURFACE_FILE = "numpy_api_surface.tsv"
# Surface names that NumPy 2 renamed (the package keeps the surface's name): surface name -> NumPy's.
NUMPY_RENAMED = {"trapz": "trapezoid"}


@dataclass(frozen=True)
class Function:
    """One covered NumPy function: `name` is its bare name, `linalg` whether it lives in numpy.linalg."""

    name: str
    linalg: bool

    @property
    def key(self) -> str:
        """The mapping.json key: "numpy.mean" or "numpy.linalg.inv"."""
        return f"numpy.linalg.{self.name}" if self.linalg else f"numpy.{self.name}"

    @property
    def short_key(self) -> str:
        """The original benchmark's spelling: "np.mean" or "np.linalg.inv"."""
        return "np." + self.key[len("numpy."):]


def data_text(name: str) -> str:
    """A text file from sebench/obfuscate/data."""
    return resources.files("sebench.obfuscate").joinpath("data", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_surface() -> tuple[Function, ...]:
    """The covered functions in table order (non-linalg and linalg rows as in the file)."""
    lines = data_text(SURFACE_FILE).splitlines()
    if not lines or lines[0].split("\t")[:3] != ["numpy_name", "public_paths", "in_linalg_submodule"]:
        raise SebenchError(f"{SURFACE_FILE}:1: unexpected header {lines[:1]!r}")
    out = []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) < 3 or cols[2] not in ("yes", "no") or not cols[0].isidentifier():
            raise SebenchError(f"{SURFACE_FILE}:{lineno}: malformed row {line!r}")
        out.append(Function(cols[0], cols[2] == "yes"))
    keys = [f.key for f in out]
    if len(set(keys)) != len(keys):
        raise SebenchError(f"{SURFACE_FILE}: duplicate rows")
    return tuple(out)


def numpy_object(key: str):
    """The NumPy object of a mapping key ("numpy.mean", "numpy.linalg.inv"), under NumPy 2's name where
    NumPy renamed it (NUMPY_RENAMED); None when NumPy has no such object."""
    import numpy

    parts = key.split(".")[1:]
    obj = numpy
    for i, part in enumerate(parts):
        obj = getattr(obj, part, None) if i < len(parts) - 1 else getattr(obj, part, None) or getattr(obj, NUMPY_RENAMED.get(part, ""), None)
    return obj

"""Seeded, pronounceable, collision-free identifiers for a generated instance.

Names are consonant-vowel syllables ("kocito", "falekef"), drawn from `random.Random(seed)` in a fixed
order, so the same seed always gives the same names. A name is rejected if it is a Python keyword or
builtin, a standard-library module, a NumPy name (numpy, its submodules, ndarray attributes), a
common English word (data/english_words.txt, from the wamerican list), a name of the original public
instance (data/official_names.txt), or already taken (case-insensitively).
"""

from __future__ import annotations

import builtins
import keyword
import random
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.obfuscate.surface import Function, data_text, load_surface

ONSETS = (*tuple("bcdfghjklmnprstvwxyz"), "qu")
VOWELS = tuple("aeiou")
CODAS = tuple("bdfgklmnprstvxz")
NUMPY_SUBMODULES = ("linalg", "fft", "random", "ma", "polynomial", "lib", "exceptions", "dtypes", "strings",
                    "char", "rec", "emath", "testing")


@dataclass(frozen=True)
class Names:
    """Every identifier of one instance. `functions` maps mapping.json keys to public dotted names."""

    package: str
    linalg: str
    array_type: str
    slot: str  # the private slot of the array type that holds the wrapped data
    axis_error: str  # raised where NumPy raises its axis error (in the package)
    linalg_error: str  # raised where NumPy raises its linear-algebra error (in the submodule)
    key: int  # the seed-derived key of the encoded target table
    functions: dict = field(default_factory=dict)  # {"numpy.mean": "pkg.kocito", ...}

    @property
    def constructor(self) -> str:
        return self.functions["numpy.array"]

    def mapping(self) -> dict:
        """The private/mapping.json document."""
        return {
            "package": self.package,
            "linalg": self.linalg,
            "array_type": self.array_type,
            "constructor": self.constructor,
            "exceptions": {
                "numpy.exceptions.AxisError": f"{self.package}.{self.axis_error}",
                "numpy.linalg.LinAlgError": f"{self.package}.{self.linalg}.{self.linalg_error}",
            },
            "functions": dict(self.functions),
        }


@lru_cache(maxsize=1)
def banned_words() -> frozenset[str]:
    """Lower-case words no generated identifier may be."""
    import numpy

    words = set(keyword.kwlist) | set(getattr(keyword, "softkwlist", ())) | set(dir(builtins))
    words |= set(sys.stdlib_module_names)
    words |= set(dir(numpy)) | set(dir(numpy.ndarray)) | set(dir(numpy.dtype)) | {"numpy", "np", "ndarray"}
    for sub in NUMPY_SUBMODULES:
        try:
            module = __import__(f"numpy.{sub}", fromlist=["_"])
        except Exception:  # noqa: BLE001 - a submodule some NumPy build lacks, or fails to import
            continue
        words |= set(dir(module)) | {sub}
    words |= {f.name for f in load_surface()}
    words |= set(data_text("english_words.txt").split())
    words |= set(data_text("official_names.txt").split())
    return frozenset(w.lower() for w in words)


def is_valid_name(name: str) -> bool:
    """A usable public identifier: a lower-case identifier that is no keyword and no dunder."""
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


class NameGenerator:
    """Draws fresh names from one seeded stream; never returns the same name twice."""

    def __init__(self, seed: int | str, taken: set[str] | None = None):
        self.rng = random.Random(f"sebench-names-{seed}")
        self.taken = {t.lower() for t in taken or ()}
        self.banned = banned_words()

    def word(self, syllables: tuple[int, int], coda: float) -> str:
        n = self.rng.randint(*syllables)
        parts = [self.rng.choice(ONSETS) + self.rng.choice(VOWELS) for _ in range(n)]
        if self.rng.random() < coda:
            parts.append(self.rng.choice(CODAS))
        return "".join(parts)

    def fresh(self, syllables: tuple[int, int] = (2, 3), coda: float = 0.5) -> str:
        for _ in range(10_000):
            name = self.word(syllables, coda)
            if name not in self.banned and name not in self.taken and len(name) >= 4:
                self.taken.add(name)
                return name
        raise SebenchError("could not draw a fresh identifier (name space exhausted)")


def generate_names(seed: int, package_name: str | None = None) -> Names:
    """All names of a fresh instance; the same seed gives the same names (and the same key)."""
    if package_name is not None:
        check_package_name(package_name)
    gen = NameGenerator(seed, taken={package_name} if package_name else None)
    package = package_name or gen.fresh((2, 2), 1.0)
    linalg = gen.fresh((2, 2), 0.0)
    array_type = gen.fresh((3, 3), 1.0).capitalize()
    slot = "_" + gen.fresh((2, 2), 0.0)
    axis_error = gen.fresh((2, 2), 1.0).capitalize() + "Error"
    linalg_error = gen.fresh((2, 2), 1.0).capitalize() + "Error"
    functions = {}
    for fn in load_surface():
        prefix = f"{package}.{linalg}." if fn.linalg else f"{package}."
        functions[fn.key] = prefix + gen.fresh()
    key = random.Random(f"sebench-key-{seed}").getrandbits(64) | 1
    return Names(package, linalg, array_type, slot, axis_error, linalg_error, key, functions)


def check_package_name(name: str) -> None:
    """Fails with a SebenchError if `name` cannot be a generated package's name."""
    import importlib.util

    if not is_valid_name(name) or name != name.lower():
        raise SebenchError(f"package name '{name}': must be a lower-case Python identifier not starting with '_'")
    if name in sys.stdlib_module_names or name in {"numpy", "np", "sebench"} or name in dir(builtins):
        raise SebenchError(f"package name '{name}': clashes with a standard or required module; pick another")
    if importlib.util.find_spec(name) is not None:
        raise SebenchError(f"package name '{name}': an installed module already has this name; pick another")


def names_from_official(path: Path, seed: int = 0, package_name: str | None = None) -> Names:
    """The names of an existing instance, read from the original benchmark's api_doc.jsonl format.

    Each row has `original_name`, `curr_name` and `func_mapping` (a JSON string mapping "np.X" or
    "np.linalg.X" to "pkg.Y" or "pkg.sub.Y"); the union of the rows' mappings must cover the surface.
    Names the format does not carry (array type, exceptions, key) come from `seed`.
    """
    surface = {fn.short_key: fn for fn in load_surface()}
    merged: dict[str, tuple[str, int]] = {}
    rows: list[tuple[int, str, str]] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SebenchError(f"{path}: cannot read ({exc.strerror})") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        row = parse_json(line, where)
        if not isinstance(row, dict):
            raise SebenchError(f"{where}: expected a JSON object")
        for fld in ("original_name", "curr_name", "func_mapping"):
            if not isinstance(row.get(fld), str):
                raise SebenchError(f"{where}: field '{fld}': missing or not a string")
        fmap = parse_json(row["func_mapping"], f"{where}: field 'func_mapping'")
        if not isinstance(fmap, dict):
            raise SebenchError(f"{where}: field 'func_mapping': expected a JSON object")
        for src, dst in fmap.items():
            if src not in surface:
                raise SebenchError(f"{where}: field 'func_mapping': '{src}' is not a covered function")
            if not isinstance(dst, str) or not all(is_valid_name(p) for p in dst.split(".")):
                raise SebenchError(f"{where}: field 'func_mapping': '{src}' maps to an invalid name {dst!r}")
            depth = 3 if surface[src].linalg else 2
            if len(dst.split(".")) != depth:
                raise SebenchError(f"{where}: field 'func_mapping': '{src}' -> '{dst}' needs {depth} dotted parts")
            if src in merged and merged[src][0] != dst:
                raise SebenchError(f"{where}: field 'func_mapping': '{src}' -> '{dst}' contradicts "
                                   f"'{merged[src][0]}' from line {merged[src][1]}")
            merged.setdefault(src, (dst, lineno))
        rows.append((lineno, row["original_name"], row["curr_name"]))
    missing = sorted(set(surface) - set(merged))
    if missing:
        raise SebenchError(f"{path}: field 'func_mapping': no row maps {', '.join(missing[:5])}"
                           + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    for lineno, orig, curr in rows:
        options = {merged[k][0].rsplit(".", 1)[1] for k in (f"np.{orig}", f"np.linalg.{orig}") if k in merged}
        if curr not in options:
            raise SebenchError(f"{path}:{lineno}: field 'curr_name': '{curr}' is not the name that "
                               f"func_mapping gives to '{orig}'")
    packages = {dst.split(".")[0] for dst, _ in merged.values()}
    linalgs = {dst.split(".")[1] for k, (dst, _) in merged.items() if surface[k].linalg}
    if len(packages) != 1 or len(linalgs) != 1:
        raise SebenchError(f"{path}: field 'func_mapping': expected one package and one submodule name, "
                           f"got {sorted(packages)} and {sorted(linalgs)}")
    old_pkg, linalg = packages.pop(), linalgs.pop()
    package = package_name or old_pkg
    if package_name:
        check_package_name(package_name)
    publics = [dst for dst, _ in merged.values()]
    if len(set(publics)) != len(publics):
        raise SebenchError(f"{path}: field 'func_mapping': two functions share a public name")
    functions = {surface[k].key: package + dst[len(old_pkg):] for k, (dst, _) in merged.items()}
    functions = {fn.key: functions[fn.key] for fn in load_surface()}
    taken = {package, linalg} | {v.rsplit(".", 1)[1] for v in functions.values()}
    gen = NameGenerator(seed, taken=taken)
    array_type = f"{package.upper()}Array"
    slot = "_" + gen.fresh((2, 2), 0.0)
    axis_error = gen.fresh((2, 2), 1.0).capitalize() + "Error"
    linalg_error = gen.fresh((2, 2), 1.0).capitalize() + "Error"
    key = random.Random(f"sebench-key-{seed}").getrandbits(64) | 1
    return Names(package, linalg, array_type, slot, axis_error, linalg_error, key, functions)


__all__ = ["Function", "NameGenerator", "Names", "banned_words", "generate_names", "names_from_official"]

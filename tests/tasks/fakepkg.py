"""A stand-in instance for fast tests of the task generator: a package whose functions are NumPy's
under synthetic names (the real build is tested separately)."""

from __future__ import annotations

import json
from pathlib import Path


def surface_keys() -> list[str]:
    try:
        from sebench.obfuscate.surface import load_surface

        return [f.key for f in load_surface()]
    except Exception:  # noqa: BLE001 - the build's table is not importable yet: read the same file directly
        import sebench

        path = Path(sebench.__file__).parent / "obfuscate/data/numpy_api_surface.tsv"
        rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
        return [f"numpy.linalg.{r[0]}" if r[2] == "yes" else f"numpy.{r[0]}" for r in rows]


INIT = '''
import numpy as _np
from numpy import linalg as _la
from . import lx

_ALIASES = {"trapz": "trapezoid"}
_TABLE = %s


def _plain(value):
    if isinstance(value, _np.ndarray):
        return value.tolist()
    if isinstance(value, _np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


for _pub, _name in _TABLE.items():
    globals()[_pub] = getattr(_np, _ALIASES.get(_name, _name))
'''

LX = '''
from numpy import linalg as _la
_TABLE = %s
for _pub, _name in _TABLE.items():
    globals()[_pub] = getattr(_la, _name)
'''


def make_fake_instance(root: Path, package: str = "qzx") -> Path:
    keys = surface_keys()
    top = {f"f{i:03d}": k.split(".", 1)[1] for i, k in enumerate(keys) if not k.startswith("numpy.linalg.")}
    lin = {f"g{i:03d}": k.rsplit(".", 1)[1] for i, k in enumerate(keys) if k.startswith("numpy.linalg.")}
    pkg = root / "package" / package
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(INIT % repr(top))
    (pkg / "lx.py").write_text(LX % repr(lin))
    functions = {f"numpy.{v}": f"{package}.{k}" for k, v in top.items()}
    functions.update({f"numpy.linalg.{v}": f"{package}.lx.{k}" for k, v in lin.items()})
    mapping = {"package": package, "linalg": "lx", "array_type": "Thing",
               "constructor": functions["numpy.array"], "functions": functions}
    (root / "private").mkdir(parents=True, exist_ok=True)
    (root / "private/mapping.json").write_text(json.dumps(mapping, indent=1))
    return root

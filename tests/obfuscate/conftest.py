"""Generated packages for three seeds (package files only: no docs, tasks or audit, so they are quick)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from sebench.obfuscate.names import Names, generate_names
from sebench.obfuscate.package import write_package

SEEDS = (0, 1, 2)


@dataclass
class Generated:
    names: Names
    module: object  # the imported package
    root: object  # the folder on sys.path

    def fn(self, key: str):
        """The public callable for a mapping key ("numpy.mean", "numpy.linalg.inv")."""
        obj = self.module
        for part in self.names.functions[key].split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    @property
    def array_type(self):
        return getattr(self.module, self.names.array_type)


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> list[Generated]:
    out = []
    for seed in SEEDS:
        names = generate_names(seed)
        root = tmp_path_factory.mktemp(f"pkg{seed}")
        write_package(root, names)
        sys.path.insert(0, str(root))
        for mod in [m for m in sys.modules if m == names.package or m.startswith(names.package + ".")]:
            del sys.modules[mod]
        out.append(Generated(names, importlib.import_module(names.package), root))
    return out


@pytest.fixture(scope="session")
def gen0(generated) -> Generated:
    return generated[0]


@pytest.fixture(scope="session")
def numpy_cases():
    """The module numpy_cases.py beside this file (test modules are not importable by name here)."""
    path = Path(__file__).with_name("numpy_cases.py")
    spec = importlib.util.spec_from_file_location("sebench_test_numpy_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

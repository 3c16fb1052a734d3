"""Every one of the 278 functions gives NumPy's values, for three seeds (differential testing).

The cases and the comparison rules are in numpy_cases.py: each case runs on NumPy and on the package
with the same inputs; both must give the same values (dtype, shape, elements; Python scalars where
NumPy gives its scalars; tuples and named results alike) or both must raise (the package's error an
instance of the builtin class behind NumPy's, its message naming no NumPy name).
"""

import numpy as np
import pytest

from sebench.obfuscate.package import numpy_function
from sebench.obfuscate.surface import load_surface


@pytest.mark.parametrize("seed_index", [0, 1, 2])
def test_every_function_matches_numpy(generated, numpy_cases, seed_index):
    gen = generated[seed_index]
    failures, weak = [], []
    for fn in load_surface():
        ok = 0
        for case in numpy_cases.cases_for(fn):
            try:
                ok += numpy_cases.run_both(fn, gen, case)
            except AssertionError as exc:
                failures.append(str(exc))
        if ok < 1:
            weak.append(fn.key)
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:40])
    assert not weak, f"functions without one successful case: {weak}"


def test_every_function_has_cases(numpy_cases):
    missing = []
    for fn in load_surface():
        target = numpy_function(fn.key)
        if not isinstance(target, np.ufunc) and numpy_cases.spec_key(fn) not in numpy_cases.CASES:
            missing.append(fn.key)
    assert not missing
    assert set(numpy_cases.CASES) <= {numpy_cases.spec_key(fn) for fn in load_surface()}

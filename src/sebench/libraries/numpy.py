"""NumPy under the library contract: the 278 functions of the original benchmark's surface table
(obfuscate's numpy_api_surface.tsv), the task families of sebench.tasks, NumPy's own docstrings.

NumPy's instances are still built by the obfuscate stage's pipeline (its array type, linalg submodule and
docs rewriting), which `sebench build` runs for this library, so NumPy builds stay byte-identical per seed.
"""

from __future__ import annotations

from sebench.libraries.contract import ApiFunction, Library
from sebench.obfuscate import load_surface, numpy_function
from sebench.tasks import Template, all_templates


def surface() -> tuple[ApiFunction, ...]:
    return tuple(ApiFunction(fn.key, "linalg" if fn.linalg else "") for fn in load_surface())


def templates() -> tuple[Template, ...]:
    return tuple(all_templates())


def doc(key: str) -> str:
    return numpy_function(key).__doc__ or ""


def version() -> str:
    import numpy

    return numpy.__version__


LIBRARY = Library(
    name="numpy", module="numpy", surface=surface, templates=templates, doc=doc, version=version,
    leak_words=frozenset({"numpy", "ndarray", "ufunc", "dtype", "LinAlgError", "AxisError"}),
)

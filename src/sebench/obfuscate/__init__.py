"""Turns NumPy into a pseudo-novel package: seeded names (names.py), the covered surface (surface.py),
the generated package (package.py + runtime.py), docs (docs.py), the leak audit (audit.py), and the steps
`sebench build` runs in order (write.py); `sebench audit` (cli.py)."""

from sebench.exports import front_door

__all__ = ["DOCS_SOURCES", "NUMPY_RENAMED", "LeakChecker", "Names", "Surface", "audit_or_fail", "clean_caches",
           "forget_package", "make_names", "release_api_docs", "write_obfuscated"]
__getattr__ = front_door(__name__, __all__, {
    "audit": ("LeakChecker", "Surface"),
    "names": ("Names",),
    "surface": ("NUMPY_RENAMED",),
    "write": ("DOCS_SOURCES", "audit_or_fail", "clean_caches", "forget_package", "make_names", "release_api_docs",
              "write_obfuscated"),
})

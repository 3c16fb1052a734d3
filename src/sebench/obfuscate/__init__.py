"""Turns NumPy into a pseudo-novel package: seeded names (names.py), the covered surface (surface.py),
the generated package (package.py + runtime.py), docs (docs.py), the leak audit (audit.py), and the steps
`sebench build` runs in order (write.py); `sebench audit` is the builder's command."""

from sebench.exports import front_door

__all__ = ["DOCS_SOURCES", "NUMPY_RENAMED", "LeakChecker", "NameGenerator", "Names", "Surface", "audit_instance",
           "audit_or_fail", "check_package_name", "clean_caches", "encode", "forget_package", "json_strings", "load_surface",
           "make_names", "module_source", "numpy_function", "release_api_docs", "write_obfuscated"]
__getattr__ = front_door(__name__, __all__, {
    "audit": ("LeakChecker", "Surface", "audit_instance", "json_strings"),
    "names": ("NameGenerator", "Names", "check_package_name"),
    "package": ("encode", "module_source", "numpy_function"),
    "surface": ("NUMPY_RENAMED", "load_surface"),
    "write": ("DOCS_SOURCES", "audit_or_fail", "clean_caches", "forget_package", "make_names", "release_api_docs",
              "write_obfuscated"),
})

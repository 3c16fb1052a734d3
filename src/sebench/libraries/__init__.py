"""Libraries as pseudo-novel packages: the contract a library fills (contract.py) and the registry of
built-in and user libraries (registry.py), NumPy under the contract (numpy.py), and the generic pipeline
for any other library (names, package + runtime, docs, audit; write.py runs them); docs/libraries.md."""

from sebench.exports import front_door

__all__ = ["DEFAULT_LIBRARY", "ApiFunction", "Library", "audit_library", "audit_library_or_fail", "library_names",
           "load_library", "write_library", "write_library_tasks"]
__getattr__ = front_door(__name__, __all__, {
    "contract": ("ApiFunction", "Library"),
    "registry": ("DEFAULT_LIBRARY", "library_names", "load_library"),
    "write": ("audit_library", "audit_library_or_fail", "write_library", "write_library_tasks"),
})

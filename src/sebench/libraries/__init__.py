"""Libraries as pseudo-novel packages: the contract a library fills (contract.py) and the registry of
built-in and user libraries (registry.py); docs/libraries.md."""

from sebench.exports import front_door

__all__ = ["DEFAULT_LIBRARY", "ApiFunction", "Library", "library_names", "load_library"]
__getattr__ = front_door(__name__, __all__, {
    "contract": ("ApiFunction", "Library"),
    "registry": ("DEFAULT_LIBRARY", "library_names", "load_library"),
})

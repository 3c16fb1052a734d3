"""Libraries as pseudo-novel packages: the contract a library fills (contract.py) and the registry of
built-in and user libraries (docs/libraries.md)."""

from sebench.exports import front_door

__all__ = ["ApiFunction", "Library"]
__getattr__ = front_door(__name__, __all__, {
    "contract": ("ApiFunction", "Library"),
})

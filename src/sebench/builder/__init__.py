"""`sebench build`: an instance directory from a seed (the obfuscate stage's package and docs, the tasks
stage's splits, the leak audit, the manifest)."""

from sebench.exports import front_door

__all__ = ["build_instance"]
__getattr__ = front_door(__name__, __all__, {"run": ("build_instance",)})

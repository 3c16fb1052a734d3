"""Integrations: sebench inside other tools. `inspect_task` is SE-Bench as an Inspect task (`inspect eval
sebench/se_bench`), loaded by Inspect through the `inspect_ai` entry point of pyproject.toml, so that it exports
nothing here and sebench never imports inspect_ai itself."""

from sebench.exports import front_door

__all__: list[str] = []
__getattr__ = front_door(__name__, __all__, {})

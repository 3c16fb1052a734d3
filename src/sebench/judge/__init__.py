"""The judge: extraction, static rules, isolated execution, comparison, verdicts and summaries.

`Judge` and `Sandbox` are imported lazily so that `import sebench.judge` stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Judge", "Sandbox", "RunResult", "CaseResult"]


def __getattr__(name: str) -> Any:
    if name == "Judge":
        from sebench.judge.core import Judge

        return Judge
    if name in ("Sandbox", "RunResult", "CaseResult"):
        from sebench.judge import sandbox

        return getattr(sandbox, name)
    raise AttributeError(f"module 'sebench.judge' has no attribute '{name}'")

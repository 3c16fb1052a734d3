"""The two evaluation protocols side by side: sebench's own (the default) and the original SE-Bench's.

Every setting in which the two differ is a field of `Protocol`, and the two values are in `PROTOCOLS`,
so that a reader sees the whole difference here. The stages look a protocol up by name and implement
the behaviour each field names (prompts in rollout, extraction and judging in judge, printing in the
sandbox server); docs/protocols.md says why each sebench rule is stricter and what it changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sebench.errors import SebenchError


@dataclass(frozen=True)
class Protocol:
    """One protocol's choices. `None` for a decoding default means: the command's own default."""

    name: str
    prompts: str  # "sebench": our templates | "original": the original's templates, read from --original-repo
    thinking: bool | None  # chat template's enable_thinking (None: the template's default)
    max_tokens: int | None
    temperature: float | None
    samples: int | None
    judge: str  # "sebench": test cases in our sandbox | "original": the original's rules and printed-output check
    printing: str  # how /run prints values: "sebench" | "original" (as the original package prints them)
    run_timeout_s: float  # /run's default limit per program


PROTOCOLS: dict[str, Protocol] = {
    "sebench": Protocol(name="sebench", prompts="sebench", thinking=None, max_tokens=None, temperature=None,
                        samples=None, judge="sebench", printing="sebench", run_timeout_s=3.0),
    "original": Protocol(name="original", prompts="original", thinking=True, max_tokens=8192, temperature=0.6,
                         samples=5, judge="original", printing="original", run_timeout_s=3.0),
}
DEFAULT = "sebench"


def get(name: str) -> Protocol:
    """The protocol called `name`; one line naming the choices otherwise."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise SebenchError(f"unknown protocol '{name}'; choose one of {', '.join(PROTOCOLS)}") from None

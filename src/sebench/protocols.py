"""The two protocols side by side: sebench's own (the default) and the original SE-Bench's.

Every setting in which the two differ is a field of `Protocol`, and the two values are in `PROTOCOLS`,
so that a reader sees the whole difference here. The stages look a protocol up by name and implement
the behaviour each field names (prompts in rollout and train, extraction and judging in judge, printing
in the sandbox server, the reward, the SFT filter and the RL data in train); docs/protocols.md says why
each sebench rule is stricter and what it changes, docs/gpu.md, "The original's training, item by item", where
each training rule lives in the original's code.

The RL algorithm itself (old log-probabilities recomputed on the training prompt, dual clip, log-ratio
clamp, per-sequence loss aggregation) is the original's under both protocols: it is the algorithm, not a
judging choice, so it is a default of `TrainConfig`, not a field here.
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
    # training (sebench train)
    reward: str  # GRPO reward: "binary" (the judge's verdict) | "original" (the original's reward rule)
    sft_examples: str  # SFT from judged answers: "distinct" (one per task and code) | "all" (every correct one)
    rl_sample_until: str  # GRPO sampling stops at: "code-block" (the first complete one) | "eos"
    rl_max_prompt_tokens: int | None  # GRPO rows whose open-book prompt has this many tokens are dropped
    rl_closed_in_order: bool  # closed-rl reads its prompts in the data's order, unshuffled (open-rl shuffles)
    sft_optimizer: tuple[float, float]  # AdamW (weight decay, beta2) of SFT stages, where the config leaves them
    rl_optimizer: tuple[float, float]  # the same for GRPO stages


PROTOCOLS: dict[str, Protocol] = {
    "sebench": Protocol(name="sebench", prompts="sebench", thinking=None, max_tokens=None, temperature=None,
                        samples=None, judge="sebench", printing="sebench", run_timeout_s=3.0,
                        reward="binary", sft_examples="distinct", rl_sample_until="code-block",
                        rl_max_prompt_tokens=None, rl_closed_in_order=False,
                        sft_optimizer=(0.0, 0.999), rl_optimizer=(0.0, 0.999)),
    "original": Protocol(name="original", prompts="original", thinking=True, max_tokens=8192, temperature=0.6,
                         samples=5, judge="original", printing="original", run_timeout_s=3.0,
                         reward="original", sft_examples="all", rl_sample_until="eos",
                         rl_max_prompt_tokens=2000, rl_closed_in_order=True,
                         # verl_evolve/verl/trainer/config/sft_trainer.yaml; optim/fsdp.yaml (the actor's)
                         sft_optimizer=(0.01, 0.95), rl_optimizer=(0.01, 0.999)),
}
DEFAULT = "sebench"


def get(name: str) -> Protocol:
    """The protocol called `name`; one line naming the choices otherwise."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise SebenchError(f"unknown protocol '{name}'; choose one of {', '.join(PROTOCOLS)}") from None

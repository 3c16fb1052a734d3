"""The judge: static rules, isolated execution, comparison (sebench.values), verdicts and summaries;
`sebench judge` (run.py) and `sebench sandbox serve` (sandbox_server.py).

Every name is imported on first use, so that `import sebench.judge` stays light.
"""

from sebench.exports import front_door

__all__ = [
           "RULES_FILE",
           "CaseResult",
           "Judge",
           "JudgeConfig",
           "OriginalJudge",
           "Rules",
           "RunResult",
           "Sandbox",
           "judge_records",
           "program_outputs",
           "read_rollouts",
           "reward_answer",
           "write_verdicts",
]
__getattr__ = front_door(__name__, __all__, {
    "core": ("Judge",),
    "original": ("OriginalJudge", "reward_answer"),
    "program_values": ("program_outputs",),
    "run": ("JudgeConfig", "judge_records", "read_rollouts", "write_verdicts"),
    "sandbox": ("CaseResult", "RunResult", "Sandbox"),
    "static": ("RULES_FILE", "Rules"),
})

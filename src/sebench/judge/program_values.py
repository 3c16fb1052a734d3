"""What programs return on given inputs, under the judge's rules: the judge's front door for callers that
need values rather than verdicts (model-written tasks vote on their programs' outputs).

Each program must pass the static rules (uses the package, no NumPy, no forbidden access) and runs in the
judge's sandbox; a program that breaks a rule or fails to run has no results (None); otherwise it has one
CaseResult per input (`ok`, the returned `value` as plain data, or the `error`).
"""

from __future__ import annotations

from sebench.instance import Instance
from sebench.judge.sandbox import CaseResult, Sandbox
from sebench.judge.static import Rules, check_code


def program_outputs(instance: Instance, programs: list[str], entry_point: str, inputs: list[str],
                    workers: int = 2) -> list[list[CaseResult] | None]:
    """Per program: its result on each input, or None when it is empty, breaks a static rule, or does not run."""
    mapping = instance.mapping()
    rules = Rules.from_mapping(mapping)
    allowed = [bool(code) and check_code(code, entry_point, rules).verdict is None for code in programs]
    outputs: list[list[CaseResult] | None] = []
    with Sandbox(instance.package_dir, mapping["package"], workers=workers) as sandbox:
        for code, ok in zip(programs, allowed):
            run = sandbox.run(code, entry_point, inputs) if ok else None
            if run is None or run.status != "ok":
                outputs.append(None)
                continue
            outputs.append(run.cases)
    return outputs

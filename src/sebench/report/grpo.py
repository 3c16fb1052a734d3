"""What GRPO did, from the records its loop leaves (RUN_DIR/train/<label>/checkpoint/rl_samples.jsonl and
rl_steps.jsonl): per trained label, the samples it drew and how many were rewarded, how many of its groups
(a prompt's samples in a batch) carry a gradient (a non-zero advantage), how much less likely the
training prompt makes a sample than the prompt it was sampled from (closed-rl: the closed against the open
prompt), the PPO ratio's distance from 1, and where recorded the gradient norms of the positive- and
negative-advantage samples and their cosine.

The log-ratio of a sample is new_logp - sample_logp: its log-probability on the training prompt at its update
minus that on the sampling prompt before the batch's updates, summed over its tokens (also shown per token).
"""

from __future__ import annotations

import statistics
from pathlib import Path

from sebench.files import plain_matches
from sebench.records import iter_json_lines
from sebench.report.fmt import md_row

SAMPLES, STEPS = "rl_samples.jsonl", "rl_steps.jsonl"


def _lines(path: Path) -> list[dict]:
    if not path.exists() and not path.is_symlink():
        return []
    return [obj for _, obj in iter_json_lines(path)]


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _mean(values: list[float | None]) -> float | None:
    """The mean of the values recorded (None, or NaN in records made before 2026-11-26: a step without a
    sample of one sign)."""
    kept = [v for v in values if v is not None and v == v]
    return sum(kept) / len(kept) if kept else None


def grpo_rows(run_dirs: list[Path]) -> list[dict]:
    """One row per run and trained label that has GRPO samples."""
    rows = []
    for root in run_dirs:
        for folder in plain_matches(Path(root), "train/*/checkpoint"):
            samples = _lines(folder / SAMPLES)
            if samples:
                rows.append({"run": Path(root).name, "label": folder.parent.name,
                             **summarise(samples, _lines(folder / STEPS))})
    return rows


def summarise(samples: list[dict], steps: list[dict]) -> dict:
    """The numbers of one GRPO run (see the module docstring)."""
    rewarded = [s for s in samples if s["reward"] > 0]
    # a group is one prompt's samples in one batch; it carries a gradient when any of its advantages is non-zero
    groups: dict[tuple, bool] = {}
    for s in samples:
        key = (s.get("stage"), s.get("batch"), s.get("task_id"))
        groups[key] = groups.get(key, False) or s["advantage"] != 0
    ratio = [s["new_logp"] - s["sample_logp"] for s in rewarded]
    per_token = [(s["new_logp"] - s["sample_logp"]) / max(1, len(s["completion_ids"])) for s in rewarded]
    return {
        "steps": len(steps), "samples": len(samples), "rewarded": len(rewarded),
        "groups": len(groups), "groups_with_gradient": sum(groups.values()),
        "positive": sum(s["advantage"] > 0 for s in samples), "negative": sum(s["advantage"] < 0 for s in samples),
        "log_ratio_rewarded": _median(ratio), "log_ratio_rewarded_per_token": _median(per_token),
        "ppo_log_ratio_abs": _median([abs(s["new_logp"] - s["old_logp"]) for s in samples]),
        "grad_norm_positive": _mean([s.get("grad_norm_positive") for s in steps]),
        "grad_norm_negative": _mean([s.get("grad_norm_negative") for s in steps]),
        "grad_cosine": _mean([s.get("grad_cosine") for s in steps]),
    }


def _cell(value: float | int | None, fmt: str = "{:.3g}") -> str:
    return "" if value is None else (str(value) if isinstance(value, int) else fmt.format(value))


def grpo_markdown(rows: list[dict]) -> str:
    head = ["run", "label", "steps", "samples", "rewarded", "A > 0", "A < 0", "groups", "with a gradient",
            "median log-ratio (rewarded)",
            "per token", "median abs(new - old)", "grad norm A > 0", "grad norm A < 0", "cosine"]
    lines = [md_row(head), "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["run"], r["label"]] + [_cell(r[k]) for k in (
            "steps", "samples", "rewarded", "positive", "negative", "groups", "groups_with_gradient",
            "log_ratio_rewarded",
            "log_ratio_rewarded_per_token", "ppo_log_ratio_abs", "grad_norm_positive", "grad_norm_negative",
            "grad_cosine")]
        lines.append(md_row(cells))
    return "\n".join(lines) + "\n"

"""Synthetic studies for measuring the coverage of sebench's intervals (tests/test_coverage.py; run this
file to print the full sweep that docs/statistics.md quotes).

A study: G seeds, T tasks a seed, m samples a task. Arm X's chance of a correct sample on task t of seed g is
sigmoid(mu_X + s_Xg + b_t + u_Xt): b_t the task's difficulty (shared by the arms: within-task correlation
and pairing), s_Xg the seed's training effect (one per arm and seed), u_Xt what an arm knows of a task
beyond its difficulty. Truths are computed by Gauss-Hermite quadrature, never from the intervals' code.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass

import numpy as np

from sebench import intervals as iv

NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def expected(logit_mean, sd):
    """E sigmoid(logit_mean + sd Z), Z standard normal, elementwise."""
    x = np.asarray(logit_mean, float)[..., None] + np.asarray(sd, float)[..., None] * NODES
    return (_sigmoid(x) * WEIGHTS).sum(-1)


@dataclass(frozen=True)
class Setting:
    tasks: int
    samples: int
    seeds: int
    mu_a: float
    mu_b: float = -9.0  # the other arm (e.g. the untrained model), far below by default
    task_sd: float = 1.5  # spread of task difficulty: within-task correlation
    seed_sd: float = 0.0  # spread of the seeds' training effects
    arm_sd: float = 0.5  # what an arm knows of a task beyond its difficulty


@dataclass(frozen=True)
class Studies:
    correct_a: np.ndarray  # (studies, seeds, tasks)
    correct_b: np.ndarray
    size: np.ndarray
    models_a: np.ndarray  # (studies,) these models' true accuracy, arm A
    models_delta: np.ndarray  # (studies,) these models' true A - B
    method_a: float  # the method's true accuracy over new seeds, arm A
    method_delta: float


def simulate(s: Setting, studies: int, rng: np.random.Generator) -> Studies:
    shape = (studies, s.seeds, s.tasks)
    task = rng.normal(0, s.task_sd, shape)
    seed_a = rng.normal(0, s.seed_sd, (studies, s.seeds, 1))
    seed_b = rng.normal(0, s.seed_sd, (studies, s.seeds, 1))
    pa = _sigmoid(s.mu_a + seed_a + task + rng.normal(0, s.arm_sd, shape))
    pb = _sigmoid(s.mu_b + seed_b + task + rng.normal(0, s.arm_sd, shape))
    sd = np.hypot(s.task_sd, s.arm_sd)
    truth_a = expected(s.mu_a + seed_a[..., 0], sd).mean(-1)
    truth_b = expected(s.mu_b + seed_b[..., 0], sd).mean(-1)
    total = np.hypot(sd, s.seed_sd)
    return Studies(rng.binomial(s.samples, pa), rng.binomial(s.samples, pb), np.full(shape, s.samples),
                   truth_a, truth_a - truth_b, float(expected(s.mu_a, total)),
                   float(expected(s.mu_a, total) - expected(s.mu_b, total)))


def _flat(x: np.ndarray) -> np.ndarray:
    return x.reshape(x.shape[0], -1)


def coverage(s: Setting, studies: int = 2000, seed: int = 0, draws: int = 2000) -> dict[str, float]:
    """The share of studies whose interval holds the truth, per interval the report prints (and the
    rejection rate at p < 0.05 of each Δ test, meaningful as a false-positive rate when the null holds)."""
    sim = simulate(s, studies, np.random.default_rng(seed))
    out = {}
    _, _, _, lo, hi = iv.accuracy_interval(_flat(sim.correct_a), _flat(sim.size))
    out["accuracy, these models"] = float(np.mean((lo <= sim.models_a) & (sim.models_a <= hi)))
    args = (_flat(sim.correct_a), _flat(sim.size), _flat(sim.correct_b), _flat(sim.size))
    delta, _, lo, hi = iv.paired_interval(*args)
    d = _flat(sim.correct_a - sim.correct_b) / s.samples
    step = 1 / _flat(sim.size).sum(-1)  # one answer's worth of Δ
    p_these = iv.sign_flip_p(d, draws=draws)
    lo, hi = iv.agree(delta, lo, hi, p_these, step)  # as the report prints it
    out["Δ, these models"] = float(np.mean((lo <= sim.models_delta) & (sim.models_delta <= hi)))
    out["Δ test, these models: rejects"] = float(np.mean((lo > 0) | (hi < 0)))  # p < 0.05 exactly then
    if s.seeds > 1:
        _, _, lo, hi = iv.over_seeds_interval(sim.correct_a, sim.size)
        out["accuracy, over seeds"] = float(np.mean((lo <= sim.method_a) & (sim.method_a <= hi)))
        mean, _, lo, hi, p = iv.over_seeds_paired(sim.correct_a, sim.size, sim.correct_b, sim.size, p_these=p_these)
        lo, hi = iv.agree(mean, lo, hi, p, step)
        out["Δ, over seeds"] = float(np.mean((lo <= sim.method_delta) & (sim.method_delta <= hi)))
        out["Δ test, over seeds: rejects"] = float(np.mean((lo > 0) | (hi < 0)))
    return out


SWEEP = dict(tasks=(17, 60), samples=(1, 5), seeds=(1, 2, 3), mu_a=(-4.5, -2.5, -0.5, 1.5),
             task_sd=(0.0, 1.5, 3.0), seed_sd=(0.0, 0.5, 1.0))


def sweep(studies: int = 1000) -> None:
    """Every setting of SWEEP (B far below A; and B = A, the null), one line each, then the markdown table of
    `summary`."""
    results = []
    for values in itertools.product(*SWEEP.values()):
        for null in (False, True):
            setting = Setting(**dict(zip(SWEEP, values)))
            if setting.seeds == 1 and setting.seed_sd:
                continue  # one seed: these models' truth takes its seed's effect as it is
            if null:
                setting = Setting(**{**setting.__dict__, "mu_b": setting.mu_a})
            result = coverage(setting, studies)
            print(setting, {k: round(v, 3) for k, v in result.items()}, flush=True)
            results.append((setting, result))
    print(summary(results))


def summary(results: list[tuple[Setting, dict[str, float]]]) -> str:
    """Per interval and number of seeds: the settings, the lowest and the median coverage; per test, the
    highest rejection rate where its null holds."""
    lines = ["| interval or test | seeds | settings | lowest | median |", "|---|---|---|---|---|"]
    names = sorted({k for _, r in results for k in r}, key=lambda k: ("rejects" in k, k))
    for name in names:
        for seeds in (1, 2, 3):
            if "rejects" in name:
                values = [r[name] for s, r in results if name in r and s.seeds == seeds and s.mu_a == s.mu_b
                          and ("over seeds" in name or s.seed_sd == 0)]
                label = name.replace(": rejects", ", false positives under its null")
                if values:
                    lines.append(f"| {label} | {seeds} | {len(values)} | highest {100 * max(values):.1f}% "
                                 f"| {100 * float(np.median(values)):.1f}% |")
                continue
            values = [r[name] for s, r in results if name in r and s.seeds == seeds]
            if values:
                lines.append(f"| {name} | {seeds} | {len(values)} | {100 * min(values):.1f}% "
                             f"| {100 * float(np.median(values)):.1f}% |")
    return "\n".join(lines)


if __name__ == "__main__":
    sweep(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)

"""Samples the inputs of every planned draft of some seeds at full split sizes, the way generation
draws them (with the production draw budget, no reference runs). A module of its own so that worker
processes can import it."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from sebench.obfuscate.surface import load_surface
from sebench.tasks.families import all_templates
from sebench.tasks.generate import TaskSizes, draft_rng, plan, sample_cases


@dataclass
class Sampled:
    lost: list[str] = field(default_factory=list)  # "seed S template: case i: why"
    most_draws: int = 0  # the most random draws any one case took
    drafts: int = 0
    draws: int = 0


def sample(seeds, rounds: int) -> Sampled:
    """The first `rounds` drafts of every slot that `plan` makes for each seed."""
    functions = [f.key for f in load_surface()]
    templates = [t for t in all_templates() if all(f in functions for f in t.functions)]
    out = Sampled()
    for seed in seeds:
        for slots in plan(templates, seed, TaskSizes(), functions).values():
            for d in (d for slot in slots for d in slot[:rounds]):
                rng, lost, before = draft_rng(seed, d), [], 0
                for _ in sample_cases(d.template, rng, lost):
                    out.most_draws, before = max(out.most_draws, rng.draws - before), rng.draws
                out.lost += [f"seed {seed} {d.template.key}: {x}" for x in lost]
                out.drafts += 1
                out.draws += rng.draws
    return out


def sample_in_parallel(seeds, rounds: int) -> Sampled:
    """sample() over the seeds, split between up to 4 worker processes."""
    seeds = list(seeds)
    workers = max(1, min(4, os.cpu_count() or 1, len(seeds)))
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(sample, [seeds[k::workers] for k in range(workers)], [rounds] * workers))
    return Sampled(lost=[x for p in parts for x in p.lost], most_draws=max(p.most_draws for p in parts),
                   drafts=sum(p.drafts for p in parts), draws=sum(p.draws for p in parts))

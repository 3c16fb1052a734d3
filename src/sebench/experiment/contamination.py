"""`sebench contamination`: has the model seen the public instance (the released `zwc` package)?

The same tasks are asked closed-book on two instances: the original one (names from the release's
api_doc.jsonl, `--mapping-from`) and a fresh one (names from `--seed`). Both are built with the same
package behaviour and differ only in names, and the tasks are imported into both from the same
release files (`sebench tasks import --official`), so a model that never saw the release should score
the same on both. A model that memorised the public names scores higher on the original.

Stages meet through their public entry points: `builder.run.build_instance`,
`tasks.official.import_official`, `rollout.write_rollouts` and `judge.write_verdicts`. The files go
under `--out` (original/, fresh-seed<N>/, their rollouts and verdicts, contamination.json), and a
second call with the same `--out` reuses the instances and resumes the rollouts.

The gap is the mean over tasks of (accuracy on the original - accuracy on the fresh instance), paired
by task; its 95% interval is gap +- 1.96 standard errors of those per-task differences (within [-1, 1]).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from sebench.cliflags import option
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.models import EMBEDDED_DEFAULT
from sebench.protocols import PROTOCOLS
from sebench.records import SPLITS, Verdict, from_dict, iter_json_lines

log = logging.getLogger(__name__)
Z95 = 1.959964



@dataclass
class ContaminationConfig:
    """The options of `sebench contamination`; each field is one flag (underscores become dashes)."""

    model: str = option(EMBEDDED_DEFAULT, "the model: openai:<model>@<url> | hf:<path or hub id> | smollm2-135m | fake:...")
    mapping_from: Path = option(None, "the release's api_doc.jsonl: the public names of the original instance",
                              required=True)
    tasks: Path = option(None, "the release's folder (its --split file is used) or one task file, e.g. "
                             "datasets/test/single_test.jsonl", required=True)
    out: Path = option(None, "folder for the two instances, their rollouts and verdicts, and the result",
                     required=True)
    split: str = option("single_test", "which split of the tasks to ask", choices=SPLITS)
    seed: int = option(1, "seed of the fresh instance's names")
    n: int = option(1, "samples per task")
    temperature: float = option(0.0, "sampling temperature (0 = greedy)")
    max_tokens: int = option(1024, "the most tokens per answer")
    limit: int | None = option(None, "only the first N tasks")
    workers: int | None = option(None, "programs judged at once (default: the number of CPUs)")
    protocol: str = option("sebench", "prompts and judge: sebench's, or the original benchmark's (with "
                         "--original-repo; docs/protocols.md)", choices=tuple(PROTOCOLS))
    original_repo: Path | None = option(None, "your copy of the original SE-Bench repository (--protocol original)")
    audit: bool = option(True, "run the leak audit when building the instances", cli=False)


@dataclass(frozen=True)
class ContaminationResult:
    """The comparison of one model on the two instances."""

    model: str
    tasks: int  # tasks asked on each instance
    samples: int  # samples per task
    accuracy_original: float
    accuracy_fresh: float
    gap: float  # accuracy_original - accuracy_fresh
    ci_low: float  # 95% interval of the gap
    ci_high: float
    verdict: str  # one plain sentence
    original: str  # the instance folders
    fresh: str



def run(cfg: ContaminationConfig, backend=None) -> ContaminationResult:
    """Builds (or reuses) both instances, asks and judges the tasks on each, compares; writes the result."""
    from sebench.rollout import RolloutConfig, backend_options, get_backend, resolve_spec, write_rollouts

    out = Path(cfg.out)
    if backend is None:
        resolve_spec(cfg.model)  # an unknown spec fails before anything is built
    original = _instance(out / "original", cfg, mapping_from=Path(cfg.mapping_from))
    fresh = _instance(out / f"fresh-seed{cfg.seed}", cfg, mapping_from=None)
    own = backend is None
    rollout_cfgs = [RolloutConfig(data=inst.root, out=out / f"{inst.root.name}.rollouts.jsonl", split=cfg.split,
                                  mode="closed", model=cfg.model, n=cfg.n, temperature=cfg.temperature,
                                  max_tokens=cfg.max_tokens, limit=cfg.limit, progress=False,
                                  protocol=cfg.protocol, original_repo=cfg.original_repo)
                    for inst in (original, fresh)]
    backend = backend or get_backend(cfg.model, **backend_options(rollout_cfgs[0]))
    try:
        verdicts = [_judge(inst, write_rollouts(rc, backend=backend), out, cfg.workers, cfg.protocol)
                    for inst, rc in zip((original, fresh), rollout_cfgs)]
    finally:
        if own:
            backend.close()
    result = compare(cfg.model, verdicts[0], verdicts[1], original.root, fresh.root)
    (out / "contamination.json").write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")
    return result


def _instance(root: Path, cfg: ContaminationConfig, mapping_from: Path | None) -> Instance:
    """The instance at `root` with the tasks imported; built (closed-book needs no docs) when absent."""
    from sebench.builder import build_instance
    from sebench.tasks import SPLIT_FILE_NAMES, import_official, release_files

    if not Instance(root).manifest_path.is_file() or not Instance(root).split_path(cfg.split).is_file():
        task_files, _ = release_files([Path(cfg.tasks)])  # a folder's api_doc.jsonl names only the original
        chosen = [p for p in task_files if SPLIT_FILE_NAMES.get(p.name, cfg.split) == cfg.split]
        if not chosen:
            raise SebenchError(f"{cfg.tasks}: no {cfg.split} tasks here")
        # this command's own instance, left unfinished (no tasks imported) by an earlier run: built again
        build_instance(root, cfg.seed, mapping_from=mapping_from, docs=False, audit=cfg.audit, overwrite=True)
        import_official(chosen, root, split=cfg.split, overwrite=True)
    return Instance.open(root)


def _judge(inst: Instance, rollouts: Path, out: Path, workers: int | None, protocol: str) -> list[Verdict]:
    from sebench.judge import JudgeConfig, write_verdicts

    path, _ = write_verdicts(JudgeConfig(data=inst.root, rollouts=rollouts, workers=workers, progress=False,
                                           out=out / f"{inst.root.name}.verdicts.jsonl", protocol=protocol))
    return [from_dict(Verdict, obj, f"{path}:{n}") for n, obj in iter_json_lines(path)]


def compare(model: str, on_original: list[Verdict], on_fresh: list[Verdict], original: Path,
            fresh: Path) -> ContaminationResult:
    """The paired comparison: per task, the share of correct samples on each instance."""
    a, b = _per_task(on_original), _per_task(on_fresh)
    if set(a) != set(b) or not a:
        raise SebenchError(f"the two instances were not asked the same tasks ({len(a)} and {len(b)}); "
                           f"remove {Path(original).parent} and run again")
    diffs = [a[t] - b[t] for t in a]
    gap = sum(diffs) / len(diffs)
    spread = math.sqrt(sum((d - gap) ** 2 for d in diffs) / (len(diffs) - 1)) if len(diffs) > 1 else 0.0
    half = Z95 * spread / math.sqrt(len(diffs))
    low, high = max(-1.0, gap - half), min(1.0, gap + half)
    return ContaminationResult(
        model=model, tasks=len(a), samples=round(len(on_original) / len(a)),
        accuracy_original=sum(a.values()) / len(a), accuracy_fresh=sum(b.values()) / len(b),
        gap=gap, ci_low=low, ci_high=high, verdict=plain_verdict(gap, low, high, len(a)),
        original=str(original), fresh=str(fresh))


def _per_task(verdicts: list[Verdict]) -> dict[str, float]:
    counts: dict[str, list[int]] = {}
    for v in verdicts:
        c = counts.setdefault(v.task_id, [0, 0])
        c[0] += v.verdict == "correct"
        c[1] += 1
    return {t: right / total for t, (right, total) in counts.items()}


def plain_verdict(gap: float, low: float, high: float, tasks: int) -> str:
    points = f"{100 * gap:+.1f} points (95% interval {100 * low:+.1f} to {100 * high:+.1f}, {tasks} tasks)"
    if low > 0:
        return (f"likely contaminated: the public names score {points} above fresh names, so the model has "
                f"probably seen the released package or its tasks")
    if high < 0:
        return f"not contaminated: the public names score {points} below fresh names"
    return (f"no evidence of contamination: the gap is {points}, and the interval includes 0"
            + (" (few tasks: the interval is wide)" if high - low > 0.2 else ""))


def format_result(result: ContaminationResult) -> str:
    return "\n".join([
        f"model      {result.model}",
        f"tasks      {result.tasks} x {result.samples} sample(s), closed-book",
        f"original   {100 * result.accuracy_original:.1f}%  ({result.original})",
        f"fresh      {100 * result.accuracy_fresh:.1f}%  ({result.fresh})",
        f"gap        {100 * result.gap:+.1f} points, 95% interval "
        f"[{100 * result.ci_low:+.1f}, {100 * result.ci_high:+.1f}]",
        f"verdict    {result.verdict}",
    ])


def register(subparsers) -> None:
    from sebench.cliflags import config_command

    config_command(
        subparsers, "contamination", ContaminationConfig, _main,
        help="has the model seen the public instance? original vs fresh names, closed-book",
        description="Ask the same tasks closed-book on the original instance (the public names, from the "
                    "release's api_doc.jsonl) and on a fresh seeded instance; report the accuracy gap with "
                    "its 95% interval and a plain verdict.")


def _main(cfg: ContaminationConfig, _args) -> int:
    print(format_result(run(cfg)))
    return 0

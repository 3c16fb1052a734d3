"""The doc-literate base model: Open-SFT on functions disjoint from the studied ones, cached.

A small model does not use docs it is shown (SmolLM2-135M scores 0 open-book), so regimes that learn
from its open-book answers have nothing to learn from. The warm-up teaches it to read docs: Open-SFT
(`sebench train --regime open-sft`, reference solutions as answers) on the training tasks of functions
that the study never evaluates. Its checkpoint is the study's base model: open-book it should use the
docs of the studied functions, closed-book it has never seen them.

Excluded from the warm-up: the studied functions and their relatives (a function whose doc prose, before
See Also and Examples, names a studied one or is named by it, or that has the same summary line: the
package keeps NumPy's aliases, such as abs and absolute, under unrelated names). A training task is kept only if all its functions remain.

Skills (--skills): `docs` is the Open-SFT above; `tasks` adds task-writing examples, the format self-play
asks for (sebench.train.modelgen): the proposal prompt with one warm-up function's docs, answered with a
training task of that function written as a proposal (its query, signature, test inputs and reference
solution). They are the instance's own tasks of warm-up functions only (whose solution calls no other
package function), and an example whose text names an excluded function is dropped, so no studied
function, its name or its docs reach the warm-up.

Cache: `CACHE_DIR/<key>/checkpoint` (an HF checkpoint with train_config.json, train_data.jsonl,
loss.csv), `CACHE_DIR/<key>/instance` (the compact-docs copy it trained on, with --docs compact) and
`CACHE_DIR/<key>/warmup.json`, written last: an entry without it is unfinished and is trained again. The key is the sha256 of: the instance's manifest (which
holds the content hashes of its package, docs and tasks), with --docs compact the docs as shown, the sorted warm-up functions, and every
setting in `WarmupConfig.key_settings()` (the start model, and for a local model folder its content
hash). The same instance, studied functions and settings reuse the checkpoint across runs and seeds.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import logging
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from sebench.cliflags import option
from sebench.errors import SebenchError
from sebench.files import cache_root, file_sha256, tree_sha256, write_json
from sebench.instance import Instance
from sebench.records import ApiDoc
from sebench.rollout import DOCS_FORMS, compact_docs_sha256

log = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = cache_root() / "warmup"
KEY_VERSION = 1  # raise when the warm-up's data or training changes meaning, so old entries are not reused
SKILLS = ("docs", "tasks")



@dataclass
class WarmupConfig:
    """The options of `sebench warmup`; each field is one flag (underscores become dashes)."""

    data: Path = option(None, "the full instance directory (from `sebench build`); its train tasks are the warm-up's",
                      required=True)
    studied: str | None = option(None, "comma-separated public names of the studied functions (kept out of the warm-up)")
    studied_from: Path | None = option(None, "a studied subset directory (`sebench run`'s RUN_DIR/data): its manifest "
                                     "names the studied functions")
    model: str = option("smollm2-135m", "model to warm up: smollm2-135m (embedded), a local HF folder, or hf:<path>")
    docs: str = option("full", "docs in the warm-up prompts: full (the paper's) or compact (name, signature, summary, "
                     "one example: for small models)", choices=DOCS_FORMS)
    max_examples: int | None = option(240, "warm-up training examples at most (a seeded choice)")
    epochs: float = option(1.0, "passes over the warm-up examples")
    lr: float = option(2e-4, "learning rate")
    batch_size: int = option(8, "examples per optimizer step")
    max_length: int = option(2048, "longest prompt+answer in tokens; longer examples are left out")
    seed: int = option(0, "seed of the example choice and of training")
    skills: list[str] = option(factory=lambda: ["docs"], help="what the warm-up teaches, comma-separated: docs (use "
                               "the docs shown: Open-SFT) and tasks (write a task from a function's docs, the format "
                               "self-play asks for)", choices=SKILLS)
    task_examples: int = option(48, "task-writing examples at most (with --skills tasks; a seeded choice)", minimum=1)
    cache_dir: Path = option(DEFAULT_CACHE_DIR, "where warm-up checkpoints are cached")
    threads: int | None = option(None, "CPU threads for training (default: $SEBENCH_THREADS, else every core, fewer "
                               "while other processes keep some busy)", minimum=1)

    def __post_init__(self) -> None:
        self.data = Path(self.data)
        self.cache_dir = Path(self.cache_dir)
        if self.studied_from is not None:
            self.studied_from = Path(self.studied_from)
        if isinstance(self.skills, str):
            self.skills = [s.strip() for s in self.skills.split(",") if s.strip()]
        unknown = [s for s in self.skills if s not in SKILLS]
        if unknown or not self.skills:
            raise SebenchError(f"--skills: {', '.join(unknown) or 'none given'}; choose from {', '.join(SKILLS)}")
        self.skills = [s for s in SKILLS if s in self.skills]

    def studied_functions(self) -> list[str]:
        """The studied functions' public names, from --studied or --studied-from."""
        if self.studied:
            return sorted({name.strip() for name in self.studied.split(",") if name.strip()})
        if self.studied_from is not None:
            subset = Instance.open(self.studied_from).manifest().get("subset")
            if not subset or not subset.get("functions"):
                raise SebenchError(f"{self.studied_from}/manifest.json: no subset.functions (not a studied subset)")
            return sorted(subset["functions"])
        raise SebenchError("name the studied functions: --studied a,b,c or --studied-from SUBSET_DIR")

    def key_settings(self) -> dict:
        """The settings that decide the warm-up checkpoint (all but paths, the studied list and the threads; a docs-only
        warm-up leaves out the skills settings, so that it keeps the key it had before they existed)."""
        skip = {"data", "studied", "studied_from", "cache_dir", "threads"}
        if self.skills == ["docs"]:
            skip |= {"skills", "task_examples"}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in skip}


@dataclass(frozen=True)
class WarmupPlan:
    """What a warm-up trains on and where its checkpoint lives."""

    key: str
    functions: list[str]  # the warm-up functions (public names)
    excluded: list[str]  # studied functions and their relatives
    entry: Path  # CACHE_DIR/<key>

    @property
    def checkpoint(self) -> Path:
        return self.entry / "checkpoint"


def excluded_functions(docs: list[ApiDoc], studied: list[str]) -> list[str]:
    """The studied functions and their relatives (see the module docstring), sorted."""
    by_name = {d.name: d for d in docs}
    unknown = [name for name in studied if name not in by_name]
    if unknown:
        raise SebenchError(f"studied function(s) {', '.join(unknown)} are not in the instance's docs")
    summaries = {_summary(by_name[name]) for name in studied}
    excluded = set(studied)
    for doc in docs:
        if _summary(doc) in summaries or any(_mentions(doc, name) or _mentions(by_name[name], doc.name)
                                             for name in studied):
            excluded.add(doc.name)
    return sorted(excluded)


def _summary(doc: ApiDoc) -> str:
    from sebench.rollout import compact_doc

    return compact_doc(doc).doc.split("\n", 1)[0].strip()


def _mentions(doc: ApiDoc, name: str) -> bool:
    """Whether the doc's prose (before its See Also and Examples sections) names `name`."""
    prose = doc.doc
    for section in ("See Also", "Examples"):
        prose = prose.split(section, 1)[0]
    return doc.name != name and re.search(re.escape(name) + r"(?![\w.])", prose) is not None


def plan(cfg: WarmupConfig) -> WarmupPlan:
    """The warm-up functions and the cache key for `cfg` (no training)."""
    instance = Instance.open(cfg.data)
    docs = instance.api_docs()
    excluded = excluded_functions(docs, cfg.studied_functions())
    functions = sorted(d.name for d in docs if d.name not in set(excluded))
    settings = cfg.key_settings()
    model_path = Path(cfg.model)
    if model_path.is_dir():
        settings["model_sha256"] = tree_sha256(model_path)
    shown = {"compact_docs": compact_docs_sha256(docs)} if cfg.docs == "compact" else {}
    blob = json.dumps({"version": KEY_VERSION, "instance": file_sha256(instance.manifest_path),
                       "functions": functions, "settings": settings, **shown}, sort_keys=True, default=str)
    key = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]
    return WarmupPlan(key=key, functions=functions, excluded=excluded, entry=cfg.cache_dir / key)


def warm_up(cfg: WarmupConfig) -> Path:
    """The warm-up checkpoint for `cfg`: from the cache if there, else trained and cached; returns its path."""
    p = plan(cfg)
    if (p.entry / "warmup.json").is_file():
        log.info("warm-up %s: cached at %s", p.key, p.checkpoint)
        return p.checkpoint
    cfg.cache_dir.mkdir(parents=True, exist_ok=True)
    with (cfg.cache_dir / f"{p.key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process warming up the same key: wait, then reuse
        if not (p.entry / "warmup.json").is_file():
            _train(cfg, p)
    return p.checkpoint


def _train(cfg: WarmupConfig, p: WarmupPlan) -> None:
    from sebench.rollout import write_compact_instance
    from sebench.train import TrainConfig, train_model

    shutil.rmtree(p.entry, ignore_errors=True)  # an unfinished warm-up (no warmup.json) is redone
    data = cfg.data
    if cfg.docs == "compact":
        data = write_compact_instance(Instance.open(cfg.data), p.entry / "instance")
    log.info("warm-up %s: Open-SFT on %d functions (%d excluded), %s docs", p.key, len(p.functions),
             len(p.excluded), cfg.docs)
    started = time.time()
    writing = []
    if "tasks" in cfg.skills:
        writing = task_writing_examples(Instance.open(data), p.functions, p.excluded, cfg.task_examples, cfg.seed)
        log.info("warm-up %s: %d task-writing examples", p.key, len(writing))
    train_model(TrainConfig(
        data=data, regime="open-sft", out=p.checkpoint, model=cfg.model, train_source="reference",
        functions=p.functions, max_examples=cfg.max_examples if "docs" in cfg.skills else 0, epochs=cfg.epochs,
        lr=cfg.lr, batch_size=1, grad_accum=cfg.batch_size,  # one example per forward (prompts with docs are
        max_length=cfg.max_length, seed=cfg.seed,  # long: docs/presets.md); the update is the same
        threads=cfg.threads,
    ), extra_sft=writing)
    write_json(p.entry / "warmup.json", {  # written last: it marks the entry complete
        "key": p.key, "settings": cfg.key_settings(), "instance": str(cfg.data),
        "instance_manifest_sha256": file_sha256(Instance.open(cfg.data).manifest_path),
        "studied": cfg.studied_functions(), "excluded": p.excluded, "functions": p.functions,
        "seconds": round(time.time() - started, 1),
    })


def task_writing_examples(instance: Instance, functions: list[str], excluded: list[str], count: int,
                          seed: int) -> list[dict]:
    """Up to `count` examples of writing a task (a seeded choice): modelgen's proposal prompt with one
    warm-up function's docs, answered with a training task of that function (see the module docstring)."""
    from sebench.train import MIN_CASES, seeded_choice, writing_example

    allowed = set(functions)
    called = re.compile(rf"(?<![\w.]){re.escape(instance.package_name)}(?:\.\w+)+")
    named = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, excluded)) + r")(?![\w])") if excluded else None
    tasks = [t for t in instance.tasks("train")
             if t.is_valid and len(t.selected_functions) == 1 and t.selected_functions[0] in allowed
             and len(t.test_cases) >= MIN_CASES and set(called.findall(t.reference_solution)) == set(t.selected_functions)]
    examples = []
    for task in tasks:
        example = writing_example(instance, task.selected_functions, task)
        if named is None or not named.search(example["prompt"][0]["content"] + example["completion"][0]["content"]):
            examples.append(example)
    return seeded_choice(examples, count, seed)

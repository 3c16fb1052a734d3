"""Generates an instance's task splits from the templates (deterministic by seed, no network).

Plan (see `plan`): every template text is a *variant*. For each function, one single-function variant is
reserved for the single-function test split; the others feed the train split, which gets at least one
task per function before any function gets a second. Multi-function templates (pipelines) are split
whole: a pipeline template serves either train or the multi-function test split, never both.
Verification (see `_realize`): each drafted task's reference runs on its generated inputs twice, with the
package and with NumPy; cases where either fails or they disagree are dropped, and a task needs
`template.cases` agreeing cases with at least two distinct outputs, else the next draft of its slot is
tried. Hygiene (see `hygiene_problems`): no test input equals a train input of the same template, no
test text is close to a train text, every function of a test task has train tasks.
"""

from __future__ import annotations

import logging
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, write_records
from sebench.tasks import plain
from sebench.tasks.execute import Job, run_jobs
from sebench.tasks.spec import CONSTRUCTOR, Template, input_string, numpy_names, render_code

log = logging.getLogger(__name__)

MAX_CASES = 10
TRAIN_MULTI_SHARE = 0.15  # share of the train split made of multi-function tasks
SIMILAR_TEXT = 0.6  # word-trigram Jaccard above which two statements count as near-identical
ROUNDS = 4  # drafts tried per slot


@dataclass(frozen=True)
class TaskSizes:
    train: int = 720
    single: int = 259
    multiple: int = 300


@dataclass(frozen=True)
class Draft:
    template: Template
    text: int
    split: str
    attempt: int

    @property
    def variant(self) -> tuple[str, int]:
        return (self.template.key, self.text)


def write_task_files(instance: Instance, seed: int, sizes: TaskSizes, workers: int = 2) -> dict[str, int]:
    """Writes the three split files of `instance`; returns {split: number of tasks}."""
    tasks = generate(instance.package_dir, instance.mapping(), seed, sizes, workers=workers)
    for split, items in tasks.items():
        write_records(instance.split_path(split), items)
    return {split: len(items) for split, items in tasks.items()}


def generate(package_dir: Path, mapping: dict, seed: int, sizes: TaskSizes, workers: int = 2,
             templates: list[Template] | None = None) -> dict[str, list[Task]]:
    """{split: tasks} for the instance whose package lives in package_dir and whose names are mapping."""
    from sebench.tasks.families import all_templates

    names = mapping["functions"]
    usable = [t for t in (templates if templates is not None else all_templates())
              if all(f in names for f in t.functions)]
    ctx = _Context(package_dir, mapping, seed, workers)
    slots = plan(usable, seed, sizes, list(names))
    train = ctx.fill(slots["train"], avoid={})
    train_multi = ctx.fill(slots["train_multi"], avoid={})
    n_multi = min(len(train_multi), round(sizes.train * TRAIN_MULTI_SHARE))
    train = train[:sizes.train - n_multi]
    train += train_multi[:sizes.train - len(train)]
    seen_inputs = defaultdict(set)
    for task, draft in train:
        seen_inputs[draft.template.key].update(c["input"] for c in task.test_cases)
    out = {"train": [t for t, _ in train]}
    for split, target in (("single_test", sizes.single), ("multiple_test", sizes.multiple)):
        done = [t for t, _ in ctx.fill(slots[split], avoid=seen_inputs)]
        kept = _drop_similar(done, out["train"])
        if len(kept) < target:
            log.warning("%s: %d tasks instead of %d (not enough verified templates)", split, len(kept), target)
        out[split] = kept[:target]
    return {split: _numbered(split, items) for split, items in out.items()}


def plan(templates: list[Template], seed: int, sizes: TaskSizes, functions: list[str]) -> dict[str, list]:
    """{group: [slot, ...]}; a slot is the list of drafts to try, in order, for one task.

    Groups: "train" (train-only templates, then single-function variants), "train_multi",
    "single_test", "multiple_test". Each group plans a few spare slots beyond its target, used when
    some drafts never verify; `generate` keeps the first ones that do, in plan order.
    """
    rng = random.Random(f"plan:{seed}")
    by_fn: dict[str, list[tuple[Template, int]]] = defaultdict(list)
    pipelines: list[Template] = []
    train_only: list[tuple[Template, int]] = []
    for t in templates:
        if "train" in t.tags:
            train_only.extend((t, k) for k in range(len(t.texts)))
        elif t.kind == "single":
            by_fn[t.focus[0]].extend((t, k) for k in range(len(t.texts)))
        else:
            pipelines.append(t)
    fns = [f for f in functions if by_fn.get(f)]
    rng.shuffle(fns)
    for f in fns:
        rng.shuffle(by_fn[f])

    # Single-function test: one reserved variant per function, always leaving one for train; a
    # second round (other variants) only when more tasks than functions are asked for.
    reserved: dict[str, list] = defaultdict(list)
    single = []
    for depth in range(3):
        if len(single) >= _with_spares(sizes.single):
            break
        for f in fns:
            left = [v for v in by_fn[f] if v not in reserved[f]]
            if len(left) >= 2 and len(single) < _with_spares(sizes.single):
                reserved[f].append(left[0])
                single.append(_slot(left[0], "single_test"))

    # Multi-function templates: whole families (templates that share a statement pattern, e.g. all
    # "normalise -> threshold -> count" combinations) go to train or to the multi-function test split,
    # so that no test statement is a near copy of a train one.
    families: dict[str, list[Template]] = defaultdict(list)
    for t in pipelines:
        families[".".join(t.key.split(".")[:2])].append(t)
    names_ = sorted(families)
    rng.shuffle(names_)
    n_train_multi = min(round(sizes.train * TRAIN_MULTI_SHARE), len(pipelines) // 4)
    train_pipes, test_pipes = [], []
    for name in names_:
        (train_pipes if len(train_pipes) < n_train_multi else test_pipes).extend(families[name])
    n_train_multi = min(n_train_multi, len(train_pipes))
    multiple = _cycle_slots([(t, k) for t in test_pipes for k in range(len(t.texts))],
                            _with_spares(sizes.multiple), "multiple_test", rng)
    train_multi = _cycle_slots([(t, k) for t in train_pipes for k in range(len(t.texts))],
                               _with_spares(n_train_multi), "train", rng)

    # Train: train-only variants, every function once, then each function's next unused variant;
    # a variant repeats (with fresh inputs) only when all of its function's variants have been used.
    train = [_slot(v, "train") for v in train_only]
    target = _with_spares(max(0, sizes.train - n_train_multi))
    pools = {f: [v for v in by_fn[f] if v not in reserved[f]] for f in fns}
    k = 0
    while len(train) < target and any(pools.values()):
        fresh = [f for f in fns if k < len(pools[f])]
        for f in fresh or [f for f in fns if pools[f]]:
            if len(train) < target:
                pool = pools[f]
                train.append(_slot(pool[k % len(pool)], "train", ROUNDS * (k // len(pool))))
        k += 1
    return {"train": train, "train_multi": train_multi, "single_test": single, "multiple_test": multiple}


def _with_spares(n: int) -> int:
    return n + (max(3, n // 20) if n else 0)


def _slot(variant: tuple[Template, int], split: str, first_attempt: int = 0) -> list[Draft]:
    t, k = variant
    return [Draft(t, k, split, first_attempt + a) for a in range(ROUNDS)]


def _cycle_slots(variants: list, n: int, split: str, rng: random.Random) -> list:
    if not variants or n <= 0:
        return []
    # first text of every template (shuffled), then second texts, ...: distinct templates come first
    layers = defaultdict(list)
    for t, k in variants:
        layers[k].append((t, k))
    variants = []
    for k in sorted(layers):
        rng.shuffle(layers[k])
        variants += layers[k]
    return [_slot(variants[i % len(variants)], split, ROUNDS * (i // len(variants))) for i in range(n)]


class _Context:
    def __init__(self, package_dir: Path, mapping: dict, seed: int, workers: int):
        self.package_dir = package_dir
        self.mapping = mapping
        self.names = mapping["functions"]
        self.package = mapping["package"]
        self.constructor = mapping.get("constructor") or self.names[CONSTRUCTOR]
        self.repr_name = self.constructor.rsplit(".", 1)[-1]  # the package's arrays print as ctor(...)
        self.seed = seed
        self.workers = workers

    def fill(self, slots: list[list[Draft]], avoid: dict) -> list[tuple[Task, Draft]]:
        """Realizes each slot with its first draft that verifies; slots that never do are dropped."""
        done: dict[int, tuple[Task, Draft]] = {}
        for round_ in range(ROUNDS):
            todo = [(i, slot[round_]) for i, slot in enumerate(slots) if i not in done and round_ < len(slot)]
            if not todo:
                break
            for (i, draft), task in zip(todo, self._realize([d for _, d in todo], avoid)):
                if task is not None:
                    done[i] = (task, draft)
        missing = len(slots) - len(done)
        if missing:
            log.info("%d of %d %s slots (spares included) not filled", missing, len(slots),
                     slots[0][0].split if slots else "")
        return [done[i] for i in sorted(done)]

    def _realize(self, drafts: list[Draft], avoid: dict) -> list[Task | None]:
        jobs, prepared = [], []
        for n, d in enumerate(drafts):
            inputs = self._inputs(d, avoid.get(d.template.key, ()))
            t = d.template
            pkg_code = render_code(t, self.names, self.package)
            np_code = render_code(t, numpy_names(t.functions), "numpy", "np")
            np_inputs = [s for _, s in inputs]
            jobs.append(Job(f"{n}p", pkg_code, t.entry, [s for s, _ in inputs], "package", self.package))
            jobs.append(Job(f"{n}n", np_code, t.entry, np_inputs, "numpy", "numpy"))
            prepared.append((d, inputs, pkg_code))
        results = run_jobs(self.package_dir, jobs, self.workers)
        return [self._task(d, inputs, code, results[f"{n}p"], results[f"{n}n"])
                for n, (d, inputs, code) in enumerate(prepared)]

    def _inputs(self, d: Draft, avoid) -> list[tuple[str, str]]:
        """[(input with public constructor, input with NumPy's)] for the draft, deduplicated."""
        t = d.template
        rng = random.Random(f"{self.seed}|{d.split}|{t.key}|{d.text}|{d.attempt}")
        seen, out = set(), []
        for i in range(t.tries):
            kwargs = t.gen(rng, i)
            text = input_string(kwargs, t.params, self.constructor)
            if text in seen or text in avoid:
                continue
            seen.add(text)
            out.append((text, input_string(kwargs, t.params, "np.array")))
        return out

    def _task(self, d: Draft, inputs, code: str, pkg_cases: list, np_cases: list) -> Task | None:
        t = d.template
        cases, expected = [], []
        for (text, _), p, q in zip(inputs, pkg_cases, np_cases):
            if p["ok"] and q["ok"] and "repr" in t.tags and isinstance(q["value"], str):
                q = {"ok": True, "value": q["value"].replace("array(", f"{self.repr_name}(")}
            if p["ok"] and q["ok"] and plain.same(p["value"], q["value"]):
                cases.append({"input": text, "output": plain.printed(p["value"])})
                expected.append(p["value"])
        cases, expected = cases[:MAX_CASES], expected[:MAX_CASES]
        if len(cases) < t.cases or len({c["output"] for c in cases}) < 2:
            errors = {c.get("error") for c in pkg_cases + np_cases if not c["ok"]}
            log.debug("dropped draft %s/%d (%d cases agree; errors: %s)", t.key, d.text, len(cases),
                      "; ".join(sorted(e for e in errors if e))[:300])
            return None
        example = f">>> {t.entry}({cases[0]['input']})\n{cases[0]['output']}"
        return Task(
            task_id="", split=d.split, kind=t.kind, query=t.texts[d.text], function_name=t.signature(),
            entry_point=t.entry, example=example, test_cases=cases,
            right_exe_result="#".join(c["output"] for c in cases),
            selected_functions=[self.names[f] for f in t.focus], is_valid=True,
            reference_solution=code, expected=expected,
        )


def _numbered(split: str, tasks: list[Task]) -> list[Task]:
    from dataclasses import replace

    return [replace(t, task_id=f"{split}-{i:04d}") for i, t in enumerate(tasks)]


_WORD = re.compile(r"[a-z0-9]+")


def trigrams(text: str) -> frozenset:
    words = _WORD.findall(text.lower())
    return frozenset(zip(words, words[1:], words[2:]))


def similarity(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _drop_similar(tests: list[Task], train: list[Task]) -> list[Task]:
    """Drops test tasks whose statement is near-identical to a train statement of a shared function."""
    by_fn = defaultdict(list)
    for t in train:
        grams = trigrams(t.query)
        for f in t.selected_functions:
            by_fn[f].append(grams)
    kept = []
    for t in tests:
        grams = trigrams(t.query)
        if any(similarity(grams, g) > SIMILAR_TEXT for f in t.selected_functions for g in by_fn[f]):
            log.warning("dropped test task on %s: statement too close to a train task", t.selected_functions)
            continue
        kept.append(t)
    return kept


def hygiene_problems(tasks: dict[str, list[Task]], functions: list[str] | None = None) -> list[str]:
    """What breaks the split rules (empty when all hold); used by the tests and `sebench build`."""
    problems = []
    train = tasks.get("train", [])
    train_fns = {f for t in train for f in t.selected_functions}
    if functions is not None:
        problems += [f"no train task for {f}" for f in functions if f not in train_fns]
    train_inputs = defaultdict(set)
    for t in train:
        train_inputs[(tuple(t.selected_functions), t.reference_solution)].update(
            c["input"] for c in t.test_cases)
    for split in ("single_test", "multiple_test"):
        for t in tasks.get(split, []):
            for f in t.selected_functions:
                if f not in train_fns:
                    problems.append(f"{t.task_id}: {f} has no train task")
            shared = train_inputs.get((tuple(t.selected_functions), t.reference_solution), set())
            if shared & {c["input"] for c in t.test_cases}:
                problems.append(f"{t.task_id}: shares template and inputs with a train task")
            grams = trigrams(t.query)
            for u in train:
                if set(u.selected_functions) & set(t.selected_functions) and \
                        similarity(grams, trigrams(u.query)) > SIMILAR_TEXT:
                    problems.append(f"{t.task_id}: statement near-identical to {u.task_id}")
                    break
    return problems


def check_sizes(sizes: TaskSizes) -> None:
    for name in ("train", "single", "multiple"):
        if getattr(sizes, name) < 0:
            raise SebenchError(f"task sizes: {name} must be >= 0")

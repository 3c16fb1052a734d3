"""Generates an instance's task splits from the templates (deterministic by seed, no network).

Plan (see `plan`): every template text is a *variant*. For each function, one single-function variant is
reserved for the single-function test split; the others feed the train split, which gets at least one
task per function before any function gets a second. Multi-function templates (pipelines) are split
whole: a pipeline template serves either train or the multi-function test split, never both.
Verification (see `_realize`): each drafted task's reference runs on its generated inputs twice, with the
package and with NumPy; cases where either fails or they disagree are dropped, and a task needs
`template.cases` agreeing cases with at least two distinct outputs, else the next draft of its slot is
tried. Inputs are drawn with a draw budget per test case (see `InputDrawer`), so a generator that loops
loses that case instead of hanging the build; a template none of whose drafts verify is dropped with its
reason logged. Hygiene (see `hygiene_problems`): no test input equals a train input of the same template, no
test text is close to a train text, every function of a test task has train tasks.
"""

from __future__ import annotations

import logging
import os
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from sebench import values
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, write_records
from sebench.tasks import gens
from sebench.tasks.execute import Job, run_jobs
from sebench.tasks.spec import (
    CONSTRUCTOR,
    Template,
    input_string,
    original_names,
    render_code,
)

log = logging.getLogger(__name__)

MAX_CASES = 10
# a case is kept when the package and NumPy return the same value, of the same number types, to these tolerances
AGREE_REL, AGREE_ABS = 1e-9, 1e-12
TRAIN_MULTI_SHARE = 0.15  # share of the train split made of multi-function tasks
SIMILAR_TEXT = 0.6  # word-trigram Jaccard above which two statements count as near-identical
ROUNDS = 4  # drafts tried per slot
DRAWS_PER_CASE = 5000  # random draws one test case's generator may make (legitimate ones need < 200)


@dataclass(frozen=True)
class TaskSizes:
    """How many tasks each split asks for: training, single-function test and multi-function test."""

    train: int = 720
    single: int = 259
    multiple: int = 300


@dataclass(frozen=True)
class Draft:
    template: Template
    text: int
    split: str
    attempt: int


@dataclass(frozen=True)
class DrawnInputs:
    """A draft's distinct test inputs as (with the public constructor, with NumPy's), the random draws
    they took, and the cases lost on the way (generator errors, exhausted draw budgets)."""

    inputs: list[tuple[str, str]]
    draws: int
    lost: list[str]


def draft_rng(seed: int, d: Draft) -> gens.BudgetedRandom:
    """The draft's own random stream (so a draft draws the same inputs whatever else is drawn)."""
    return gens.BudgetedRandom(f"{seed}|{d.split}|{d.template.key}|{d.text}|{d.attempt}", DRAWS_PER_CASE)


def sample_cases(t: Template, rng: gens.BudgetedRandom, lost: list[str]) -> Iterator[tuple[int, dict]]:
    """(i, {param: value}) for the template's cases i < t.tries, each within DRAWS_PER_CASE draws; a case
    whose generator fails or runs out of draws is skipped and described in `lost`."""
    for i in range(t.tries):
        rng.allow(DRAWS_PER_CASE)
        try:
            yield i, t.gen(rng, i)
        except gens.DrawsExhausted as e:
            lost.append(f"case {i}: {e}")
        except Exception as e:  # noqa: BLE001 - a generator bug costs its case, never the build
            lost.append(f"case {i}: generator error {type(e).__name__}: {e}")


class InputDrawer:
    """Draws the test inputs of drafts. Train drafts record their inputs; test drafts avoid the inputs
    that train drafts of the same template drew, so train drafts must be drawn first."""

    def __init__(self, seed: int, constructor: str):
        self.seed = seed
        self.constructor = constructor
        self.train_inputs: dict[str, set] = defaultdict(set)

    def draw(self, d: Draft) -> DrawnInputs:
        t = d.template
        drawn = self.train_inputs[t.key]
        avoid = () if d.split == "train" else drawn
        rng = draft_rng(self.seed, d)
        seen, out, lost = set(), [], []
        for i, kwargs in sample_cases(t, rng, lost):
            try:  # a library's generator may give a parameter no value, or a value with no literal (a set)
                text, original = (input_string(kwargs, t.params, c) for c in (self.constructor, "np.array"))
            except (KeyError, TypeError, AttributeError) as e:
                lost.append(f"case {i}: generator gave {type(e).__name__}: {e} (parameters {', '.join(t.params)})")
                continue
            if text in seen or text in avoid:
                continue
            seen.add(text)
            if d.split == "train":
                drawn.add(text)
            out.append((text, original))
        return DrawnInputs(out, rng.draws, lost)


def write_task_files(instance: Instance, seed: int, sizes: TaskSizes, workers: int = 2,
                     templates: list[Template] | None = None, original_path: str = "") -> dict[str, int]:
    """Writes the three split files of `instance`; returns {split: number of tasks}. `templates` default
    to NumPy's; `original_path` is the folder of a library's original that is not installed."""
    mapping = instance.mapping()
    package_dir = Path(f"{instance.package_dir}{os.pathsep}{original_path}") if original_path else instance.package_dir
    dropped: dict[str, str] = {}
    tasks = generate_tasks(package_dir, mapping, seed, sizes, workers=workers, templates=templates, dropped=dropped)
    functions = [*mapping["functions"].values(), *mapping.get("types", {}).values()]
    required = functions if sizes.train >= 2 * len(functions) else None
    problems = hygiene_problems(tasks, required)
    if problems:  # the planner prevents all but a library's function that no template gives a train task
        raise SebenchError(_untrained_reason(tasks, required or [], mapping, templates, dropped)
                           or f"task generation broke the split rules: {'; '.join(problems[:5])}")
    for split, items in tasks.items():
        write_records(instance.split_path(split), items)
    return {split: len(items) for split, items in tasks.items()}


def _untrained_reason(tasks: dict, required: list[str], mapping: dict, templates: list[Template] | None,
                      dropped: dict[str, str]) -> str | None:
    """One line on the first function of a library (not NumPy) left without a train task: no template
    calls it alone, or its templates never verified (the last reason); None when neither explains it."""
    if templates is None:
        return None
    trained = {f for t in tasks.get("train", []) for f in t.selected_functions}
    original = {public: key for key, public in {**mapping["functions"], **mapping.get("types", {})}.items()}
    for public in (f for f in required if f not in trained):
        key, where = original[public], f"library {mapping.get('library', '?')}: field 'templates'"
        own = [t for t in templates if t.kind == "single" and t.focus == (key,)]
        if not own:
            return (f"{where}: no single-function template calls {key}; the build gives every surface name a "
                    "train task (add a template, or build with --no-tasks)")
        failed = [t.key for t in own if t.key in dropped]
        if failed:
            return f"{where}: template '{failed[0]}' ({key}): no draft verified: {dropped[failed[0]]}"
    return None


def generate_tasks(package_dir: Path, mapping: dict, seed: int, sizes: TaskSizes, workers: int = 2,
             templates: list[Template] | None = None, dropped: dict[str, str] | None = None) -> dict[str, list[Task]]:
    """{split: tasks} for the instance whose package lives in package_dir and whose names are mapping.
    `dropped`, when given, receives each template none of whose drafts verified, with the last reason."""
    from sebench.tasks.families import all_templates

    for name in ("train", "single", "multiple"):
        if getattr(sizes, name) < 0:
            raise SebenchError(f"task sizes: {name} must be >= 0, got {getattr(sizes, name)}")

    names = {**mapping["functions"], **mapping.get("types", {})}
    usable = [t for t in (templates if templates is not None else all_templates())
              if all(f in names for f in t.functions)]
    ctx = _Context(package_dir, mapping, seed, workers)
    slots = plan(usable, seed, sizes, list(names))
    done = ctx.fill_all(slots)  # one batch of reference runs per round, for all groups at once
    if dropped is not None:
        verified = {draft.template.key for group in done.values() for _, draft in group}
        dropped.update({key: why for key, why in ctx.problems.items() if key not in verified})
    n_multi = min(len(done["train_multi"]), round(sizes.train * TRAIN_MULTI_SHARE))
    train = done["train"][:sizes.train - n_multi]
    train += done["train_multi"][:sizes.train - len(train)]
    out = {"train": [t for t, _ in train]}
    covered = {f for t in out["train"] for f in t.selected_functions}
    train_inputs = defaultdict(set)
    for task, draft in train:
        train_inputs[draft.template.key].update(c["input"] for c in task.test_cases)
    for split, target in (("single_test", sizes.single), ("multiple_test", sizes.multiple)):
        kept = []
        for task, draft in done[split]:
            if not covered.issuperset(task.selected_functions):  # must be learnable from train
                continue
            task = _without_inputs(task, train_inputs[draft.template.key], draft.template.cases)
            if task is not None:
                kept.append(task)
        kept = _drop_similar(kept, out["train"])
        if len(kept) < target:
            log.warning("%s: %d tasks instead of %d (not enough verified templates)", split, len(kept), target)
        out[split] = kept[:target]
    return {split: _numbered(split, items) for split, items in out.items()}


def plan(templates: list[Template], seed: int, sizes: TaskSizes, functions: list[str]) -> dict[str, list]:
    """{group: [slot, ...]}; a slot is the list of drafts to try, in order, for one task.

    Groups: "train" (train-only templates, then single-function variants), "train_multi",
    "single_test", "multiple_test". Each group plans a few spare slots beyond its target, used when
    some drafts never verify; `generate_tasks` keeps the first ones that do, in plan order.
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

    # Multi-function templates: whole families (templates that share a statement pattern, e.g. all
    # "normalise -> threshold -> count" combinations) go to train or to the multi-function test split,
    # so that no test statement is a near copy of a train one.
    families: dict[str, list[Template]] = defaultdict(list)
    for t in pipelines:
        families[".".join(t.key.split(".")[:2])].append(t)
    family_names = sorted(families)
    rng.shuffle(family_names)
    n_train_multi = min(round(sizes.train * TRAIN_MULTI_SHARE), len(pipelines) // 4)
    train_pipes, test_pipes = [], []
    for name in family_names:
        (train_pipes if len(train_pipes) < n_train_multi else test_pipes).extend(families[name])
    n_train_multi = min(n_train_multi, len(train_pipes))
    train_multi = _cycle_slots(_layered([(t, k) for t in train_pipes for k in range(len(t.texts))], rng),
                               _with_spares(n_train_multi), "train")
    test_variants = _layered([(t, k) for t in test_pipes for k in range(len(t.texts))], rng)

    # Small sizes: train cannot cover every function, so the test splits keep to the functions that
    # train covers (its first pass runs over `fns` in order): pipelines are picked greedily to add few
    # new functions, and those functions move to the front of `fns`.
    budget = max(0, sizes.train - n_train_multi - len(train_only))
    if budget < len(fns):
        chosen, needed = _pick_within(test_variants, _with_spares(sizes.multiple), budget)
        multiple = [_slot(v, "multiple_test") for v in chosen]
        fns = [f for f in fns if f in needed] + [f for f in fns if f not in needed]
    else:
        multiple = _cycle_slots(test_variants, _with_spares(sizes.multiple), "multiple_test")

    # Single-function test: one reserved variant per function, always leaving one for train; a
    # second round (other variants) only when more tasks than functions are asked for.
    reserved: dict[str, list] = defaultdict(list)
    single = []
    for _depth in range(3):
        if len(single) >= _with_spares(sizes.single):
            break
        for f in fns[:budget]:
            left = [v for v in by_fn[f] if v not in reserved[f]]
            if len(left) >= 2 and len(single) < _with_spares(sizes.single):
                reserved[f].append(left[0])
                single.append(_slot(left[0], "single_test"))

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


def _layered(variants: list, rng: random.Random) -> list:
    """First texts of all templates (shuffled), then second texts, ...: distinct templates first."""
    layers = defaultdict(list)
    for t, k in variants:
        layers[k].append((t, k))
    out = []
    for k in sorted(layers):
        rng.shuffle(layers[k])
        out += layers[k]
    return out


def _cycle_slots(variants: list, n: int, split: str) -> list:
    """n slots cycling over variants; a repeated variant gets fresh inputs (later attempts)."""
    if not variants or n <= 0:
        return []
    return [_slot(variants[i % len(variants)], split, ROUNDS * (i // len(variants))) for i in range(n)]


def _pick_within(variants: list, n: int, budget: int) -> tuple[list, set]:
    """Up to n variants whose functions together stay within `budget` functions, greedily adding the
    variant that brings the fewest new functions (earlier variants first on ties)."""
    chosen, needed = [], set()
    left = list(variants)
    while left and len(chosen) < n:
        best = min(range(len(left)), key=lambda i: (len(set(left[i][0].focus) - needed), i))
        fns = set(left[best][0].focus)
        if len(needed | fns) > budget:
            break
        chosen.append(left.pop(best))
        needed |= fns
    return chosen, needed


class _Context:
    def __init__(self, package_dir: Path, mapping: dict, seed: int, workers: int):
        self.package_dir = package_dir
        self.mapping = mapping
        self.names = {**mapping["functions"], **mapping.get("types", {})}
        self.package = mapping["package"]
        self.constructor = mapping.get("constructor") or self.names.get(CONSTRUCTOR, "")
        self.repr_name = self.constructor.rsplit(".", 1)[-1]  # the package's arrays print as ctor(...)
        self.workers = workers
        self.drawer = InputDrawer(seed, self.constructor)
        self.problems: dict[str, str] = {}  # template key -> why its latest draft failed
        self.lossy: set[str] = set()  # templates whose generator lost cases (warned once each)

    def fill_all(self, groups: dict[str, list[list[Draft]]]) -> dict[str, list[tuple[Task, Draft]]]:
        """Realizes each slot with its first draft that verifies; slots that never do are dropped.
        Round r runs the r-th draft of every unfilled slot of every group in one batch; train drafts are
        prepared first, so that test drafts avoid the inputs they drew."""
        done: dict[tuple[str, int], tuple[Task, Draft]] = {}
        order = sorted(groups, key=lambda g: not g.startswith("train"))
        for round_ in range(ROUNDS):
            todo = [((name, i), slot[round_]) for name in order for i, slot in enumerate(groups[name])
                    if (name, i) not in done and round_ < len(slot)]
            if not todo:
                break
            for (where, draft), task in zip(todo, self._realize([d for _, d in todo])):
                if task is not None:
                    done[where] = (task, draft)
        out = {}
        for name, slots in groups.items():
            out[name] = [done[(name, i)] for i in range(len(slots)) if (name, i) in done]
            if len(out[name]) < len(slots):
                log.info("%d of %d %s slots (spares included) not filled", len(slots) - len(out[name]),
                         len(slots), name)
        verified = {draft.template.key for task, draft in done.values()}
        for key in sorted(set(self.problems) - verified):
            log.warning("template %s dropped: no draft verified (last: %s)", key, self.problems[key])
        return out

    def _realize(self, drafts: list[Draft]) -> list[Task | None]:
        """The verified task of each draft (None where it failed, with the reason kept in problems)."""
        jobs, prepared = [], []
        for n, d in enumerate(drafts):
            t = d.template
            drawn = self.drawer.draw(d)
            if drawn.lost and t.key not in self.lossy:
                self.lossy.add(t.key)
                log.warning("template %s: %d of %d cases lost while drawing inputs, e.g. %s", t.key,
                            len(drawn.lost), t.tries, drawn.lost[0])
            if len(drawn.inputs) < t.cases:  # cannot verify: not worth running
                lost = f"; {len(drawn.lost)} cases lost, e.g. {drawn.lost[0]}" if drawn.lost else ""
                self.problems[t.key] = f"{len(drawn.inputs)} distinct inputs, {t.cases} needed{lost}"
                continue
            pkg_code = render_code(t, self.names, self.package)
            np_code = render_code(t, *original_names(t))
            jobs.append(Job(f"{n}p", pkg_code, t.entry, [s for s, _ in drawn.inputs], "package", self.package))
            jobs.append(Job(f"{n}n", np_code, t.entry, [s for _, s in drawn.inputs], "numpy", t.library))
            prepared.append((n, d, drawn.inputs, pkg_code))
        out: list[Task | None] = [None] * len(drafts)
        results = run_jobs(self.package_dir, jobs, self.workers)
        for n, d, inputs, code in prepared:
            out[n] = self._task(d, inputs, code, results[f"{n}p"], results[f"{n}n"])
        return out

    def _task(self, d: Draft, inputs, code: str, pkg_cases: list, np_cases: list) -> Task | None:
        t = d.template
        cases, expected = [], []
        for (text, _), p, q in zip(inputs, pkg_cases, np_cases):
            if p["ok"] and q["ok"] and "repr" in t.tags and isinstance(q["value"], str):
                q = {"ok": True, "value": q["value"].replace("array(", f"{self.repr_name}(")}
            if p["ok"] and q["ok"] and values.equal(p["value"], q["value"], AGREE_REL, AGREE_ABS, same_types=True):
                cases.append({"input": text, "output": values.printed(p["value"])})
                expected.append(p["value"])
        cases, expected = cases[:MAX_CASES], expected[:MAX_CASES]
        if len(cases) < t.cases or len({c["output"] for c in cases}) < 2:
            errors = sorted({c.get("error") or "" for c in pkg_cases + np_cases if not c["ok"]} - {""})
            self.problems[t.key] = (f"{len(cases)} of {len(inputs)} cases agree, {t.cases} with two distinct "
                                    f"outputs needed" + (f"; errors: {'; '.join(errors)[:300]}" if errors else ""))
            log.debug("dropped draft %s/%d: %s", t.key, d.text, self.problems[t.key])
            return None
        example = f">>> {t.entry}({cases[0]['input']})\n{cases[0]['output']}"
        return Task(
            task_id="", split=d.split, kind=t.kind, query=t.texts[d.text], function_name=t.signature(),
            entry_point=t.entry, example=example, test_cases=cases,
            right_exe_result="#".join(c["output"] for c in cases),
            selected_functions=[self.names[f] for f in t.focus], is_valid=True,
            reference_solution=code, expected=expected,
        )


def _without_inputs(task: Task, inputs: set, minimum: int) -> Task | None:
    """The task without the test cases whose input a train task of its template also has (None when
    fewer than `minimum` cases remain)."""
    keep = [i for i, c in enumerate(task.test_cases) if c["input"] not in inputs]
    if len(keep) == len(task.test_cases):
        return task
    if len(keep) < minimum:
        return None
    cases = [task.test_cases[i] for i in keep]
    return replace(task, test_cases=cases, expected=[task.expected[i] for i in keep],
                   right_exe_result="#".join(c["output"] for c in cases),
                   example=f">>> {task.entry_point}({cases[0]['input']})\n{cases[0]['output']}")


def _numbered(split: str, tasks: list[Task]) -> list[Task]:
    return [replace(t, task_id=f"{split}-{i:04d}") for i, t in enumerate(tasks)]


_WORD = re.compile(r"[a-z0-9]+")


def trigrams(text: str) -> frozenset:
    words = _WORD.findall(text.lower())
    return frozenset(zip(words, words[1:], words[2:]))


def similarity(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


class _TrainTexts:
    """The train statements by function, for near-duplicate checks of test statements."""

    def __init__(self, train: list[Task]):
        self.by_fn = defaultdict(list)
        for t in train:
            grams = trigrams(t.query)
            for f in t.selected_functions:
                self.by_fn[f].append((grams, t))

    def closest(self, task: Task) -> Task | None:
        """A train task sharing a function whose statement is near-identical to task's, if any."""
        grams = trigrams(task.query)
        for f in task.selected_functions:
            for other, t in self.by_fn[f]:
                if similarity(grams, other) > SIMILAR_TEXT:
                    return t
        return None


def _drop_similar(tests: list[Task], train: list[Task]) -> list[Task]:
    """Drops test tasks whose statement is near-identical to a train statement of a shared function."""
    texts = _TrainTexts(train)
    kept = []
    for t in tests:
        if texts.closest(t) is not None:
            log.warning("dropped test task on %s: statement too close to a train task", t.selected_functions)
            continue
        kept.append(t)
    return kept


def hygiene_problems(tasks: dict[str, list[Task]], functions: list[str] | None = None) -> list[str]:
    """What breaks the split rules (empty when all hold): with `functions`, each needs a train task;
    every function of a test task has a train task; no test task shares its reference and an input
    with a train task; no test statement is near-identical to a train statement of a shared function."""
    problems = []
    train = tasks.get("train", [])
    train_fns = {f for t in train for f in t.selected_functions}
    if functions is not None:
        problems += [f"no train task for {f}" for f in functions if f not in train_fns]
    train_inputs = defaultdict(set)
    for t in train:
        train_inputs[t.reference_solution].update(c["input"] for c in t.test_cases)
    texts = _TrainTexts(train)
    for split in ("single_test", "multiple_test"):
        for t in tasks.get(split, []):
            problems += [f"{t.task_id}: {f} has no train task" for f in t.selected_functions if f not in train_fns]
            if train_inputs[t.reference_solution] & {c["input"] for c in t.test_cases}:
                problems.append(f"{t.task_id}: shares template and inputs with a train task")
            close = texts.closest(t)
            if close is not None:
                problems.append(f"{t.task_id}: statement near-identical to {close.task_id}")
    return problems

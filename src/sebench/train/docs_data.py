"""Training data for learning functions from their docs alone (recipes in docs/docs-only.md).

The docs-only view splits the studied functions: some keep their training tasks, the rest ("docs only")
reach training only through their docs, so no training task, SFT example or GRPO prompt mentions them
(`tasks_without`, `examples_without`). The data each method trains on:
  docs-cpt            one plain-text example per function: its doc as the open-book prompt shows it
  docs-cpt-augmented  K rule-made rewrites per function (doc_rewrites.py), mixed in one stage with the
                      Closed-SFT examples of the functions with tasks
  pit                 PIT++'s order in three stages: tasks; tasks with their functions' docs; the docs of
                      the docs-only functions with a share of the tasks kept in
A plain-text example is {"text": ..., "function": ..., "form": ...}: train_sft puts the loss on every
token of it (sft.py), beside the prompt-completion examples whose loss is on the answer.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from sebench.errors import SebenchError
from sebench.records import ApiDoc, Task
from sebench.train.doc_fields import qualified_call
from sebench.train.doc_rewrites import REWRITE_FORMS, rewrites

MAX_PARTNERS = 3  # partner functions per function in the co-occurrence snippets


def split_docs_only(functions: list[str], share: float, seed: int) -> tuple[list[str], list[str]]:
    """(with_tasks, docs_only): a seeded `share` of the distinct `functions` made docs-only, each list in
    the input's order. The choice depends on the set of functions, not their order; a share strictly
    between 0 and 1 leaves at least one function on each side (when there are two or more)."""
    if not 0.0 <= share <= 1.0:
        raise SebenchError(f"the docs-only share must lie in [0, 1], not {share}")
    unique = list(dict.fromkeys(functions))
    count = round(share * len(unique))
    if 0.0 < share < 1.0 and len(unique) >= 2:
        count = min(max(count, 1), len(unique) - 1)
    picked = set(random.Random(seed).sample(sorted(unique), count))
    return [f for f in unique if f not in picked], [f for f in unique if f in picked]


def _pattern(names: Iterable[str]) -> re.Pattern | None:
    """Matches any of `names` by its last dotted part as a whole word (so `pkg.f`, `from pkg import f`
    and a bare `f` all count): stricter than the dotted name, never looser."""
    shorts = sorted({name.rsplit(".", 1)[-1] for name in names}, key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, shorts))})(?!\w)") if shorts else None


def mentions(text: str, names: Iterable[str]) -> bool:
    """Whether `text` names any of the functions `names`."""
    pattern = _pattern(names)
    return bool(pattern and pattern.search(text))


def task_mentions(task: Task, names: Iterable[str]) -> bool:
    """Whether the task uses (selected_functions) or names (statement, signature, example, tests,
    reference solution) any of `names`."""
    names = list(names)
    if set(task.selected_functions) & set(names):
        return True
    text = "\n".join([task.query, task.function_name, task.example, task.reference_solution,
                      task.right_exe_result, json.dumps(task.test_cases, ensure_ascii=False)])
    return mentions(text, names)


def tasks_without(tasks: list[Task], names: Iterable[str]) -> list[Task]:
    """The tasks that mention none of `names`: what training and its judge may see in the docs-only view."""
    names = list(names)
    return [t for t in tasks if not task_mentions(t, names)]


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def examples_without(examples: list[dict], names: Iterable[str]) -> list[dict]:
    """The training examples (any form) none of whose strings mention any of `names`."""
    pattern = _pattern(names)
    if pattern is None:
        return list(examples)
    return [e for e in examples if not any(pattern.search(s) for s in _strings(e))]


def text_example(text: str, function: str, form: str) -> dict:
    """A plain-text (language-modelling) training example: the loss is on every token."""
    return {"text": text, "function": function, "form": form}


def doc_text(doc: ApiDoc) -> str:
    """A function's doc as written, in the entry form that the open-book prompt shows."""
    return f"### {doc.name}\n`{qualified_call(doc)}`\n\n{doc.doc.strip()}"


def docs_cpt_examples(docs: list[ApiDoc]) -> list[dict]:
    """docs-cpt: one plain-text example per doc, as written."""
    return [text_example(doc_text(doc), doc.name, "doc") for doc in docs]


def cooccurrence(tasks: list[Task], functions: Iterable[str]) -> dict[str, list[str]]:
    """For each of `functions`, the others of `functions` that share training tasks with it, most
    shared first (ties by name)."""
    wanted = set(functions)
    counts: dict[str, Counter] = {name: Counter() for name in wanted}
    for task in tasks:
        used = sorted(set(task.selected_functions) & wanted)
        for name in used:
            counts[name].update(other for other in used if other != name)
    return {name: [o for o, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))] for name, c in counts.items()}


def augmented_examples(docs: list[ApiDoc], k: int, seed: int, partners: dict[str, list[str]] | None = None,
                       forms: tuple[str, ...] = REWRITE_FORMS) -> list[dict]:
    """K rule-made rewrites of each doc in `forms` as plain-text examples (doc_rewrites.rewrites), in the docs'
    order."""
    if k < 1:
        raise SebenchError(f"docs-cpt-augmented needs at least one rewrite per doc (K >= 1), not {k}")
    by_name = {doc.name: doc for doc in docs}
    out = []
    for doc in docs:
        chosen = [p for p in (partners or {}).get(doc.name, []) if p in by_name][:MAX_PARTNERS]
        out += [text_example(text, doc.name, form)
                for form, text in rewrites(doc, k, seed, {p: by_name[p] for p in chosen}, forms)]
    return out


def docs_cpt_augmented_examples(docs: list[ApiDoc], k: int, seed: int, closed_sft: list[dict],
                                docs_only: list[str], partners: dict[str, list[str]] | None = None,
                                forms: tuple[str, ...] = REWRITE_FORMS) -> list[dict]:
    """docs-cpt-augmented's one stage: K rewrites (in `forms`) of every studied function's doc mixed (seeded
    shuffle) with the Closed-SFT examples that mention no docs-only function."""
    mixed = augmented_examples(docs, k, seed, partners, forms) + examples_without(closed_sft, docs_only)
    random.Random(seed).shuffle(mixed)
    return mixed


def pit_stages(qa: list[dict], with_task_docs: list[ApiDoc], docs_only_docs: list[ApiDoc], keep_share: float,
               seed: int) -> list[list[dict]]:
    """PIT++'s three stages: [the tasks (QA examples)], [the tasks with their functions' docs, shuffled],
    [the docs-only functions' docs with a seeded `keep_share` of the tasks kept in, shuffled]. QA examples
    that mention a docs-only function are left out of every stage."""
    if not 0.0 <= keep_share <= 1.0:
        raise SebenchError(f"the share of tasks kept in PIT's last stage must lie in [0, 1], not {keep_share}")
    rng = random.Random(seed)
    qa = examples_without(qa, [doc.name for doc in docs_only_docs])
    with_docs = qa + docs_cpt_examples(with_task_docs)
    rng.shuffle(with_docs)
    kept = [qa[i] for i in sorted(rng.sample(range(len(qa)), round(keep_share * len(qa))))]
    last = docs_cpt_examples(docs_only_docs) + kept
    rng.shuffle(last)
    return [list(qa), with_docs, last]

"""The training view: an instance folder with only what a method may see.

    VIEW/manifest.json                    the instance's manifest
    VIEW/package/<pkg>/...                the generated package
    VIEW/datasets/train/api_doc.jsonl     the docs
    VIEW/datasets/train/train.jsonl       the training tasks
    VIEW/dev.json                         the ids of the dev tasks (a seeded part of the training tasks)
    VIEW/docs_only.json                   the studied functions that are docs-only (none: [])
    VIEW/judge_rules.json                 what the judge's static rules need, in public names only
    VIEW/answers/rollouts.jsonl, verdicts.jsonl   the start model's judged open-book training answers, if made

In the docs-only setting the training split and the answers keep only the tasks that mention no
docs-only function (sebench.train.tasks_without), so no method trains on or asks the judge about one.
No test split and no private mapping are copied (a built-in regime that the paper defines with the mapping
gets `private/mapping.json` too, and its manifest row says so). The view's hash goes into the manifest.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from sebench.files import remove_tree, tree_sha256
from sebench.instance import API_DOC_FILE, MAPPING_FILE, SPLIT_FILES, Instance
from sebench.judge import RULES_FILE, Rules
from sebench.records import write_records

DEV_FILE = "dev.json"
DOCS_ONLY_FILE = "docs_only.json"
ANSWERS_DIR = "answers"


def write_view(data: Path, out: Path, seed: int, dev_share: float = 0.1, answers: Path | None = None,
               with_mapping: bool = False, docs_only: list[str] | None = None) -> str:
    """Writes the view of instance `data` to `out` (replacing it) and returns its hash. `answers`: a
    rollouts.jsonl on the train split with verdicts.jsonl beside it; `docs_only`: functions whose tasks
    are left out."""
    from sebench.train import tasks_without

    instance = Instance.open(data)
    if out.exists():
        remove_tree(out)
    (out / "datasets" / "train").mkdir(parents=True)
    shutil.copy2(instance.manifest_path, out / "manifest.json")
    shutil.copytree(instance.package_dir, out / "package")
    shutil.copy2(instance.root / API_DOC_FILE, out / API_DOC_FILE)
    tasks = tasks_without(instance.tasks("train"), docs_only or [])
    if docs_only:
        write_records(out / SPLIT_FILES["train"], tasks)
    else:
        shutil.copy2(instance.root / SPLIT_FILES["train"], out / SPLIT_FILES["train"])
    (out / DOCS_ONLY_FILE).write_text(json.dumps(sorted(docs_only or [])), encoding="utf-8")
    (out / RULES_FILE).write_text(json.dumps(Rules.of_instance(instance).to_json(), indent=1), encoding="utf-8")
    ids = sorted(t.task_id for t in tasks)
    dev = sorted(random.Random(seed).sample(ids, round(dev_share * len(ids)))) if ids else []
    (out / DEV_FILE).write_text(json.dumps(dev), encoding="utf-8")
    if answers is not None:
        (out / ANSWERS_DIR).mkdir()
        for name in ("rollouts.jsonl", "verdicts.jsonl"):
            _copy_lines_of(answers.with_name(name), out / ANSWERS_DIR / name, set(ids) if docs_only else None)
    if with_mapping:
        (out / MAPPING_FILE).parent.mkdir(parents=True)
        shutil.copy2(instance.mapping_path, out / MAPPING_FILE)
    return tree_sha256(out)


def _copy_lines_of(source: Path, target: Path, task_ids: set[str] | None) -> None:
    """Copies the JSON lines of `source` whose task_id is one of `task_ids` (None: the whole file)."""
    if task_ids is None:
        shutil.copy2(source, target)
        return
    with source.open(encoding="utf-8") as lines, target.open("w", encoding="utf-8") as kept:
        kept.writelines(line for line in lines if line.strip() and json.loads(line).get("task_id") in task_ids)


def dev_ids(view: Path) -> set[str]:
    return set(json.loads((view / DEV_FILE).read_text(encoding="utf-8")))


def docs_only_of(view: Path) -> list[str]:
    """The view's docs-only functions ([] for a view written before the setting existed)."""
    path = view / DOCS_ONLY_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []

"""The training view: an instance folder with only what a method may see.

    VIEW/manifest.json                    the instance's manifest
    VIEW/package/<pkg>/...                the generated package
    VIEW/datasets/train/api_doc.jsonl     the docs
    VIEW/datasets/train/train.jsonl       the training tasks
    VIEW/dev.json                         the ids of the dev tasks (a seeded part of the training tasks)
    VIEW/judge_rules.json                 what the judge's static rules need, in public names only
    VIEW/answers/rollouts.jsonl, verdicts.jsonl   the start model's judged open-book training answers, if made

No test split and no private mapping are copied (a built-in regime that the paper defines with the mapping
gets `private/mapping.json` too, and its manifest row says so). The view's hash goes into the manifest.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from sebench.files import tree_sha256
from sebench.instance import API_DOC_FILE, MAPPING_FILE, SPLIT_FILES, Instance
from sebench.judge import RULES_FILE, Rules

DEV_FILE = "dev.json"
ANSWERS_DIR = "answers"


def write_view(data: Path, out: Path, seed: int, dev_share: float = 0.1, answers: Path | None = None,
               with_mapping: bool = False) -> str:
    """Writes the view of instance `data` to `out` (replacing it) and returns its hash. `answers`: a
    rollouts.jsonl on the train split with verdicts.jsonl beside it."""
    instance = Instance.open(data)
    if out.exists():
        shutil.rmtree(out)
    (out / "datasets" / "train").mkdir(parents=True)
    shutil.copy2(instance.manifest_path, out / "manifest.json")
    shutil.copytree(instance.package_dir, out / "package")
    for rel in (API_DOC_FILE, SPLIT_FILES["train"]):
        shutil.copy2(instance.root / rel, out / rel)
    (out / RULES_FILE).write_text(json.dumps(Rules.of_instance(instance).to_json(), indent=1), encoding="utf-8")
    ids = sorted(t.task_id for t in instance.tasks("train"))
    dev = sorted(random.Random(seed).sample(ids, round(dev_share * len(ids)))) if ids else []
    (out / DEV_FILE).write_text(json.dumps(dev), encoding="utf-8")
    if answers is not None:
        (out / ANSWERS_DIR).mkdir()
        for name in ("rollouts.jsonl", "verdicts.jsonl"):
            shutil.copy2(answers.with_name(name), out / ANSWERS_DIR / name)
    if with_mapping:
        (out / MAPPING_FILE).parent.mkdir(parents=True)
        shutil.copy2(instance.mapping_path, out / MAPPING_FILE)
    return tree_sha256(out)


def dev_ids(view: Path) -> set[str]:
    return set(json.loads((view / DEV_FILE).read_text(encoding="utf-8")))

"""Tasks of real built instances (3 seeds, small sizes): counts, split rules, no leaks, determinism, and
every reference solution passes its own tests when judged."""

from __future__ import annotations

import shutil

import pytest

from sebench.instance import Instance
from sebench.records import Task, read_records
from sebench.tasks.generate import TaskSizes, hygiene_problems, write_task_files

SIZES = TaskSizes(train=60, single=30, multiple=20)  # the session instance's sizes (tests/conftest.py)
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def instances(built_instance, tmp_path_factory):
    """Seed 0 is the session's instance (built with these sizes); seeds 1 and 2 are built here."""
    from sebench.builder.run import build_instance

    inst = Instance(built_instance)
    out = {0: (inst, {s: len(inst.tasks(s)) for s in ("train", "single_test", "multiple_test")})}
    for seed in SEEDS[1:]:
        root = build_instance(tmp_path_factory.mktemp(f"seed{seed}") / "inst", seed, audit=False)
        inst = Instance(root)
        out[seed] = (inst, write_task_files(inst, seed, SIZES))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_counts_and_split_rules(instances, seed):
    inst, counts = instances[seed]
    assert counts == {"train": SIZES.train, "single_test": SIZES.single, "multiple_test": SIZES.multiple}
    tasks = {split: inst.tasks(split) for split in counts}
    assert hygiene_problems(tasks) == []
    assert all(t.kind == "single" for t in tasks["single_test"])
    assert all(2 <= len(t.selected_functions) <= 4 for t in tasks["multiple_test"])
    public = set(inst.mapping()["functions"].values())
    assert all(set(t.selected_functions) <= public for s in tasks.values() for t in s)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_leaks_in_task_files(instances, seed):
    from sebench.obfuscate.audit import audit_instance

    inst, _ = instances[seed]
    findings = [f for f in audit_instance(inst.root) if not f.path.endswith("api_doc.jsonl")
                and f.path.startswith("datasets/")]
    assert [str(f) for f in findings] == []


def test_same_seed_gives_identical_files(instances, tmp_path):
    inst, _ = instances[0]
    copy = tmp_path / "copy"
    shutil.copytree(inst.root, copy)
    write_task_files(Instance(copy), 0, SIZES)
    for split in ("train", "single_test", "multiple_test"):
        assert Instance(copy).split_path(split).read_bytes() == inst.split_path(split).read_bytes()


@pytest.mark.parametrize("seed", SEEDS)
def test_references_pass_their_own_tests_when_judged(instances, seed):
    from sebench.judge import Judge

    inst, _ = instances[seed]
    tasks = [t for split in ("train", "single_test", "multiple_test") for t in inst.tasks(split)]
    with Judge(inst, workers=2) as judge:
        verdicts = judge.judge_many([(t, f"```python\n{t.reference_solution}```", 0) for t in tasks])
    failed = [(t.task_id, v.verdict, str(v.detail)[:300]) for t, v in zip(tasks, verdicts) if v.verdict != "correct"]
    assert failed == []


def test_records_read_back(instances):
    inst, _ = instances[1]
    for split in ("train", "single_test", "multiple_test"):
        tasks = read_records(inst.split_path(split), Task)
        assert all(len(t.test_cases) >= 8 and len(t.expected) == len(t.test_cases) for t in tasks)
        assert all(t.right_exe_result.count("#") == len(t.test_cases) - 1 for t in tasks)

"""The warm-up stage on the tiny test model: disjoint training data, the cache key, reuse without training."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from sebench.experiment.warmup import WarmupConfig, plan, warm_up
from sebench.instance import Instance
from sebench.rollout import compact_docs
from sebench.rollout.compact_docs import compact_doc


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def studied_names(instance_dir, count: int = 3) -> list[str]:
    """`count` functions that some training task uses, never the array constructor."""
    from sebench.tasks.spec import CONSTRUCTOR

    instance = Instance.open(instance_dir)
    constructor = instance.mapping()["functions"][CONSTRUCTOR]
    used = [f for t in instance.tasks("train") if t.kind == "single" for f in t.selected_functions]
    return sorted(dict.fromkeys(f for f in used if f != constructor))[:count]


def config(instance_dir, model, cache_dir, **changes) -> WarmupConfig:
    base = WarmupConfig(data=instance_dir, studied=",".join(studied_names(instance_dir)), model=str(model),
                        docs="compact", max_examples=8, epochs=1.0, batch_size=8, max_length=1024,
                        cache_dir=cache_dir)
    return dataclasses.replace(base, **changes)


def test_warmup_trains_only_on_other_functions_and_is_reused(built_instance, tiny_model, tmp_path, monkeypatch):
    cfg = config(built_instance, tiny_model, tmp_path / "cache")
    studied = set(cfg.studied_functions())
    checkpoint = warm_up(cfg)

    assert checkpoint == plan(cfg).checkpoint and (checkpoint / "config.json").is_file()
    examples = [json.loads(line) for line in (checkpoint / "train_data.jsonl").read_text().splitlines()]
    assert len(examples) == 8
    tasks = {t.task_id: t for t in Instance.open(built_instance).tasks("train")}
    excluded = set(plan(cfg).excluded)
    assert studied <= excluded
    for example in examples:
        used = set(tasks[example["task_id"]].selected_functions)
        assert not used & excluded, example["task_id"]
        prompt = " ".join(m["content"] for m in example["prompt"])
        assert "Documentation of the" in prompt  # open-book prompts
        assert not any(f"### {name}\n" in prompt for name in studied)
    record = json.loads((checkpoint.parent / "warmup.json").read_text())
    assert record["studied"] == sorted(studied) and not set(record["functions"]) & excluded

    def no_training(*args, **kwargs):
        raise AssertionError("the cached warm-up trained again")

    monkeypatch.setattr("sebench.train.run.train_model", no_training)
    before = (checkpoint / "model.safetensors").stat().st_mtime_ns
    assert warm_up(dataclasses.replace(cfg)) == checkpoint
    assert (checkpoint / "model.safetensors").stat().st_mtime_ns == before


def test_cache_key_changes_with_each_setting(built_instance, tiny_model, tmp_path):
    cfg = config(built_instance, tiny_model, tmp_path / "cache")
    key = plan(cfg).key
    changed = {"docs": "full", "max_examples": 9, "epochs": 2.0, "lr": 1e-4, "batch_size": 4, "max_length": 512,
               "seed": 1, "model": "smollm2-135m"}
    assert set(changed) == set(cfg.key_settings())  # every setting of the key is tried here
    for name, value in changed.items():
        assert plan(dataclasses.replace(cfg, **{name: value})).key != key, name
    fewer = ",".join(cfg.studied_functions()[:-1])
    assert plan(dataclasses.replace(cfg, studied=fewer)).key != key
    # the skills: a docs-only warm-up keeps the key it had before skills existed; the tasks skill and its
    # example count are part of the key
    assert "skills" not in cfg.key_settings() and "task_examples" not in cfg.key_settings()
    both = dataclasses.replace(cfg, skills=["docs", "tasks"])
    assert len({key, plan(both).key, plan(dataclasses.replace(both, task_examples=9)).key}) == 3
    moved = plan(dataclasses.replace(cfg, cache_dir=tmp_path / "elsewhere"))
    assert moved.key == key and moved.entry == tmp_path / "elsewhere" / key


def test_a_new_form_of_the_compact_docs_is_a_new_cache_entry(built_instance, tiny_model, tmp_path, monkeypatch):
    cfg = config(built_instance, tiny_model, tmp_path / "cache")
    before = plan(cfg)
    compact, full = before.key, plan(dataclasses.replace(cfg, docs="full")).key
    # the same summaries (so the same warm-up functions), two example lines more
    monkeypatch.setattr(compact_docs, "compact_doc", lambda doc, example_lines=6: compact_doc(doc, example_lines))
    assert plan(cfg).functions == before.functions
    assert plan(cfg).key != compact and plan(dataclasses.replace(cfg, docs="full")).key == full


def test_studied_function_must_exist(built_instance, tiny_model, tmp_path):
    from sebench.errors import SebenchError

    with pytest.raises(SebenchError, match="not in the instance's docs"):
        plan(config(built_instance, tiny_model, tmp_path, studied="nosuch.function"))


def test_cli_plan_prints_key_and_an_error_is_one_line(built_instance, tmp_path, capsys):
    from sebench.cli import main

    names = ",".join(studied_names(built_instance))
    assert main(["warmup", "--data", str(built_instance), "--studied", names, "--cache-dir", str(tmp_path),
                 "--plan"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("key ") and str(tmp_path) in out
    assert main(["warmup", "--data", str(built_instance), "--cache-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    # --skills takes a comma-separated list of its choices
    base = ["warmup", "--data", str(built_instance), "--studied", names, "--cache-dir", str(tmp_path), "--plan"]
    assert main([*base, "--skills", "tasks,docs"]) == 0
    both = plan(WarmupConfig(data=built_instance, studied=names, cache_dir=tmp_path, skills=["docs", "tasks"]))
    assert capsys.readouterr().out.startswith(f"key {both.key}\n")
    with pytest.raises(SystemExit) as exit_:
        main([*base, "--skills", "docs,poems"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "poems: choose from docs, tasks" in err and err.count("\n") == 0


def test_skills_are_checked(built_instance, tmp_path):
    from sebench.errors import SebenchError

    assert WarmupConfig(data=built_instance, skills="tasks,docs").skills == ["docs", "tasks"]
    with pytest.raises(SebenchError, match="--skills: poems"):
        WarmupConfig(data=built_instance, skills=["docs", "poems"])


def test_task_writing_examples_never_mention_a_studied_function(built_instance, tmp_path):
    """The examples are the instance's own tasks of warm-up functions, written in modelgen's format; none
    names a studied function (public or NumPy name) or shows its docs. The array constructor is studied
    here because nearly every doc example calls it: the examples that would show it are dropped."""
    from sebench.experiment.warmup import task_writing_examples
    from sebench.rollout.compact_docs import compact_doc, write_compact_instance
    from sebench.tasks.spec import CONSTRUCTOR
    from sebench.train.modelgen import parse_proposal

    instance = Instance.open(built_instance)
    mapping = instance.mapping()
    studied = [*studied_names(built_instance), mapping["functions"][CONSTRUCTOR]]
    cfg = WarmupConfig(data=built_instance, studied=",".join(studied), docs="compact", skills=["docs", "tasks"])
    p = plan(cfg)
    compact = Instance.open(write_compact_instance(instance, tmp_path / "compact"))
    examples = task_writing_examples(compact, p.functions, p.excluded, 1000, seed=0)
    unfiltered = task_writing_examples(compact, p.functions, [], 1000, seed=0)
    assert examples and len(unfiltered) > len(examples)

    numpy_of = {public: key for key, public in mapping["functions"].items()}
    docs = {d.name: d for d in compact.api_docs()}
    tasks = {t.task_id: t for t in compact.tasks("train")}
    for example in examples:
        text = example["prompt"][0]["content"] + example["completion"][0]["content"]
        for name in studied:
            short = numpy_of[name].split(".")[-1]
            assert not re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text), (example["task_id"], name)
            assert f"numpy.{short}" not in text and f"np.{short}(" not in text
            summary = compact_doc(docs[name]).doc.split("\n")[0]
            assert summary not in text
        proposal = parse_proposal(example["completion"][0]["content"])
        task = tasks[example["task_id"]]
        assert proposal.query == task.query and set(task.selected_functions) <= set(p.functions)
    assert any(mapping["functions"][CONSTRUCTOR] in e["prompt"][0]["content"] for e in unfiltered)


def test_the_tasks_skill_adds_task_writing_examples_to_the_warm_up(built_instance, tiny_model, tmp_path):
    cfg = config(built_instance, tiny_model, tmp_path / "cache", max_examples=4, skills=["docs", "tasks"],
                 task_examples=3)
    checkpoint = warm_up(cfg)
    examples = [json.loads(line) for line in (checkpoint / "train_data.jsonl").read_text().splitlines()]
    writing = [e for e in examples if "Write one new exercise" in e["prompt"][0]["content"]]
    assert len(examples) == 7 and len(writing) == 3
    assert all(e["completion"][0]["content"].startswith("```json") for e in writing)
    record = json.loads((checkpoint.parent / "warmup.json").read_text())
    assert record["settings"]["skills"] == ["docs", "tasks"]

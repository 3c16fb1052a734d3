"""`sebench export --format hf`: a folder that `datasets.load_dataset` reads config by config, that gives an
instance of the same seed the same tasks through `sebench tasks import`, and that holds nothing of the mapping."""

from __future__ import annotations

import json
import logging

import pytest

from sebench.cli import main
from sebench.instance import SPLIT_FILES, Instance
from sebench.records import to_dict

CONFIGS = (*SPLIT_FILES, "docs")
RELEASE_COLUMNS = {"query", "function_name", "example", "test_cases", "right_exe_result", "selected_functions",
                   "is_valid", "right_code"}


@pytest.fixture(scope="module")
def hf_export(built_instance, tmp_path_factory):
    out = tmp_path_factory.mktemp("hf") / "dataset"
    assert main(["export", "--format", "hf", "--data", str(built_instance), "--out", str(out)]) == 0
    return out


def test_load_dataset_reads_every_config_with_the_release_columns(hf_export, built_instance, tmp_path):
    datasets = pytest.importorskip("datasets")
    instance = Instance.open(built_instance)
    for config in CONFIGS:
        loaded = datasets.load_dataset(str(hf_export), config, cache_dir=str(tmp_path / "cache"))
        assert list(loaded) == ["train"]  # one split per config, as in the original release
        rows = loaded["train"]
        if config == "docs":
            assert rows.to_list() == [to_dict(d) for d in instance.api_docs()]
            continue
        tasks = instance.tasks(config)
        assert set(rows.column_names) >= RELEASE_COLUMNS
        assert rows["task_id"] == [t.task_id for t in tasks]
        for row, task in zip(rows, tasks):
            assert row["right_code"] == task.reference_solution and row["selected_functions"] == task.selected_functions
            assert f">>> {task.entry_point}({row['example']['input']})\n{row['example']['output']}" == task.example
            assert json.loads(row["expected"]) == task.expected


def test_the_card_names_the_configs_seed_version_and_protocol(hf_export, built_instance):
    from sebench import __version__

    card = (hf_export / "README.md").read_text(encoding="utf-8")
    meta = card.split("---\n")[1]
    for config in CONFIGS:
        assert f"- config_name: {config}\n  data_files:\n  - split: train\n    path: data/{config}.jsonl" in meta
    assert "  seed: 0\n" in meta and f'  sebench_version: "{__version__}"' in meta and '  protocol: "sebench"' in meta
    assert "Not included" in card and "sebench build --seed 0" in card


def test_the_mapping_is_in_no_exported_file(hf_export, built_instance):
    mapping = json.loads((built_instance / "private/mapping.json").read_text(encoding="utf-8"))
    pairs = {**mapping["functions"], **mapping.get("exceptions", {})}
    texts = {p.name: p.read_text(encoding="utf-8") for p in hf_export.rglob("*") if p.is_file()}
    assert set(texts) == {"README.md", *(f"{c}.jsonl" for c in CONFIGS)}
    for name, text in texts.items():
        assert '"numpy.' not in text, name
        for numpy_name, public in pairs.items():
            assert numpy_name not in text and numpy_name.replace("numpy.", "np.", 1) not in text, (name, numpy_name)
            assert json.dumps({numpy_name: public})[1:-1] not in text, (name, numpy_name)


def test_import_into_an_instance_of_the_same_seed_gives_the_same_tasks(hf_export, built_instance, tmp_path):
    from sebench.builder.run import build_instance

    logging.getLogger("sebench").setLevel(logging.WARNING)
    fresh = build_instance(tmp_path / "fresh", 0, audit=False)  # the same seed, no tasks yet
    assert main(["tasks", "import", "--official", str(hf_export), "--data", str(fresh)]) == 0
    source, target = Instance.open(built_instance), Instance.open(fresh)
    for split in SPLIT_FILES:
        assert target.tasks(split) == source.tasks(split), split
        assert target.split_path(split).read_bytes() == source.split_path(split).read_bytes()
    assert not (fresh / "private/release").exists() or not any((fresh / "private/release").iterdir())


def test_import_into_an_instance_of_another_seed_is_refused(hf_export, tmp_path, capsys):
    from sebench.builder.run import build_instance

    other = build_instance(tmp_path / "seed1", 1, audit=False)
    assert main(["tasks", "import", "--official", str(hf_export / "data/single_test.jsonl"), "--data",
                 str(other)]) == 2
    assert "selected_functions" in capsys.readouterr().err


def test_an_hf_export_refuses_verl_options_and_an_earlier_export(hf_export, built_instance, capsys):
    assert main(["export", "--format", "hf", "--data", str(built_instance), "--out", str(hf_export),
                 "--tokenizer", "smollm2-135m"]) == 2
    assert "--tokenizer is an option of --format verl" in capsys.readouterr().err
    assert main(["export", "--format", "hf", "--data", str(built_instance), "--out", str(hf_export)]) == 2
    assert "--overwrite" in capsys.readouterr().err


def test_the_export_says_how_to_push(built_instance, tmp_path, capsys):
    out = tmp_path / "ds"
    assert main(["export", "--format", "hf", "--data", str(built_instance), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"hf upload USER/NAME {out} --repo-type dataset" in printed and "push_to_hub" in printed


def test_an_example_the_release_columns_cannot_hold_is_one_line_naming_the_task(built_instance):
    from dataclasses import replace

    from sebench.errors import SebenchError
    from sebench.export.hf import example_dict

    task = Instance.open(built_instance).tasks("single_test")[0]
    assert example_dict(task)["input"] == task.test_cases[0]["input"]
    with pytest.raises(SebenchError, match=f"task {task.task_id}: field 'example'"):
        example_dict(replace(task, example=f"{task.entry_point}(...) returns 3"))


def test_another_librarys_export_imports_into_a_fresh_build_byte_for_byte(tmp_path):
    """The card's commands for a more-itertools instance: build the same seed without tasks, import the folder."""
    logging.getLogger("sebench").setLevel(logging.WARNING)
    sizes = ["--n-train", "40", "--n-single", "12", "--n-multiple", "4"]
    source, fresh, out = tmp_path / "mi", tmp_path / "fresh", tmp_path / "mi-hf"
    assert main(["build", "--library", "more-itertools", "--seed", "3", "--out", str(source), *sizes]) == 0
    assert main(["export", "--format", "hf", "--data", str(source), "--out", str(out)]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "sebench tasks import --official" in card and "test inputs are plain data" in card
    assert "constructor" not in card and "example_output" not in card  # NumPy's words: no release of this library
    assert main(["build", "--library", "more-itertools", "--seed", "3", "--out", str(fresh), "--no-tasks"]) == 0
    assert main(["tasks", "import", "--official", str(out), "--data", str(fresh)]) == 0
    for split in SPLIT_FILES:
        assert Instance.open(fresh).split_path(split).read_bytes() == Instance.open(source).split_path(split).read_bytes()

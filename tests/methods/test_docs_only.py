"""The docs-only methods (issue 40) through the method contract, on the tiny model over a 4-function subset with
half its functions docs-only: each trains (its weights change), and no training example, training task of its
view or judged training answer mentions a docs-only function, except the docs-only data made by design (docs
and their rewrites as plain text; context distillation's prompts made from the docs, ids `doc:<function>:<n>`)."""

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from sebench.instance import Instance
from sebench.methods import MethodJob, resolve, run_method
from sebench.methods.view import write_view
from sebench.train import split_docs_only
from sebench.train.doc_tasks import doc_tasks
from sebench.train.docs_data import mentions, task_mentions

TINY = {"epochs": 1.0, "max_steps": 2, "batch_size": 2, "grad_accum": 1, "max_length": 512}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def subset(tmp_path_factory, built_instance):
    """(a 4-function subset of the built instance, its docs-only functions as a study with docs_only 0.5 splits them)."""
    from sebench.experiment.select import write_subset
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("subset") / "data"
    write_subset(Instance.open(built_instance), out, 4, 0, TaskSizes(train=16, single=4, multiple=2), workers=2)
    studied = Instance.open(out).manifest()["subset"]["functions"]
    return out, split_docs_only(studied, 0.5, 0)[1]


def _job(subset, tiny_model: Path, folder: Path, spec: str, args: dict) -> MethodJob:
    """The method's job; a teacher read from a file is named for its process to read (methods.LABEL.read)."""
    data, docs_only = subset
    teacher = str(args.get("teacher", "")).partition("file=")[2]
    return MethodJob(ref=resolve(spec), args={**TINY, **args}, data=data, folder=folder, start_model=str(tiny_model),
                     seed=0, hidden=(data / "datasets" / "test", data / "private"), docs_only=docs_only,
                     asked=(Path(teacher),) if teacher else ())


def _weights(folder: Path) -> bytes:
    return (folder / "model.safetensors").read_bytes()


def _examples(checkpoint: Path) -> list[dict]:
    return [json.loads(line) for line in (checkpoint / "train_data.jsonl").read_text().splitlines()]


def _check_docs_only_reach(record: dict, folder: Path, subset, examples: list[dict]) -> None:
    """The view holds no task of a docs-only function; a training example that mentions one is docs-only data."""
    data, docs_only = subset
    assert record["docs_only"] == docs_only and json.loads((folder / "view/docs_only.json").read_text()) == docs_only
    view_tasks = Instance.open(folder / "view").tasks("train")
    assert view_tasks and len(view_tasks) < len(Instance.open(data).tasks("train"))
    assert not any(task_mentions(t, docs_only) for t in view_tasks)
    view_ids = {t.task_id for t in view_tasks}
    for example in examples:
        if "text" in example or example["task_id"].startswith("doc:"):
            continue  # docs, their rewrites and prompts made from docs: the docs-only data by design
        assert example["task_id"] in view_ids and not mentions(json.dumps(example), docs_only)


def _run(subset, tiny_model: Path, tmp_path: Path, spec: str, args: dict | None = None) -> tuple[dict, Path]:
    folder = tmp_path / spec
    record = run_method(_job(subset, tiny_model, folder, spec, args or {}))
    assert record["returns"] == "checkpoint" and record["cost"]["tokens_trained"] > 0
    checkpoint = Path(record["result"]["path"])
    assert checkpoint == folder / "work" / "checkpoint"
    assert _weights(checkpoint) != _weights(tiny_model)  # it trained
    return record, checkpoint


@pytest.mark.timeout(600)
def test_docs_cpt_trains_on_the_studied_functions_docs_alone(subset, tiny_model, tmp_path):
    record, checkpoint = _run(subset, tiny_model, tmp_path, "docs-cpt")
    examples = _examples(checkpoint)
    studied = Instance.open(subset[0]).manifest()["subset"]["functions"]
    assert sorted(e["function"] for e in examples) == sorted(studied)
    assert {e["form"] for e in examples} == {"doc"} and all("completion" not in e for e in examples)
    _check_docs_only_reach(record, tmp_path / "docs-cpt", subset, examples)


@pytest.mark.slow  # trains the tiny model; docs-cpt's test keeps a docs-only method's training in CI
@pytest.mark.timeout(600)
def test_docs_cpt_augmented_mixes_k_rewrites_of_every_doc_with_the_tasks_of_the_others(subset, tiny_model, tmp_path):
    record, checkpoint = _run(subset, tiny_model, tmp_path, "docs-cpt-augmented", {"k": 2})
    examples = _examples(checkpoint)
    studied = Instance.open(subset[0]).manifest()["subset"]["functions"]
    rewrites = [e for e in examples if "text" in e]
    assert sorted(e["function"] for e in rewrites) == sorted(studied * 2)
    assert {e["form"] for e in rewrites} - {"doc"} and len(examples) > len(rewrites)  # Closed-SFT examples too
    _check_docs_only_reach(record, tmp_path / "docs-cpt-augmented", subset, examples)


@pytest.mark.slow  # trains the tiny model; docs-cpt's test keeps a docs-only method's training in CI
@pytest.mark.timeout(600)
def test_pit_trains_its_three_stages_in_order(subset, tiny_model, tmp_path):
    record, checkpoint = _run(subset, tiny_model, tmp_path, "pit", {"keep_share": 0.5})
    _, docs_only = subset
    work = tmp_path / "pit" / "work"
    first, second, last = _examples(work / "stage-1"), _examples(work / "stage-2"), _examples(checkpoint)
    assert first and all("completion" in e for e in first)  # the tasks
    assert {e["function"] for e in second if "text" in e}.isdisjoint(docs_only)  # the with-task functions' docs
    assert len(second) > len(first) and {e["task_id"] for e in first} <= {e.get("task_id") for e in second}
    assert sorted(e["function"] for e in last if "text" in e) == sorted(docs_only)
    assert 0 < sum("completion" in e for e in last) < len(first)  # a share of the tasks kept in
    config = json.loads((checkpoint / "train_config.json").read_text())
    assert config["start_model"] == str(work / "stage-2")  # each stage starts from the last one's weights
    assert not list((work / "stage-1").glob("*.safetensors"))  # the stages' weights are not kept
    for examples in (first, second, last):
        _check_docs_only_reach(record, tmp_path / "pit", subset, examples)


@pytest.mark.slow  # trains the tiny model; docs-cpt's test keeps a docs-only method's training in CI
@pytest.mark.timeout(600)
def test_context_distill_trains_closed_book_on_judged_correct_open_book_answers(subset, tiny_model, tmp_path):
    from sebench.judge import Rules
    from sebench.rollout import format_answer

    data, docs_only = subset
    instance = Instance.open(data)
    docs = {d.name: d for d in instance.api_docs()}
    constructor = Rules.of_instance(instance).constructor or ""
    made = next(t for name in docs_only for t in doc_tasks(docs[name], constructor)[0])
    task = next(t for t in instance.tasks("train") if not task_mentions(t, docs_only))
    # the teacher answers each prompt twice: the reference of one training task, then of one docs-only doc task
    teacher = tmp_path / "teacher.json"
    teacher.write_text(json.dumps([format_answer(task.reference_solution), format_answer(made.reference_solution)]))
    record, checkpoint = _run(subset, tiny_model, tmp_path, "context-distill", {"teacher": f"fake:file={teacher}", "n": 2})
    examples = _examples(checkpoint)
    assert {e["task_id"] for e in examples} >= {task.task_id, made.task_id}
    assert all("completion" in e for e in examples)
    assert record["cost"]["judge_calls"] > 2 * len(examples) and record["cost"]["tokens_sampled"] > 0
    _check_docs_only_reach(record, tmp_path / "context-distill", subset, examples)
    # the KL variant: the same answers, each with its open-book prompt, and a term that changes the training
    kl_folder = tmp_path / "kl"
    kl = run_method(_job(subset, tiny_model, kl_folder, "context-distill",
                         {"teacher": f"fake:file={teacher}", "n": 2, "kl": 1.0, "top_k": 5}))
    kl_checkpoint = Path(kl["result"]["path"])
    kl_examples = _examples(kl_checkpoint)
    assert [e["completion"] for e in kl_examples] == [e["completion"] for e in examples]
    doc_example = next(e for e in kl_examples if e["task_id"] == made.task_id)
    assert made.selected_functions[0] in json.dumps(doc_example["teacher_prompt"])  # the teacher saw the doc
    assert not mentions(json.dumps(doc_example["prompt"]), docs_only)  # the student does not
    assert json.loads((kl_checkpoint / "train_config.json").read_text())["config"]["distill_kl"] == 1.0
    assert _weights(kl_checkpoint) not in (_weights(checkpoint), _weights(tiny_model))
    _check_docs_only_reach(kl, kl_folder, subset, kl_examples)


def test_the_view_leaves_out_the_docs_only_functions_tasks_and_answers(subset, tmp_path):
    data, docs_only = subset
    tasks = Instance.open(data).tasks("train")
    answers = tmp_path / "answers" / "rollouts.jsonl"
    answers.parent.mkdir()
    for name in ("rollouts.jsonl", "verdicts.jsonl"):
        answers.with_name(name).write_text("".join(json.dumps({"task_id": t.task_id}) + "\n" for t in tasks))
    write_view(data, tmp_path / "view", 0, answers=answers, docs_only=docs_only)
    kept = {t.task_id for t in tasks if not task_mentions(t, docs_only)}
    assert 0 < len(kept) < len(tasks)
    assert {t.task_id for t in Instance.open(tmp_path / "view").tasks("train")} == kept
    assert set(json.loads((tmp_path / "view/dev.json").read_text())) <= kept
    for name in ("rollouts.jsonl", "verdicts.jsonl"):
        lines = (tmp_path / "view/answers" / name).read_text().splitlines()
        assert {json.loads(line)["task_id"] for line in lines} == kept
    write_view(data, tmp_path / "whole", 0)
    assert json.loads((tmp_path / "whole/docs_only.json").read_text()) == []
    assert len(Instance.open(tmp_path / "whole").tasks("train")) == len(tasks)


def test_the_inject_preset_studies_the_docs_only_methods():
    from sebench.experiment.config import resolve as resolve_preset

    cfg = resolve_preset("inject", {})
    assert cfg.docs_only == 0.5 and cfg.warmup and cfg.functions == 20
    assert {"docs-cpt", "docs-cpt-augmented", "pit", "context-distill"} <= set(cfg.regimes)
    aliases = cfg.method_aliases()
    assert aliases == {"docs-cpt-augmented-k8": "docs-cpt-augmented", "context-distill-kl": "context-distill",
                       "docs-cpt-augmented-name-first": "docs-cpt-augmented",  # second settings, labels of their own
                       "docs-cpt-augmented-behaviour": "docs-cpt-augmented"}
    assert cfg.method_arguments("docs-cpt-augmented-behaviour") == {"k": 3, "forms": ["behaviour"]}
    assert cfg.method_arguments("context-distill-kl") == {"kl": 1.0}
    assert all(resolve(aliases.get(spec, spec)).origin == "built-in" for spec in cfg.regimes
               if cfg.regime_of(spec) != "closed-sft")  # closed-sft and its Random-FT control are regimes
    graded = resolve_preset("inject", {"regimes": ["closed-rl", "closed-rl-graded"]})
    assert graded.train_settings("closed-rl-graded")["reward"] == "graded"
    assert graded.train_settings("closed-rl-graded")["max_steps"] == graded.train_settings("closed-rl")["max_steps"]


def test_a_study_with_docs_only_gives_every_method_the_same_seeded_split(subset, tmp_path):
    from sebench.experiment.config import resolve as resolve_preset
    from sebench.experiment.run import Study

    data, docs_only = subset
    study = Study(resolve_preset("quick", {"docs_only": 0.5}), tmp_path / "run")
    study.data = data
    assert study.docs_only == docs_only
    for spec in ("docs-cpt", "base"):
        assert study.method_job(resolve(spec), {}, tmp_path / spec, "fake:").docs_only == docs_only
    study._write_manifest(commands=[], finished=True)
    again = Study(resolve_preset("quick", {"docs_only": 0.5}), tmp_path / "run")  # a rerun, before it selects
    again._write_manifest(commands=[], finished=False)
    assert json.loads((tmp_path / "run/manifest.json").read_text())["docs_only"] == docs_only  # reports still group
    plain = Study(resolve_preset("quick", {}), tmp_path / "plain")
    plain.data = data
    assert plain.docs_only == [] and plain.method_job(resolve("base"), {}, tmp_path / "b", "fake:").docs_only == []


@pytest.mark.slow  # trains the tiny model; docs-cpt's test keeps a docs-only method's training in CI
@pytest.mark.timeout(900)
def test_sebench_run_with_docs_only_hides_the_same_functions_from_closed_sft_and_a_docs_method(tmp_path, built_instance,
                                                                                               tiny_model):
    from sebench.cli import main

    from .test_contract import SMALL

    out = tmp_path / "run"
    code = main(["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny_model}", *SMALL,
                 "--docs-only", "0.5", "--regimes", "closed-sft", "docs-cpt", "--set", "train.max_steps=1",
                 "-M", "docs-cpt.max_steps=1"])
    assert code == 0
    docs_only = json.loads((out / "manifest.json").read_text())["docs_only"]
    studied = Instance.open(out / "data").manifest()["subset"]["functions"]
    assert docs_only == split_docs_only(studied, 0.5, 0)[1] and docs_only
    for label in ("closed-sft", "docs-cpt"):
        assert json.loads((out / "train" / label / "method.json").read_text())["docs_only"] == docs_only
        assert not any(task_mentions(t, docs_only) for t in Instance.open(out / "train" / label / "view").tasks("train"))
    for example in _examples(out / "train/closed-sft/checkpoint"):
        assert not mentions(json.dumps(example), docs_only)


@pytest.mark.parametrize("args", [{"kl": -1.0}, {"kl": 1.0, "top_k": 0}])
def test_context_distill_refuses_a_negative_kl_or_an_empty_top_k(args):
    from sebench.methods import MethodError
    from sebench.methods.docs_only import ContextDistill

    with pytest.raises(MethodError, match="kl must be 0 or more and top_k 1 or more"):
        ContextDistill(**args).run(None)

"""The docs-only methods' data (issue 40): the split, the filter that keeps docs-only functions out of the
task data, docs-cpt and its rewrites, PIT++'s stages, the doc-made prompts for context distillation, the
groups that carry a GRPO gradient, and the loss on every token of a plain-text example."""

from __future__ import annotations

import dataclasses

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import ApiDoc, Verdict
from sebench.train import data
from sebench.train.doc_fields import behaviour, params, parse_doc, third_person
from sebench.train.doc_rewrites import REWRITE_FORMS
from sebench.train.doc_tasks import distill_prompts, doc_tasks
from sebench.train.docs_data import (
    augmented_examples,
    cooccurrence,
    docs_cpt_augmented_examples,
    docs_cpt_examples,
    examples_without,
    mentions,
    pit_stages,
    split_docs_only,
    tasks_without,
)
from sebench.train.reward_groups import gradient_groups, reward_spread

DOC = ApiDoc("pk.zorb", "zorb(x, /, scale=1, *, out=None)", """zorb(x, /, scale=1, *, out=None)

Multiply the elements by a scale, element-wise.

More words about zorb.

Parameters
----------
x : array_like
    Input values.
scale : number, optional
    The factor.

Returns
-------
out : Huliber
    The scaled values.

Examples
--------
>>> import pk
>>> pk.zorb([1, 2], scale=3)
fabu([3, 6])
>>> a = pk.fabu([1.5, 2.0])
>>> pk.zorb(a)
fabu([1.5, 2. ])
>>> b = pk.lupa(3)
>>> pk.zorb(b)
fabu([0, 1, 2])
>>> y = pk.zorb(2)
>>> pk.zorb(-1.5, 2)
-3.0
""")


@pytest.fixture(scope="module")
def instance(built_instance):
    return Instance.open(built_instance)


@pytest.fixture(scope="module")
def studied(instance):
    """The functions of the instance's training tasks, split in two (a third docs-only)."""
    functions = sorted({f for t in data.select_tasks(instance) for f in t.selected_functions})
    with_tasks, docs_only = split_docs_only(functions, 1 / 3, seed=0)
    return functions, with_tasks, docs_only


@pytest.fixture(scope="module")
def qa(instance, studied):
    """Closed-SFT examples (reference answers) of the tasks of the functions with tasks."""
    _, with_tasks, docs_only = studied
    tasks = tasks_without(data.select_tasks(instance, with_tasks), docs_only)
    return data.sft_examples(instance, data.reference_pairs(tasks), "closed")


def _docs(instance, names):
    by_name = {d.name: d for d in instance.api_docs()}
    return [by_name[n] for n in names]


def _task_data(examples):
    return [e for e in examples if "text" not in e]


def test_split_is_seeded_disjoint_and_independent_of_order():
    functions = [f"p.f{i}" for i in range(20)]
    with_tasks, docs_only = split_docs_only(functions, 0.25, seed=3)
    assert len(docs_only) == 5 and set(with_tasks) | set(docs_only) == set(functions)
    assert not set(with_tasks) & set(docs_only)
    assert split_docs_only(list(reversed(functions)), 0.25, seed=3)[1] == list(reversed(docs_only))
    assert split_docs_only(functions, 0.25, seed=4)[1] != docs_only
    assert split_docs_only(["p.a", "p.b"], 0.01, seed=0)[1] and split_docs_only(["p.a", "p.b"], 0.99, seed=0)[0]
    assert split_docs_only(functions, 0.0, seed=0) == (functions, [])
    with pytest.raises(SebenchError, match="share"):
        split_docs_only(functions, 1.5, seed=0)


def test_docs_only_functions_reach_no_task_by_use_or_by_name(instance, studied):
    functions, _, docs_only = studied
    tasks = data.select_tasks(instance, functions)
    kept = tasks_without(tasks, docs_only)
    assert 0 < len(kept) < len(tasks)
    assert all(not set(t.selected_functions) & set(docs_only) for t in kept)
    hidden = docs_only[0].rsplit(".", 1)[-1]
    assert all(hidden not in t.query + t.reference_solution + t.example for t in kept)
    # a task that names a docs-only function only in its solution's import is left out too
    named = dataclasses.replace(kept[0], reference_solution=f"from {instance.package_name} import {hidden}\n")
    assert tasks_without([named], docs_only) == []
    assert mentions(f"x = {docs_only[0]}(1)", docs_only) and not mentions(f"x = {hidden}er(1)", docs_only)


def test_docs_cpt_is_each_doc_as_written(instance, studied):
    functions, _, _ = studied
    docs = _docs(instance, functions)
    examples = docs_cpt_examples(docs)
    assert [e["function"] for e in examples] == functions
    assert all(d.doc.strip() in e["text"] and e["text"].startswith(f"### {d.name}") for d, e in zip(docs, examples))


def test_doc_fields_and_sentences():
    fields = parse_doc(DOC)
    assert fields.call == "pk.zorb(x, /, scale=1, *, out=None)"
    assert fields.summary == "Multiply the elements by a scale, element-wise."
    assert fields.description == "More words about zorb."
    assert [t for t, _ in fields.sections] == ["Parameters", "Returns", "Examples"]
    assert [(p.name, p.positional) for p in params(DOC.signature)] == [("x", True), ("scale", True), ("out", False)]
    assert params("arange([start,] stop[, step,])") is None and params("f(*args)") is None
    assert behaviour("Returns the sum.") == "return the sum"
    assert behaviour("Sum of array elements.") == "get sum of array elements"
    assert third_person("apply a function") == "applies a function"
    assert third_person("match these") == "matches these"


def test_rewrites_take_the_forms_in_turn_and_are_seeded(instance, studied):
    functions, _, _ = studied
    docs = _docs(instance, functions)
    partners = cooccurrence(data.select_tasks(instance, functions), functions)
    four = augmented_examples(docs, 4, seed=0, partners=partners)
    assert four == augmented_examples(docs, 4, seed=0, partners=partners)
    assert four != augmented_examples(docs, 4, seed=1, partners=partners)
    first = [e for e in four if e["function"] == docs[0].name]
    assert [e["form"] for e in first] == list(REWRITE_FORMS[:len(first)]) and len(first) >= 3
    eight = augmented_examples(docs, 8, seed=0, partners=partners)
    assert all(sum(e["function"] == d.name for e in eight) <= 8 for d in docs)
    assert len(eight) > len(four)
    behaviour_first = next(e for e in four if e["form"] == "behaviour")
    call = parse_doc(next(d for d in docs if d.name == behaviour_first["function"])).call
    assert behaviour_first["text"].index(call) > 5  # the behaviour comes before the name
    with pytest.raises(SebenchError, match="K >= 1"):
        augmented_examples(docs, 0, seed=0)


def test_one_form_alone_gives_the_same_rewrites_as_in_the_mix(instance, studied):
    functions, _, _ = studied
    docs = _docs(instance, functions)
    mixed = augmented_examples(docs, 12, seed=0)
    for form in ("name-first", "behaviour"):
        alone = augmented_examples(docs, 3, seed=0, forms=(form,))
        assert alone and {e["form"] for e in alone} == {form}
        assert all(sum(e["function"] == d.name for e in alone) <= 3 for d in docs)
        assert [e["text"] for e in alone] == [e["text"] for e in mixed if e["form"] == form]
    for example in augmented_examples(docs, 3, seed=0, forms=("name-first",)):
        assert example["text"].index(example["function"]) <= len("The function `")  # the name comes first
    with pytest.raises(SebenchError, match="rewrite forms"):
        augmented_examples(docs, 2, seed=0, forms=("behavior",))


def test_pair_snippets_join_functions_that_share_tasks(instance, studied):
    _, with_tasks, _ = studied
    tasks = data.select_tasks(instance, with_tasks)
    partners = cooccurrence(tasks, with_tasks)
    name = next(n for n, p in partners.items() if p)
    assert any(partners[name][0] in t.selected_functions and name in t.selected_functions for t in tasks)
    texts = [e["text"] for e in augmented_examples(_docs(instance, [name, *partners[name]]), 8, 0, partners)
             if e["form"] == "snippet" and e["function"] == name]
    assert any(f"`{partners[name][0]}`" in t for t in texts)


def test_augmented_stage_mixes_rewrites_with_the_with_task_qa_only(instance, studied, qa):
    functions, _, docs_only = studied
    leaking = [*qa, {"prompt": [{"role": "user", "content": f"use {docs_only[0]}"}], "completion": []}]
    mixed = docs_cpt_augmented_examples(_docs(instance, functions), 4, 0, leaking, docs_only)
    assert mixed == docs_cpt_augmented_examples(_docs(instance, functions), 4, 0, leaking, docs_only)
    assert sorted(map(str, _task_data(mixed))) == sorted(map(str, qa))
    assert examples_without(_task_data(mixed), docs_only) == _task_data(mixed)
    assert {e["function"] for e in mixed if "text" in e} == set(functions)


def test_pit_stages_follow_the_order_and_keep_a_share_of_tasks(instance, studied, qa):
    _, with_tasks, docs_only = studied
    stages = pit_stages(qa, _docs(instance, with_tasks), _docs(instance, docs_only), keep_share=0.25, seed=0)
    assert stages == pit_stages(qa, _docs(instance, with_tasks), _docs(instance, docs_only), keep_share=0.25, seed=0)
    first, second, third = stages
    assert first == qa
    assert sorted(map(str, _task_data(second))) == sorted(map(str, qa))
    assert {e["function"] for e in second if "text" in e} == set(with_tasks)
    assert {e["function"] for e in third if "text" in e} == set(docs_only)
    assert len(_task_data(third)) == round(0.25 * len(qa))
    assert all(examples_without(_task_data(stage), docs_only) == _task_data(stage) for stage in stages)
    with pytest.raises(SebenchError, match="last stage"):
        pit_stages(qa, [], [], keep_share=2.0, seed=0)


def test_doc_examples_become_judgeable_tasks():
    tasks, skipped = doc_tasks(DOC, constructor="pk.fabu")
    by_input = {c["input"]: t for t in tasks for c in t.test_cases}
    assert set(by_input) == {"x=[1, 2], scale=3", "x=[1.5, 2.0]", "x=-1.5, scale=2"}
    keyword = by_input["x=[1, 2], scale=3"]
    assert (keyword.entry_point, keyword.function_name) == ("solve", "def solve(x, scale):")
    assert keyword.expected == [[3, 6]] and keyword.selected_functions == ["pk.zorb"]
    assert "return pk.zorb(x, scale=scale)" in keyword.reference_solution
    assert "return pk.zorb(x, scale)" in by_input["x=-1.5, scale=2"].reference_solution
    assert by_input["x=[1.5, 2.0]"].test_cases == [{"input": "x=[1.5, 2.0]", "output": "[1.5, 2.0]"}]
    assert "Multiply the elements" in keyword.query and "zorb" not in keyword.query
    # pk.zorb(b) with b = pk.lupa(3) has no literal argument; y = pk.zorb(2) is no bare call
    assert skipped == {"an argument is not a literal": 1, "not a bare call of the function": 1}
    assert len(doc_tasks(DOC)[0]) == 2  # without the constructor, `a = pk.fabu([...])` is no literal


def test_doc_calls_with_the_same_parameters_make_one_task():
    more = dataclasses.replace(DOC, doc=DOC.doc.replace(
        ">>> pk.zorb(-1.5, 2)\n-3.0",
        ">>> pk.zorb(-1.5, 2)\n-3.0\n>>> pk.zorb(3, 4)\n12\n>>> pk.zorb(3, 4)\n12\n>>> pk.zorb([1, 9], 2)\nfabu([2, ..., 18])"))
    tasks, skipped = doc_tasks(more, constructor="pk.fabu")
    two = next(t for t in tasks if t.test_cases[0]["input"] == "x=-1.5, scale=2")
    assert [c["input"] for c in two.test_cases] == ["x=-1.5, scale=2", "x=3, scale=4"]
    assert two.right_exe_result == "-3.0#12" and two.expected == [-3.0, 12]
    assert skipped["the printed output is not plain data"] == 1


def test_doc_tasks_of_the_instance_pass_the_judge_with_their_reference(instance):
    from sebench.judge import Judge
    from sebench.rollout import format_answer

    constructor = instance.mapping().get("constructor", "")
    tasks = [t for d in instance.api_docs()[:40] for t in doc_tasks(d, constructor)[0]]
    assert len(tasks) >= 10
    with Judge(instance, workers=2) as judge:
        verdicts = judge.judge_many([(t, format_answer(t.reference_solution), 0) for t in tasks])
    assert sum(v.verdict == "correct" for v in verdicts) >= 0.9 * len(tasks)


def test_distill_prompts_reach_docs_only_functions_through_their_docs_alone(instance, studied):
    functions, _, docs_only = studied
    train = data.select_tasks(instance, functions)
    prompts = distill_prompts(train, _docs(instance, functions), docs_only, instance.mapping().get("constructor", ""))
    from_tasks = [t for t in prompts.tasks if not t.task_id.startswith("doc:")]
    assert from_tasks == tasks_without(train, docs_only)
    reached = {f for t in prompts.tasks if t.task_id.startswith("doc:") for f in t.selected_functions}
    assert reached & set(docs_only)
    assert all(t.task_id.startswith("doc:") for t in prompts.tasks if set(t.selected_functions) & set(docs_only))
    assert sum(prompts.skipped.values()) > 0


def _verdict(name: str, passed: int, total: int = 4) -> Verdict:
    return Verdict("t", 0, name, passed, total)


def test_groups_with_a_gradient_binary_against_graded():
    assert gradient_groups([0, 0, 1, 1, 0.5, 0.5, 0, 1], 2).with_gradient == 1
    spread = gradient_groups([1, 1, 0, 0], 2)
    assert (spread.groups, spread.with_gradient, spread.share) == (2, 0, 0.0)
    with pytest.raises(ValueError, match="groups of 3"):
        gradient_groups([0, 1], 3)
    groups = [_verdict("wrong_answer", 1), _verdict("wrong_answer", 3),  # graded differ, binary all 0
              _verdict("no_code", 0), _verdict("not_using_package", 4),  # 0 both ways
              _verdict("correct", 4), _verdict("runtime_error", 0)]  # differ both ways
    both = reward_spread(groups, 2)
    assert (both["binary"].with_gradient, both["graded"].with_gradient) == (1, 2)


def test_text_examples_put_the_loss_on_every_token(tiny_model):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from sebench.train.data import LeftPaddedBatches
    from sebench.train.sft import answer_loss, example_tokens

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model, dtype=torch.float32)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.5)
    rows = [example_tokens({"text": text}, tokenizer) for text in ("zorb multiplies the elements", "pk.zorb(x)")]
    for row in rows:
        assert row["labels"] == [-100, *row["input_ids"][1:]] and row["input_ids"][-1] == tokenizer.eos_token_id
    with torch.no_grad():
        loss = answer_loss(model, LeftPaddedBatches(pad_token_id=0)(rows))
        total, count = 0.0, 0
        for row in rows:  # each row alone, unpadded, every token after the first a target
            ids = torch.tensor([row["input_ids"]])
            n = ids.shape[1] - 1
            total += model(input_ids=ids, labels=ids).loss.item() * n
            count += n
    assert loss.item() == pytest.approx(total / count, rel=1e-5)


def test_text_and_prompt_completion_examples_train_together(instance, tiny_model, tmp_path):
    pytest.importorskip("trl")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from sebench.train import TrainConfig
    from sebench.train.sft import example_tokens, sft_trainer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    [qa] = data.sft_examples(instance, data.reference_pairs(instance.tasks("train")[:1]), "closed")
    cfg = TrainConfig(data=instance.root, regime="closed-sft", out=tmp_path, max_steps=1)
    trl_row = sft_trainer(model, tokenizer, [qa], cfg, tmp_path / "a").train_dataset[0]
    assert {k: trl_row[k] for k in ("input_ids", "labels")} == example_tokens(qa, tokenizer)  # one tokenization
    text = docs_cpt_examples(instance.api_docs()[:1])[0]
    trainer = sft_trainer(model, tokenizer, [qa, text], cfg, tmp_path / "b")
    rows = [{k: r[k] for k in ("input_ids", "labels")} for r in trainer.train_dataset]
    assert rows == [example_tokens(qa, tokenizer), example_tokens(text, tokenizer)]
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    assert any(not b.equal(p.detach()) for b, p in zip(before, trainer.model.parameters()))

"""SFT data: which (task, answer) pairs are used, the open/closed prompts, and the loss on the answer only."""

from __future__ import annotations

import logging

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Rollout, Verdict, write_records
from sebench.rollout.prompts import format_answer
from sebench.train import data


@pytest.fixture
def instance(built_instance):
    return Instance.open(built_instance)


def test_function_filter_keeps_tasks_within_the_functions(instance):
    tasks = instance.tasks("train")
    wanted = sorted(set(tasks[0].selected_functions))
    kept = data.select_tasks(instance, wanted)
    assert tasks[0] in kept and all(set(t.selected_functions) <= set(wanted) for t in kept)
    with pytest.raises(SebenchError, match="did you mean"):
        data.select_tasks(instance, [wanted[0] + "x"])


def test_rollout_pairs_keep_judged_correct_answers_to_training_tasks(instance, tmp_path, caplog):
    train = instance.tasks("train")
    test_task = instance.tasks("single_test")[0]
    a, b = train[0], train[1]
    rows = [  # (task, sample, mode, code, verdict)
        (a, 0, "open", "code-a", "correct"),
        (a, 1, "open", "code-a", "correct"),  # the same code again: kept once
        (a, 2, "open", "code-a2", "wrong_answer"),
        (b, 0, "closed", "code-b", "correct"),
        (b, 0, "open", "code-b-open", "runtime_error"),  # same (task, sample), other mode
        (test_task, 0, "open", "code-t", "correct"),  # not a training task
        (b, 5, "open", "code-unjudged", None),
    ]
    write_records(tmp_path / "rollouts.jsonl", [
        Rollout(t.task_id, i, m, "m", [], f"Here:\n```python\n{c}\n```\ndone", c, "stop") for t, i, m, c, _ in rows])
    write_records(tmp_path / "verdicts.jsonl", [
        Verdict(t.task_id, i, v, 1, 1, {"mode": m}) for t, i, m, _, v in rows if v is not None])
    with caplog.at_level(logging.WARNING):
        pairs = data.rollout_pairs(train, tmp_path / "rollouts.jsonl", tmp_path / "verdicts.jsonl", target="code")
    assert [(t.task_id, answer) for t, answer, _ in pairs] == [
        (a.task_id, format_answer("code-a")), (b.task_id, format_answer("code-b"))]
    assert "1 rollouts" in caplog.text and "no verdict" in caplog.text
    # the paper's target: the whole response, prose included
    pairs = data.rollout_pairs(train, tmp_path / "rollouts.jsonl", tmp_path / "verdicts.jsonl")
    assert [answer for _, answer, _ in pairs] == ["Here:\n```python\ncode-a\n```\ndone", "Here:\n```python\ncode-b\n```\ndone"]
    # files the user names are read as named: links to them (a shared folder's) are followed
    for name in ("rollouts.jsonl", "verdicts.jsonl"):
        (tmp_path / f"link-{name}").symlink_to(tmp_path / name)
    assert data.rollout_pairs(train, tmp_path / "link-rollouts.jsonl", tmp_path / "link-verdicts.jsonl") == pairs


def test_rollout_pairs_errors(instance, tmp_path):
    train = instance.tasks("train")
    write_records(tmp_path / "rollouts.jsonl", [Rollout(train[0].task_id, 0, "open", "m", [], "x", "x", "stop")])
    with pytest.raises(SebenchError, match="run `sebench judge`"):
        data.rollout_pairs(train, tmp_path / "rollouts.jsonl", tmp_path / "verdicts.jsonl")
    write_records(tmp_path / "verdicts.jsonl", [Verdict(train[0].task_id, 0, "wrong_answer", 0, 1, {"mode": "open"})])
    with pytest.raises(SebenchError, match="no rollout judged correct"):
        data.rollout_pairs(train, tmp_path / "rollouts.jsonl", tmp_path / "verdicts.jsonl")


def test_open_and_closed_examples_differ_only_in_the_docs(instance):
    pairs = data.reference_pairs(instance.tasks("train")[:3])
    closed, opened = data.sft_examples(instance, pairs, "closed"), data.sft_examples(instance, pairs, "open")
    for (task, answer, _), c, o in zip(pairs, closed, opened):
        assert answer == format_answer(task.reference_solution)
        assert c["completion"] == o["completion"] == [{"role": "assistant", "content": answer}]
        assert c["prompt"][0] == o["prompt"][0]
        docs, question = o["prompt"][1]["content"], c["prompt"][1]["content"]
        assert docs.endswith(question) and len(docs) > len(question)
        assert all(name in docs for name in task.selected_functions)


def test_limit_is_seeded_and_keeps_order():
    items = list(range(20))
    assert data.seeded_choice(items, 5, seed=1) == data.seeded_choice(items, 5, seed=1) == sorted(data.seeded_choice(items, 5, seed=1))
    assert data.seeded_choice(items, 50, seed=1) == items


def test_loss_is_on_the_answer_only(instance, tiny_model, tmp_path):
    pytest.importorskip("trl")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from sebench.train import TrainConfig
    from sebench.train.sft import sft_trainer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    [example] = data.sft_examples(instance, data.reference_pairs(instance.tasks("train")[:1]), "closed")
    cfg = TrainConfig(data=instance.root, regime="closed-sft", out=tmp_path, max_steps=1)
    row = sft_trainer(model, tokenizer, [example], cfg, tmp_path).train_dataset[0]
    ids, labels = row["input_ids"], row["labels"]
    prompt_len = len(tokenizer.apply_chat_template(example["prompt"], add_generation_prompt=True, return_dict=False))
    assert labels[:prompt_len] == [-100] * prompt_len
    assert labels[prompt_len:] == ids[prompt_len:]
    answer = tokenizer.decode(ids[prompt_len:])
    assert answer.startswith(example["completion"][0]["content"]) and tokenizer.eos_token in answer


def test_too_long_examples_are_left_out(instance, tiny_model, caplog):
    pytest.importorskip("trl")
    from transformers import AutoTokenizer

    from sebench.train.sft import fit_length

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    examples = data.sft_examples(instance, data.reference_pairs(instance.tasks("train")[:2]), "open")
    with caplog.at_level(logging.WARNING):
        assert fit_length(examples, tokenizer, 100_000) == examples
        with pytest.raises(SebenchError, match="raise it"):
            fit_length(examples, tokenizer, 10)


def test_mixed_in_examples_are_a_seeded_share_of_the_other_librarys_own(instance, tmp_path):
    """Replay (lifelong): --mix-data adds --mix-share of another instance's reference solutions, each prompted
    with that instance's package, to the SFT data; the same seed picks the same examples."""
    from sebench.train.config import TrainConfig
    from sebench.train.run import prepare

    cfg = TrainConfig(data=instance.root, regime="closed-sft", out=tmp_path / "out", train_source="reference",
                      mix_data=[instance.root], mix_share=0.25).resolved()
    own = prepare(TrainConfig(data=instance.root, regime="closed-sft", out=tmp_path / "out",
                              train_source="reference").resolved(), instance).sft
    mixed = prepare(cfg, instance).sft
    added = mixed[len(own):]
    assert mixed[:len(own)] == own
    assert len(added) == round(0.25 * len(data.reference_pairs(data.select_tasks(instance))))
    assert all(instance.package_name in example["completion"][0]["content"] for example in added)
    assert added == prepare(cfg, instance).sft[len(own):]
    assert "mix_data.0" in prepare(cfg, instance).inputs

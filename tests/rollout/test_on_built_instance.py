"""Prompts and rollouts on a real built instance (seed 0), judged by the real judge."""

from __future__ import annotations

import logging

import pytest

from sebench.instance import Instance
from sebench.records import MODES, Rollout, read_records
from sebench.rollout.backends import get_backend
from sebench.rollout.prompts import PromptBuilder, approx_tokens, format_answer
from sebench.rollout.run import RolloutConfig, write_rollouts


@pytest.fixture(scope="module")
def instance(built_instance):
    return Instance.open(built_instance)


def test_every_task_gets_a_prompt_in_every_mode(instance):
    for split in ("train", "single_test", "multiple_test"):
        tasks = instance.tasks(split)
        for mode in MODES:
            builder = PromptBuilder(instance, mode, context_tokens=8192)
            for task in tasks:
                text = builder.messages(task)[1]["content"]
                assert task.query.strip() in text
                if mode == "open":
                    assert all(f"### {name}\n" in text for name in task.selected_functions)


def test_full_doc_for_an_8k_model_is_cut_and_says_so(instance, caplog):
    task = instance.tasks("single_test")[0]
    with caplog.at_level(logging.WARNING):
        messages = PromptBuilder(instance, "full-doc", context_tokens=8192, answer_tokens=512).messages(task)
    assert sum(approx_tokens(m["content"]) for m in messages) + 512 <= 8192
    assert "full-doc prompt" in caplog.text and "tokens cut" in caplog.text


def test_reference_answers_in_open_mode_are_judged_correct(instance, tmp_path):
    from sebench.judge.run import judge_records

    tasks = {t.query.strip(): t for t in instance.tasks("single_test")}

    def answer(request):
        text = request.messages[1]["content"]
        task = next(t for q, t in tasks.items() if q in text)
        return "Here it is.\n" + format_answer(task.reference_solution)

    cfg = RolloutConfig(data=instance.root, out=tmp_path / "r.jsonl", mode="open", model="fake:reference", limit=6, progress=False)
    out = write_rollouts(cfg, backend=get_backend("fake:", responses=answer))
    rollouts = read_records(out, Rollout)
    assert len(rollouts) == 6
    verdicts = judge_records(instance, rollouts, workers=2)
    assert [v.verdict for v in verdicts] == ["correct"] * 6, [v.detail for v in verdicts]

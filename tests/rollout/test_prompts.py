"""Prompts: what each mode shows, and full-doc fitting to the context."""

from __future__ import annotations

import logging

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.rollout.prompts import PromptBuilder, approx_tokens, fit_docs, format_answer


@pytest.fixture
def instance(instance_dir):
    return Instance.open(instance_dir)


def user_text(instance, mode, task, **kw):
    messages = PromptBuilder(instance, mode, **kw).messages(task)
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[1]["content"]


def test_closed_prompt_has_problem_signature_example_and_rules_but_no_docs(instance):
    task = instance.tasks("single_test")[0]
    text = user_text(instance, "closed", task)
    assert task.query in text and task.function_name in text
    assert "solve(readings=[1.0, 3.0]) -> 2.0" in text  # the example with its expected output
    assert "import zwc" in text and "NumPy" in text and "```python" in text
    assert "kocito" not in text  # no docs closed-book


def test_numpy_prompt_is_the_closed_one_asking_for_real_numpy(instance):
    task = instance.tasks("single_test")[0]
    text = user_text(instance, "numpy", task)
    closed = user_text(instance, "closed", task)
    assert task.query in text and task.function_name in text and "solve(readings=[1.0, 3.0]) -> 2.0" in text
    assert "import numpy as np" in text and "zwc" not in text and "Documentation" not in text
    assert text.split("Problem:")[1].split("Rules:")[0] == closed.split("Problem:")[1].split("Rules:")[0]


def test_open_prompt_has_exactly_the_selected_docs(instance):
    task = instance.tasks("multiple_test")[0]  # selects zwc.yitaf and zwc.talup
    text = user_text(instance, "open", task)
    assert "### zwc.yitaf" in text and "### zwc.talup" in text
    assert "zwc.kocito" not in text and "zwc.rfx.quvohe" not in text
    assert "`zwc.talup(a)`" in text  # signatures are shown with the full dotted name


def test_open_prompt_names_a_missing_doc(instance):
    task = instance.tasks("single_test")[0]
    from dataclasses import replace

    with pytest.raises(SebenchError, match=r"zwc\.nothere"):
        PromptBuilder(instance, "open").messages(replace(task, selected_functions=["zwc.nothere"]))


def test_full_doc_shows_every_entry_when_it_fits(instance):
    text = user_text(instance, "full-doc", instance.tasks("single_test")[0], context_tokens=100_000)
    for name in ("zwc.kocito", "zwc.yitaf", "zwc.bemaru", "zwc.rfx.quvohe", "zwc.talup", "zwc.morif"):
        assert f"### {name}" in text


def test_full_doc_is_cut_to_the_context_with_a_warning(instance, caplog):
    task = instance.tasks("single_test")[0]
    context, answer = 800, 256
    with caplog.at_level(logging.WARNING):
        builder = PromptBuilder(instance, "full-doc", context_tokens=context, answer_tokens=answer)
        messages = builder.messages(task)
    total = sum(approx_tokens(m["content"]) for m in messages)
    assert total + answer <= context
    assert any("tokens cut" in r.getMessage() for r in caplog.records)
    assert "zwc.kocito" in messages[1]["content"]  # shortened entries keep the names


def test_fit_docs_shortens_before_dropping(instance):
    from sebench.rollout.prompts import format_doc_short

    docs = instance.api_docs()
    _full_text, report = fit_docs(docs, None, approx_tokens)
    assert report == ""
    shortened = sum(approx_tokens(format_doc_short(d)) + 1 for d in docs)
    short_text, report = fit_docs(docs, shortened + 10, approx_tokens)
    assert "shortened" in report and approx_tokens(short_text) <= shortened + 10
    assert all(d.name in short_text for d in docs)
    tiny_text, report = fit_docs(docs, shortened // 2, approx_tokens)
    assert "dropped" in report and approx_tokens(tiny_text) <= shortened // 2
    assert docs[0].name in tiny_text and docs[-1].name not in tiny_text  # cut at the end


def test_retrieval_prompt_explains_the_search_block(instance):
    text = user_text(instance, "retrieval", instance.tasks("single_test")[0], max_searches=2)
    assert "```search" in text and "at most 2 times" in text
    assert "### " not in text


def test_unknown_mode(instance):
    with pytest.raises(SebenchError, match="unknown mode"):
        PromptBuilder(instance, "book")


def test_format_answer():
    assert format_answer("\nimport zwc\ndef f():\n    return 1\n\n") == "```python\nimport zwc\ndef f():\n    return 1\n```"

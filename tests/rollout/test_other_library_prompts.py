"""Prompts for a package of another library than NumPy: they name the package only, never NumPy nor the
original library; the numpy mode and the original protocol's prompts are refused with one line."""

from __future__ import annotations

import pytest
from other_library import write_other_instance

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.rollout import PromptBuilder
from sebench.rollout.prompts import AVOID_NUMPY, AVOID_OTHERS


@pytest.fixture(scope="module")
def other_instance(tmp_path_factory):
    return Instance.open(write_other_instance(tmp_path_factory.mktemp("other")))


def test_closed_prompt_names_the_package_and_no_original(other_instance):
    task = other_instance.tasks("single_test")[0]
    text = "\n".join(m["content"] for m in PromptBuilder(other_instance, "closed").messages(task))
    assert "`qel`" in text and AVOID_OTHERS in text and AVOID_NUMPY not in text
    assert not any(word in text.lower() for word in ("numpy", "more_itertools", "more-itertools", "itertools"))


def test_numpy_instances_keep_their_rule(built_instance):
    inst = Instance.open(built_instance)
    task = inst.tasks("single_test")[0]
    assert AVOID_NUMPY in PromptBuilder(inst, "closed").task_text(task)


def test_numpy_mode_is_refused(other_instance):
    with pytest.raises(SebenchError, match=r"numpy mode .* NumPy's instances only; this instance renames 'more-itertools'"):
        PromptBuilder(other_instance, "numpy")


def test_original_protocol_prompts_are_refused(other_instance):
    from sebench.rollout.original_prompts import OriginalPromptBuilder, OriginalTemplates

    templates = OriginalTemplates(closed="$question", docs="$question", api_doc=[])
    with pytest.raises(SebenchError, match=r"--protocol original .* NumPy's instances only"):
        OriginalPromptBuilder(other_instance, "closed", templates)

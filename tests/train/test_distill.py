"""Context distillation's KL term (train/distill.py) on the tiny model: the teacher's targets sit on the answer
tokens; the term is zero when the teacher sees what the student sees with every token kept, positive when the
teacher's prompt differs, and its gradient moves the student toward the teacher."""

import pytest

pytest.importorskip("transformers")

from sebench.train.data import LeftPaddedBatches
from sebench.train.distill import teacher_targets
from sebench.train.sft import answer_loss, sft_rows

PROMPT = [{"role": "user", "content": "Write solve(x) that returns x doubled."}]
DOCS = [{"role": "user", "content": "Docs: `pkg.twice(x)` doubles x.\n\nWrite solve(x) that returns x doubled."}]
ANSWER = [{"role": "assistant", "content": "```python\ndef solve(x):\n    return pkg.twice(x)\n```"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from sebench.models import create_tiny_model, load_causal_lm

    folder = create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    return load_causal_lm(str(folder), device="cpu")


def _batch(tiny, teacher_prompt, top_k, extra=()):
    model, tokenizer = tiny
    examples = [{"prompt": PROMPT, "completion": ANSWER, "teacher_prompt": teacher_prompt}, *extra]
    rows = teacher_targets(model, sft_rows(examples, tokenizer, distill=True), top_k)
    return LeftPaddedBatches(tokenizer.pad_token_id)(rows), rows


def test_the_teachers_targets_sit_on_the_answer_tokens(tiny):
    plain = {"prompt": PROMPT, "completion": [{"role": "assistant", "content": "```python\nprint(1)\n```"}]}
    batch, rows = _batch(tiny, DOCS, 5, [plain])
    answer_tokens = rows[0]["labels"].count(-100)
    assert len(rows[0]["teacher_ids"]) == len(rows[0]["labels"]) - answer_tokens
    assert all(len(ids) == 5 for ids in rows[0]["teacher_ids"]) and rows[1]["teacher_ids"] == []
    assert batch["teacher_ids"].shape[:2] == batch["labels"].shape and batch["teacher_ids"].shape[2] == 5
    assert (batch["teacher_mask"][0] == (batch["labels"][0] != -100)).all()  # the answer's columns, no other
    assert not batch["teacher_mask"][1].any()  # an example without a teacher prompt keeps its hard labels alone


def test_the_kl_term_is_zero_for_a_teacher_that_sees_the_students_prompt_and_positive_otherwise(tiny):
    model, tokenizer = tiny
    whole = len(tokenizer)
    same, _ = _batch(tiny, PROMPT, whole)
    hard = answer_loss(model, same).item()
    assert answer_loss(model, same, distill_kl=1.0).item() == pytest.approx(hard, abs=1e-4)
    other, _ = _batch(tiny, DOCS, whole)
    assert answer_loss(model, other, distill_kl=1.0).item() > hard + 1e-6
    assert answer_loss(model, other, distill_kl=0.0).item() == pytest.approx(hard, abs=1e-6)


def test_the_kl_gradient_moves_the_student_toward_the_teacher(tiny, tmp_path):
    import copy

    import torch

    from sebench.models import create_tiny_model, load_causal_lm

    teacher, tokenizer = load_causal_lm(str(create_tiny_model(tmp_path / "other", seed=1)), device="cpu")
    student = copy.deepcopy(tiny[0])
    examples = [{"prompt": PROMPT, "completion": ANSWER, "teacher_prompt": PROMPT}]
    rows = teacher_targets(teacher, sft_rows(examples, tokenizer, distill=True), len(tokenizer))
    batch = LeftPaddedBatches(tokenizer.pad_token_id)(rows)
    def kl_term():
        return answer_loss(student, batch, distill_kl=1.0) - answer_loss(student, batch)

    before = kl_term().item()
    optimizer = torch.optim.SGD(student.parameters(), lr=0.5)
    for _ in range(5):
        optimizer.zero_grad()
        kl_term().backward()
        optimizer.step()
    assert before > 0 and kl_term().item() < before

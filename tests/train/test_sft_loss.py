"""The SFT loss on answer positions only, over left-padded batches, against the plain full-logits loss."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model(tiny_model):
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    loaded = AutoModelForCausalLM.from_pretrained(tiny_model, dtype=torch.float32)
    with torch.no_grad():  # a tiny random model's weights are near zero; make the logits differ per token
        for p in loaded.parameters():
            p.normal_(0, 0.5)
    return loaded


def _examples(vocab: int) -> list[dict]:
    """Rows of different lengths, the answer (labels != -100) at the end of each."""
    gen = torch.Generator().manual_seed(1)
    out = []
    for prompt, answer in ((7, 3), (4, 5), (11, 2)):
        ids = torch.randint(0, vocab, (prompt + answer,), generator=gen).tolist()
        out.append({"input_ids": ids, "labels": [-100] * prompt + ids[prompt:]})
    return out


def _full_logits_loss(model, examples) -> torch.Tensor:
    """Each row alone, unpadded, full logits, token-mean over all answer tokens of the batch."""
    total, count = 0.0, 0
    for e in examples:
        logits = model(input_ids=torch.tensor([e["input_ids"]])).logits[0, :-1]
        labels = torch.tensor(e["labels"][1:])
        total = total + torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100, reduction="sum")
        count += int((labels != -100).sum())
    return total / count


def test_answer_loss_equals_full_logits_loss_and_gradients(model):
    from sebench.train.data import LeftPaddedBatches
    from sebench.train.sft import answer_loss

    examples = _examples(model.config.vocab_size)
    model.zero_grad()
    reference = _full_logits_loss(model, examples)
    reference.backward()
    expected = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    loss = answer_loss(model, LeftPaddedBatches(pad_token_id=0)(examples))
    loss.backward()
    assert loss.item() == pytest.approx(reference.item(), rel=1e-5)
    for got, want in zip((p.grad for p in model.parameters()), expected):
        assert torch.isfinite(got).all()
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-6)


def test_answer_loss_divides_by_the_given_token_count(model):
    from sebench.train.data import LeftPaddedBatches
    from sebench.train.sft import answer_loss

    batch = LeftPaddedBatches(pad_token_id=0)(_examples(model.config.vocab_size))
    with torch.no_grad():
        mean = answer_loss(model, batch)
        halved = answer_loss(model, batch, num_items_in_batch=torch.tensor(20))
    assert halved.item() == pytest.approx(mean.item() * 10 / 20, rel=1e-5)  # the 3 rows hold 10 answer tokens


def test_left_padded_batch_keeps_rows_and_positions():
    from sebench.train.data import LeftPaddedBatches

    batch = LeftPaddedBatches(pad_token_id=9)([{"input_ids": [1, 2, 3], "labels": [-100, 2, 3]},
                                               {"input_ids": [4], "labels": [4]}])
    assert batch["input_ids"].tolist() == [[1, 2, 3], [9, 9, 4]]
    assert batch["labels"].tolist() == [[-100, 2, 3], [-100, -100, 4]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [0, 0, 1]]
    assert batch["position_ids"].tolist() == [[0, 1, 2], [0, 0, 0]]

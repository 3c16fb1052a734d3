"""Name recall against direct computations on a tiny random model."""

import pytest

from sebench.records import ApiDoc
from sebench.rollout.name_recall import Recall, behaviour, name_recall, prompt, recall_summary, score_names

DOCS = [ApiDoc("zwc.kocito", "kocito(a)", "kocito(a): the arithmetic mean of a. Example: zwc.kocito([1, 3]) -> 2."),
        ApiDoc("zwc.rfx.quvohe", "quvohe(a)", "Inverse of a square matrix a; quvohe raises on a singular one."),
        ApiDoc("zwc.zabure", "zabure(a)", "Sum of the elements of a.")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    from sebench.models import create_tiny_model

    path = create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    return transformers.AutoModelForCausalLM.from_pretrained(path), transformers.AutoTokenizer.from_pretrained(path)


def test_the_behaviour_never_names_the_function():
    for doc in DOCS:
        text = behaviour(doc)
        assert doc.name not in text and doc.name.rsplit(".", 1)[-1] not in text
    assert behaviour(DOCS[0]).startswith("this function(a): the arithmetic mean")


def test_scores_are_the_summed_token_log_probabilities(tiny):
    import torch

    model, tokenizer = tiny
    text = prompt("zwc", DOCS[0])
    names = ["kocito", "rfx.quvohe", "zabure"]
    scores = score_names(model, tokenizer, text, names)
    for name, score in zip(names, scores):  # one unpadded forward pass a name
        head = tokenizer(text, add_special_tokens=False)["input_ids"]
        row = tokenizer(text + name + "`", add_special_tokens=False)["input_ids"]
        assert row[:len(head)] == head  # the prompt's tokens are a prefix
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=torch.tensor([row])).logits.float(), -1)[0]
        expected = sum(float(logp[t - 1, row[t]]) for t in range(len(head), len(row)))
        assert score == pytest.approx(expected, abs=1e-4)


def test_rank_counts_the_names_scored_at_least_as_high(tiny):
    model, tokenizer = tiny
    recalls = name_recall(model, tokenizer, "zwc", DOCS)
    names = ["kocito", "rfx.quvohe", "zabure"]
    for doc, recall in zip(DOCS, recalls):
        scores = score_names(model, tokenizer, prompt("zwc", doc), names)
        own = scores[names.index(doc.name[4:])]
        assert recall.rank == 1 + sum(s >= own for n, s in zip(names, scores) if n != doc.name[4:])
        assert recall.candidates == 3 and recall.logprob == pytest.approx(own)


def test_summary_against_chance():
    recalls = [Recall("a", 1, 40, -1.0), Recall("b", 2, 40, -2.0), Recall("c", 12, 40, -3.0), Recall("d", 30, 40, -4.0)]
    summary = recall_summary(recalls)
    assert summary["top1"] == pytest.approx(1 / 4) and summary["top10"] == pytest.approx(2 / 4)
    assert summary["chance_top1"] == 1 / 40 and summary["chance_top10"] == 10 / 40
    assert summary["median_rank"] == 7
    for key in ("top1", "top10"):
        lo, hi = summary[f"{key}_ci95"]
        assert 0 <= lo < summary[key] < hi <= 1


def test_an_instance_recall_covers_every_documented_function(tmp_path):
    pytest.importorskip("transformers")
    from sebench.models import create_tiny_model
    from sebench.records import write_records
    from sebench.rollout import recall_of_instance

    (tmp_path / "data").mkdir()
    (tmp_path / "data/manifest.json").write_text("{}")
    write_records(tmp_path / "data/datasets/train/api_doc.jsonl", DOCS)
    from sebench.models import load_causal_lm

    model, tokenizer = load_causal_lm(str(create_tiny_model(tmp_path / "model")), device="cpu")
    got = recall_of_instance(model, tokenizer, tmp_path / "data")
    assert [r["name"] for r in got["functions"]] == [d.name for d in DOCS]
    assert all(1 <= r["rank"] <= 3 == r["candidates"] for r in got["functions"])
    assert got["summary"]["functions"] == 3
    asked = recall_of_instance(model, tokenizer, tmp_path / "data", asked=["zwc.zabure"])
    assert asked["functions"] == [r for r in got["functions"] if r["name"] == "zwc.zabure"]  # among all 3 names


def test_batches_of_names_score_as_one(tiny):
    model, tokenizer = tiny
    text = prompt("zwc", DOCS[1])
    names = ["kocito", "rfx.quvohe", "zabure", "a", "bbbbbbbbbbbb.c"]
    whole = score_names(model, tokenizer, text, names)
    assert score_names(model, tokenizer, text, names, chunk=2) == pytest.approx(whole, abs=1e-4)

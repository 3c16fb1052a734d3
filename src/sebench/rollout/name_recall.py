"""Name recall: closed-book, given what a function does, how highly does a model rank the function's package
name among all the package's names? A signal below the pass@1 floor: a model may have learned a name before
it can use the function.

For each documented function, the prompt gives its behaviour (its documentation with its own name blanked
out) and asks for its name; every public name of the package is scored by the summed log-probability of
its tokens after the prompt (one batched forward pass a function). `rank` is 1 when the right name scores
highest (ties count against it). The model is a transformers causal LM with its tokenizer
(sebench.models.load_causal_lm).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sebench.metrics import accuracy_counts
from sebench.records import ApiDoc

BEHAVIOUR_CHARS = 400


@dataclass(frozen=True)
class Recall:
    """One function's recall: the rank of its name among `candidates` names and that name's log-probability."""

    name: str
    rank: int
    candidates: int
    logprob: float


def behaviour(doc: ApiDoc) -> str:
    """The documentation with the function's own name blanked ("this function"), cut at BEHAVIOUR_CHARS."""
    short = doc.name.rsplit(".", 1)[-1]
    text = doc.doc.replace(doc.name, "this function")
    text = re.sub(rf"\b{re.escape(short)}\b", "this function", text)
    return " ".join(text.split())[:BEHAVIOUR_CHARS]


def prompt(package: str, doc: ApiDoc) -> str:
    """The closed-book question; the answer (a name without the package) follows it directly."""
    return (f"In the Python package `{package}`, the function described below is called "
            f"`{package}.<name>`.\nDescription: {behaviour(doc)}\nIts name: `{package}.")


def score_names(model: Any, tokenizer: Any, text: str, names: list[str]) -> list[float]:
    """The summed log-probability of each name's tokens after `text` (one padded batch)."""
    import torch

    head = tokenizer(text, add_special_tokens=False)["input_ids"]
    rows = [tokenizer(text + name + "`", add_special_tokens=False)["input_ids"] for name in names]
    starts = [_common_prefix(head, row) for row in rows]
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits.float()
    logp = torch.log_softmax(logits, dim=-1)
    out = []
    for i, (row, start) in enumerate(zip(rows, starts)):
        positions = range(max(start, 1), len(row))
        out.append(float(sum(logp[i, t - 1, row[t]] for t in positions)))
    return out


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def name_recall(model: Any, tokenizer: Any, package: str, docs: list[ApiDoc]) -> list[Recall]:
    """Each documented function's Recall among the names of `docs` (written without the package prefix)."""
    names = [d.name.split(".", 1)[1] for d in docs]
    out = []
    for doc, name in zip(docs, names):
        scores = score_names(model, tokenizer, prompt(package, doc), names)
        own = scores[names.index(name)]
        rank = 1 + sum(s >= own for j, s in enumerate(scores) if names[j] != name)
        out.append(Recall(name=doc.name, rank=rank, candidates=len(names), logprob=own))
    return out


def recall_summary(recalls: list[Recall]) -> dict:
    """Top-1 share (with its 95% interval for this model, each function a cluster), mean reciprocal rank, and
    the chance level of each (1 / names, mean of 1 / k over k = 1 .. names)."""
    if not recalls:
        return {}
    stats = accuracy_counts({("", r.name): (1, float(r.rank == 1)) for r in recalls})
    names = recalls[0].candidates
    return {"functions": len(recalls), "top1": stats["accuracy"], "top1_ci95": stats["ci95"],
            "mrr": sum(1 / r.rank for r in recalls) / len(recalls), "chance_top1": 1 / names,
            "chance_mrr": sum(1 / k for k in range(1, names + 1)) / names}


def recall_of_instance(spec: str, data: str, device: str | None = None) -> dict:
    """The summary and per-function recalls of model `spec` on the instance at `data` (the report's name
    recall for one model state): {"summary": recall_summary, "functions": [Recall as dict]}."""
    from dataclasses import asdict
    from pathlib import Path

    from sebench.instance import Instance
    from sebench.models import load_causal_lm

    instance = Instance.open(Path(data))
    docs = instance.api_docs()
    model, tokenizer = load_causal_lm(spec, device=device)
    recalls = name_recall(model, tokenizer, docs[0].name.split(".")[0], docs) if docs else []
    return {"summary": recall_summary(recalls), "functions": [asdict(r) for r in recalls]}

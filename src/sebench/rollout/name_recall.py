"""Name recall: closed-book, given what a function does, how highly does a model rank the function's package
name among all the package's names? A signal below the pass@1 floor: a model may have learned a name before
it can use the function.

For each documented function, the prompt gives its behaviour (its documentation with its own name blanked
out) and asks for its name; every public name of the package is scored by the summed log-probability of
its tokens after the prompt (the prompt's KV cache computed once, the names in batches over it). `rank` is 1 when the right name scores
highest (ties count against it); a model's summary is its top-1 and top-10 shares and median rank. The model is a transformers causal LM with its tokenizer
(sebench.models.load_causal_lm).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import median
from typing import Any

from sebench.metrics import RECALL_TOP_K, accuracy_counts
from sebench.records import ApiDoc

BEHAVIOUR_CHARS = 400
SCORE_CHUNK = 32  # names scored per forward pass (each holds a copy of the prompt's KV cache)


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


def score_names(model, tokenizer, text, names, chunk=SCORE_CHUNK):
    """The summed log-probability of each name's tokens (and the closing backtick) after `text`: the
    prompt's shared tokens run once, and the names in batches of `chunk` over a copy of its KV cache."""
    import copy

    import torch

    head = tokenizer(text, add_special_tokens=False)["input_ids"]
    rows = [tokenizer(text + name + "`", add_special_tokens=False)["input_ids"] for name in names]
    starts = [max(_common_prefix(head, row), 1) for row in rows]
    shared = min(starts)  # every row begins with head[:shared]
    with torch.no_grad():
        out = model(input_ids=torch.tensor([head[:shared]]), use_cache=True)
    first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)  # predicts each row's token at `shared`
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    scores = []
    for at in range(0, len(rows), chunk):
        batch = [row[shared:] for row in rows[at:at + chunk]]
        width = max(len(r) for r in batch)
        cache = copy.deepcopy(out.past_key_values)
        cache.batch_repeat_interleave(len(batch))
        ids = torch.tensor([r + [pad] * (width - len(r)) for r in batch])  # padding only after a row's tokens
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids, past_key_values=cache).logits.float(), dim=-1)
        for i, (row, start) in enumerate(zip(rows[at:at + chunk], starts[at:at + chunk])):
            total = 0.0
            for t in range(start, len(row)):  # token t is predicted at position t - 1
                step = first if t == shared else logp[i, t - 1 - shared]
                total += float(step[row[t]])
            scores.append(total)
    return scores


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def name_recall(model: Any, tokenizer: Any, package: str, docs: list[ApiDoc],
                asked: list[str] | None = None) -> list[Recall]:
    """The Recall of each function in `asked` (full public names; default: every one of `docs`) among all the
    names of `docs` (written without the package prefix)."""
    names = [d.name.split(".", 1)[1] for d in docs]
    wanted = set(asked) if asked is not None else None
    out = []
    for doc, name in zip(docs, names):
        if wanted is not None and doc.name not in wanted:
            continue
        scores = score_names(model, tokenizer, prompt(package, doc), names)
        own = scores[names.index(name)]
        rank = 1 + sum(s >= own for j, s in enumerate(scores) if names[j] != name)
        out.append(Recall(name=doc.name, rank=rank, candidates=len(names), logprob=own))
    return out


def recall_summary(recalls: list[Recall]) -> dict:
    """The top-1 and top-RECALL_TOP_K shares (each with its 95% interval for this model, each function a cluster), the
    median rank, and the chance level of each share (1 / names, RECALL_TOP_K / names)."""
    if not recalls:
        return {}
    names = recalls[0].candidates
    out: dict = {"functions": len(recalls)}
    for key, k in (("top1", 1), (f"top{RECALL_TOP_K}", RECALL_TOP_K)):
        stats = accuracy_counts({("", r.name): (1, float(r.rank <= k)) for r in recalls})
        out |= {key: stats["accuracy"], f"{key}_ci95": stats["ci95"], f"chance_{key}": min(k, names) / names}
    out["median_rank"] = median(r.rank for r in recalls)
    return out


def recall_of_instance(model: Any, tokenizer: Any, data: str | Path, asked: list[str] | None = None) -> dict:
    """The summary and per-function recalls of a loaded model on the instance at `data` (all its documented
    names are the candidates; `asked`: the public names scored, default all): {"summary": recall_summary,
    "functions": [Recall as dict]}."""
    from sebench.instance import Instance

    docs = Instance.open(Path(data)).api_docs()
    recalls = name_recall(model, tokenizer, docs[0].name.split(".")[0], docs, asked) if docs else []
    return {"summary": recall_summary(recalls), "functions": [asdict(r) for r in recalls]}

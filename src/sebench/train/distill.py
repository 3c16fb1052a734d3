"""The KL term of context distillation (the `context-distill` method with `kl` > 0; docs/docs-only.md).

An SFT example may carry a `teacher_prompt`: the open-book prompt its answer was sampled from. With
`--distill-kl` above 0, each such example gets, for every answer token, the start model's top-k
next-token distribution given that prompt (`teacher_targets`, once, before training), and the SFT loss adds,
at that weight, the KL divergence from it (renormalized over its k tokens) to the trained model's
distribution on the example's own (closed) prompt (`kl_to_teacher`). The answer must tokenize alike after
both prompts; an example where it does not keeps its hard labels alone.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def answer_start(prompt: list[int], ids: list[int]) -> int:
    """Where the tokens of prompt+answer depart from those of the prompt alone (the answer's first token)."""
    return next((i for i, (a, b) in enumerate(zip(prompt, ids)) if a != b), min(len(prompt), len(ids)))


def teacher_tokens(example: dict, tokenizer: Any, row: dict) -> dict:
    """The teacher's input (teacher prompt + answer) and the column where the student's answer starts; the
    teacher's input is empty when the answer's tokens differ after the two prompts."""
    prompt = tokenizer.apply_chat_template(example["teacher_prompt"], add_generation_prompt=True, tokenize=True,
                                           return_dict=False)
    ids = list(tokenizer.apply_chat_template(example["teacher_prompt"] + example["completion"], tokenize=True,
                                             return_dict=False))
    start = next((i for i, label in enumerate(row["labels"]) if label != -100), len(row["labels"]))
    at = answer_start(prompt, ids)
    alike = ids[at:] == row["input_ids"][start:] and at > 0
    return {"teacher_input": ids if alike else [], "teacher_at": at, "teacher_from": start}


def teacher_targets(model: Any, rows: list[dict], top_k: int) -> list[dict]:
    """`rows` with each answer token's top-k teacher token ids and log-probabilities (from `model` as it is
    now, given the teacher's input), in place of the teacher's input."""
    import torch

    was_training = model.training
    model.eval()
    if torch.cuda.is_available():  # the trainer would move it there next anyway
        model.to("cuda")
    device = next(model.parameters()).device
    out, without = [], 0
    with torch.no_grad():
        for row in rows:
            row = dict(row)
            ids, at = row.pop("teacher_input"), row.pop("teacher_at")
            if not ids:
                without += 1
                out.append({**row, "teacher_ids": [], "teacher_logprobs": []})
                continue
            # the logits at column at-1+j predict the answer's token j
            logits = model(input_ids=torch.tensor([ids], device=device), use_cache=False,
                           logits_to_keep=len(ids) - at + 1).logits
            top = logits[0, :-1].float().log_softmax(-1).topk(top_k, dim=-1)
            out.append({**row, "teacher_ids": top.indices.tolist(), "teacher_logprobs": top.values.tolist()})
    model.train(was_training)
    if without:
        log.warning("%d of %d distillation examples tokenize their answer differently after the teacher's prompt "
                    "and keep their hard labels alone", without, len(rows))
    return out


def pad_teacher(examples: list[dict], width: int) -> dict:
    """The teacher's targets of a left-padded batch `width` columns wide: ids and log-probabilities
    [rows, width, k] at the columns of the answer tokens they belong to, and a mask of those columns."""
    import torch

    k = max((len(e["teacher_ids"][0]) for e in examples if e["teacher_ids"]), default=1)
    ids = torch.zeros((len(examples), width, k), dtype=torch.long)
    logprobs = torch.zeros((len(examples), width, k), dtype=torch.float32)
    mask = torch.zeros((len(examples), width), dtype=torch.bool)
    for row, example in enumerate(examples):
        n = len(example["teacher_ids"])
        if n:
            first = width - len(example["input_ids"]) + example["teacher_from"]
            ids[row, first:first + n] = torch.as_tensor(example["teacher_ids"], dtype=torch.long)
            logprobs[row, first:first + n] = torch.as_tensor(example["teacher_logprobs"], dtype=torch.float32)
            mask[row, first:first + n] = True
    return {"teacher_ids": ids, "teacher_logprobs": logprobs, "teacher_mask": mask}


def kl_to_teacher(logits: Any, batch: dict, first: int) -> Any:
    """The summed per-token KL(teacher || student) over the batch's answer tokens that have teacher targets.
    `logits`: the student's, whose column j predicts the token in column first+j."""
    device = logits.device
    ids = batch["teacher_ids"][:, first:].to(device)
    teacher = batch["teacher_logprobs"][:, first:].to(device).log_softmax(-1)  # renormalized over its k tokens
    mask = batch["teacher_mask"][:, first:].to(device)
    student = logits.float().log_softmax(-1).gather(-1, ids)
    per_token = (teacher.exp() * (teacher - student)).sum(-1)
    return (per_token * mask).sum()

"""Training data: answers to tasks, and the prompt/answer examples built from them.

Answers come from the tasks' reference solutions or from rollouts that the judge marked correct (the
paper's way: the model's own open-book answers). Open-SFT pairs the open-book prompt with the answer,
Closed-SFT the closed-book prompt with the same answer, so the two differ only in what the prompt shows.
Under `--protocol original` the prompts are the original's training prompts (`OriginalTrainingPrompts`:
Open-SFT on the prompt that produced the answer, Closed-SFT on the query-only prompt cut from it) and
every correct answer is kept, duplicates included (src/filter_correct_trajectory.py); under sebench's,
one example per distinct (task, code). Examples are in TRL's conversational prompt-completion form,
which makes SFTTrainer put the loss on the answer only (`completion_only_loss`).
"""

from __future__ import annotations

import difflib
import functools
import logging
import random
from pathlib import Path
from typing import Any, NamedTuple

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Rollout, Task, Verdict, read_records

log = logging.getLogger(__name__)


class Answer(NamedTuple):
    """An SFT answer: its task, the answer text, and the chat messages that produced it (None: a
    reference solution)."""

    task: Task
    text: str
    prompt: list[dict] | None = None


def select_tasks(instance: Instance, functions: list[str] | None = None, split: str = "train") -> list[Task]:
    """The split's valid tasks, keeping only those whose functions all lie in `functions` (if given)."""
    tasks = [t for t in instance.tasks(split) if t.is_valid]
    if functions:
        check_functions(instance, functions)
        wanted = set(functions)
        tasks = [t for t in tasks if t.selected_functions and set(t.selected_functions) <= wanted]
        if not tasks:
            raise SebenchError(f"no {split} task uses only the functions {', '.join(functions)}")
    return tasks


def check_functions(instance: Instance, functions: list[str]) -> None:
    known = [doc.name for doc in instance.api_docs()]
    for name in functions:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise SebenchError(f"--functions: '{name}' is not a function of package '{instance.package_name}'{hint}")


def reference_pairs(tasks: list[Task]) -> list[Answer]:
    """An answer for every task with a reference solution: the solution in one python block."""
    from sebench.rollout import format_answer

    pairs = [Answer(t, format_answer(t.reference_solution)) for t in tasks if t.reference_solution.strip()]
    if not pairs:
        raise SebenchError("none of the selected tasks has a reference_solution; use --train-source rollouts")
    return pairs


def rollout_pairs(tasks: list[Task], rollouts: Path, verdicts: Path, target: str = "response",
                  keep: str = "distinct") -> list[Answer]:
    """The rollouts judged correct, restricted to `tasks`: one per distinct (task, code) (keep "distinct")
    or every one (keep "all", the original's filter).

    The answer is the whole response (target "response", the paper's) or its code in one python block.
    """
    if not Path(verdicts).is_file():
        raise SebenchError(f"{verdicts}: no verdicts for {rollouts}; run `sebench judge` on it first (or pass --verdicts)")
    verdict_of = _verdict_index(read_records(verdicts, Verdict, named=True))  # the user's files
    by_id = {t.task_id: t for t in tasks}
    pairs, seen, outside, unjudged = [], set(), 0, 0
    for r in read_records(rollouts, Rollout, named=True):
        v = verdict_of.get((r.task_id, r.sample_idx, r.mode)) or verdict_of.get((r.task_id, r.sample_idx, None))
        if v is None:
            unjudged += 1
            continue
        code = judged_code(r)
        if v.verdict != "correct" or not code:
            continue
        if r.task_id not in by_id:
            outside += 1
            continue
        if keep == "all" or (r.task_id, code) not in seen:
            seen.add((r.task_id, code))
            pairs.append(Answer(by_id[r.task_id], answer_text(r.response, code, target),
                                r.prompt if isinstance(r.prompt, list) else None))
    if unjudged:
        log.warning("%d rollouts of %s have no verdict in %s and were left out", unjudged, rollouts, verdicts)
    if outside:
        log.info("%d correct answers to tasks outside the training selection were left out", outside)
    if not pairs:
        raise SebenchError(
            f"{rollouts}: no rollout judged correct on the selected training tasks; sample more (--n), "
            "use open-book rollouts on the train split, or use --train-source reference"
        )
    return pairs


def judged_code(rollout: Rollout) -> str | None:
    """The code that the judge read in a rollout: extracted from the raw response, as the judge does."""
    from sebench.answers import extract_code

    code = extract_code(rollout.response) if rollout.response else rollout.code
    return code.strip() if code else None


def answer_text(response: str, code: str, target: str) -> str:
    """The SFT answer: the whole response, or only the code in one python block."""
    from sebench.rollout import format_answer

    return response.strip() if target == "response" and response.strip() else format_answer(code)


def _verdict_index(verdicts: list[Verdict]) -> dict[tuple, Verdict]:
    """Verdicts by (task_id, sample_idx, mode); mode None where the judge did not record one."""
    index: dict[tuple, Verdict] = {}
    for v in verdicts:
        index[(v.task_id, v.sample_idx, v.mode or None)] = v
    return index


def seeded_choice(items: list, max_items: int | None, seed: int) -> list:
    """At most `max_items` of `items`, a seeded random choice (so that every function keeps examples)."""
    if max_items is None or len(items) <= max_items:
        return items
    keep = sorted(random.Random(seed).sample(range(len(items)), max_items))
    return [items[i] for i in keep]


def sft_examples(instance: Instance, pairs: list, mode: str, original: Any = None) -> list[dict]:
    """Conversational prompt-completion examples: the `mode` prompt (closed|open) and the answer.

    `pairs`: Answers (or (task, text) pairs); `original`: an OriginalTrainingPrompts for the original's
    prompts (None: sebench's)."""
    from sebench.rollout import PromptBuilder

    builder = PromptBuilder(instance, mode) if original is None else None
    examples = []
    for answer in (Answer(*pair) for pair in pairs):
        if builder is not None:
            prompt = builder.messages(answer.task)
        elif mode == "open":
            prompt = original.open_sft_messages(answer.task, answer.prompt)
        else:
            prompt = original.closed_sft_messages(answer.task, answer.prompt)
        examples.append({"prompt": prompt, "completion": [{"role": "assistant", "content": answer.text}],
                         "task_id": answer.task.task_id})
    return examples


def rl_prompts(instance: Instance, tasks: list[Task], sample_mode: str, train_mode: str,
               original: Any = None) -> list[dict]:
    """GRPO rows: the prompt to sample from, the prompt the loss is computed on, and the task id that the
    reward judges against (closed-rl: sampled open-book, trained closed-book), in the tasks' order.
    `original`: an OriginalTrainingPrompts for the original's GRPO prompts (None: sebench's)."""
    from sebench.rollout import PromptBuilder

    if original is None:
        sample, train = PromptBuilder(instance, sample_mode).messages, PromptBuilder(instance, train_mode).messages
    else:
        sample = functools.partial(original.rl_messages, mode=sample_mode)
        train = functools.partial(original.rl_messages, mode=train_mode)
    return [{"sample_prompt": sample(t), "prompt": train(t), "task_id": t.task_id,
             "sample_mode": sample_mode, "train_mode": train_mode} for t in tasks]


def drop_long_prompts(rows: list[dict], tokenizer: Any, limit: int) -> list[dict]:
    """The GRPO rows whose prompts' texts all have fewer than `limit` tokens (0: every row); the original
    drops those whose open-book prompt has `limit` or more (evolve_folder/scripts/rl_train.py, counting
    the message text alone with the model's tokenizer)."""
    if not limit:
        return rows

    def longest(row: dict) -> int:
        return max(len(tokenizer.tokenize(m["content"])) for m in row["sample_prompt"] + row["prompt"])

    kept = [row for row in rows if longest(row) < limit]
    if len(kept) < len(rows):
        log.info("%d of %d GRPO prompts have %d tokens or more and were dropped", len(rows) - len(kept), len(rows), limit)
    if not kept:
        raise SebenchError(f"every GRPO prompt has {limit} tokens or more; raise --max-prompt-tokens (0: no limit)")
    return kept


class LeftPaddedBatches:
    """Collates tokenized examples (`input_ids`, `labels` with -100 off the answer) into one left-padded batch.

    Left padding makes every row end at the last column, so the answers of a batch sit in its last
    columns and the LM head needs to run only there (see sft.AnswerOnlySFTTrainer). Explicit position
    ids keep each row's positions what they would be unpadded; the attention mask keeps rows apart.
    """

    def __init__(self, pad_token_id: int):
        self.pad_token_id = pad_token_id

    def __call__(self, examples: list[dict]) -> dict:
        import torch

        width = max(len(e["input_ids"]) for e in examples)
        shape = (len(examples), width)
        input_ids = torch.full(shape, self.pad_token_id, dtype=torch.long)
        labels = torch.full(shape, -100, dtype=torch.long)
        attention_mask = torch.zeros(shape, dtype=torch.long)
        position_ids = torch.zeros(shape, dtype=torch.long)
        for row, example in enumerate(examples):
            n = len(example["input_ids"])
            input_ids[row, width - n:] = torch.as_tensor(example["input_ids"], dtype=torch.long)
            labels[row, width - n:] = torch.as_tensor(example.get("labels", example["input_ids"]), dtype=torch.long)
            attention_mask[row, width - n:] = 1
            position_ids[row, width - n:] = torch.arange(n)
        batch = {"input_ids": input_ids, "attention_mask": attention_mask, "position_ids": position_ids,
                 "labels": labels}
        if "teacher_ids" in examples[0]:  # context distillation's KL targets (distill.py)
            from sebench.train.distill import pad_teacher

            batch.update(pad_teacher(examples, width))
        return batch

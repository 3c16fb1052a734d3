"""Training data: (task, answer code) pairs, and the prompt/answer examples built from them.

Pairs come from the tasks' reference solutions or from rollouts that the judge marked correct (the
paper's way: the model's own open-book answers). Open-SFT pairs the open-book prompt with the answer,
Closed-SFT the closed-book prompt with the same answer, so the two differ only in what the prompt shows.
Examples are in TRL's conversational prompt-completion form, which makes SFTTrainer put the loss on the
answer only (`completion_only_loss`), and GRPOTrainer sample answers to the same prompts.
"""

from __future__ import annotations

import difflib
import logging
import random
from pathlib import Path

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Rollout, Task, Verdict, read_records

log = logging.getLogger(__name__)


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


def reference_pairs(tasks: list[Task]) -> list[tuple[Task, str]]:
    """(task, answer) for every task with a reference solution: the solution in one python block."""
    from sebench.rollout.prompts import format_answer

    pairs = [(t, format_answer(t.reference_solution)) for t in tasks if t.reference_solution.strip()]
    if not pairs:
        raise SebenchError("none of the selected tasks has a reference_solution; use --train-source rollouts")
    return pairs


def rollout_pairs(tasks: list[Task], rollouts: Path, verdicts: Path, target: str = "response") -> list[tuple[Task, str]]:
    """(task, answer) for each rollout judged correct, restricted to `tasks`; one pair per distinct code.

    The answer is the whole response (target "response", the paper's) or its code in one python block.
    """
    if not Path(verdicts).is_file():
        raise SebenchError(f"{verdicts}: no verdicts for {rollouts}; run `sebench judge` on it first (or pass --verdicts)")
    verdict_of = _verdict_index(read_records(verdicts, Verdict))
    by_id = {t.task_id: t for t in tasks}
    pairs, seen, outside, unjudged = [], set(), 0, 0
    for r in read_records(rollouts, Rollout):
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
        if (r.task_id, code) not in seen:
            seen.add((r.task_id, code))
            pairs.append((by_id[r.task_id], answer_text(r.response, code, target)))
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
    from sebench.judge.extract import extract_code

    code = extract_code(rollout.response) if rollout.response else rollout.code
    return code.strip() if code else None


def answer_text(response: str, code: str, target: str) -> str:
    """The SFT answer: the whole response, or only the code in one python block."""
    from sebench.rollout.prompts import format_answer

    return response.strip() if target == "response" and response.strip() else format_answer(code)


def _verdict_index(verdicts: list[Verdict]) -> dict[tuple, Verdict]:
    """Verdicts by (task_id, sample_idx, mode); mode None where the judge did not record one."""
    index: dict[tuple, Verdict] = {}
    for v in verdicts:
        index[(v.task_id, v.sample_idx, v.mode or None)] = v
    return index


def limit(items: list, max_items: int | None, seed: int) -> list:
    """At most `max_items` of `items`, a seeded random choice (so that every function keeps examples)."""
    if max_items is None or len(items) <= max_items:
        return items
    keep = sorted(random.Random(seed).sample(range(len(items)), max_items))
    return [items[i] for i in keep]


def sft_examples(instance: Instance, pairs: list[tuple[Task, str]], mode: str) -> list[dict]:
    """Conversational prompt-completion examples: the `mode` prompt (closed|open) and the answer."""
    from sebench.rollout.prompts import PromptBuilder

    builder = PromptBuilder(instance, mode)
    return [
        {
            "prompt": builder.messages(task),
            "completion": [{"role": "assistant", "content": answer}],
            "task_id": task.task_id,
        }
        for task, answer in pairs
    ]


def rl_prompts(instance: Instance, tasks: list[Task], sample_mode: str, train_mode: str) -> list[dict]:
    """GRPO rows: the prompt to sample from, the prompt the loss is computed on, and the task id that the
    reward judges against (closed-rl: sampled open-book, trained closed-book)."""
    from sebench.rollout.prompts import PromptBuilder

    sample, train = PromptBuilder(instance, sample_mode), PromptBuilder(instance, train_mode)
    return [{"sample_prompt": sample.messages(t), "prompt": train.messages(t), "task_id": t.task_id,
             "sample_mode": sample_mode, "train_mode": train_mode} for t in tasks]


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
        return {"input_ids": input_ids, "attention_mask": attention_mask, "position_ids": position_ids,
                "labels": labels}

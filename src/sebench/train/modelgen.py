"""Tasks written by a model (the paper's method, and the engine of self-play).

For a set of the package's functions, the model is shown their docs and asked for a task as JSON: a
problem statement, a signature, 8 test inputs and a reference solution. The task is then checked:
  1. its text must not leak (the leak audit's rules: no NumPy names, no package function in backticks);
  2. `samples` fresh solutions are asked for, from the statement and the docs alone (independently of
     the proposal and of each other);
  3. the reference and the fresh solutions pass the judge's static rules and run in the judge's sandbox
     on the test inputs; a program's outputs are its results on every input (an error counts as a
     different output);
  4. the task is kept when at least `samples` programs agree on every output; the expected outputs
     are theirs, and the stored reference is the proposal's own solution when it is among them.
Inputs on which every program fails are dropped first; a task needs `min_cases` inputs left, with at
least two different outputs. With `samples` 0 (self-play's filter) no fresh solution is asked for: a task
is kept when its own solution passes the static rules and runs on `min_cases` of its inputs.

`proposal_prompt` and `proposal_answer` are the two sides of the format: the prompt a model is asked
with, and a task written as the answer that `parse_proposal` reads (the warm-up teaches the format
with them, from the instance's own tasks of other functions).
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from sebench import values
from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import Instance
from sebench.records import Task, write_records

log = logging.getLogger(__name__)

MIN_CASES = 5
TEST_INPUTS = 6  # test inputs a proposal is asked for
_JSON_BLOCK = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)
_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(.*\)\s*:\s*$")

PROPOSE = """You write programming exercises for the Python library `{pkg}`. Its documentation for the functions \
below is all you know about it.

{docs}

Write one new exercise that is solved by calling {which} of these functions: {names}.
Rules:
- "query": a clear problem statement in a realistic setting (sensor data, finance, images, grades, ...), naming \
its parameters in backticks and saying what to return. Do not name any library function and do not mention \
`{pkg}` or any other library.
- "function_name": the signature line, e.g. "def weekly_totals(readings):".
- "test_inputs": {inputs} different keyword-argument strings for calling the function, using plain Python literals \
(lists, numbers, strings), e.g. "readings=[[1.5, 2.0], [3.0, 4.5]]". Include edge cases.
- "solution": a complete Python program that imports `{pkg}` and defines the function (no other numeric library).
Answer with one JSON object with exactly these four keys, inside a ```json code block."""

SOLVE = """Solve the task below in Python with the library `{pkg}` (no other numeric library is available). \
Its documentation:

{docs}

### Task
{query}

### Function to complete
{signature}

Answer with the complete program (import `{pkg}` and define the function) in one ```python code block."""


@dataclass(frozen=True)
class Proposal:
    query: str
    function_name: str
    entry_point: str
    inputs: list
    solution: str


def parse_proposal(text: str) -> Proposal | None:
    """The model's JSON answer -> Proposal, or None when it is not usable."""
    blocks = _JSON_BLOCK.findall(text or "")
    candidates = [*blocks, text[text.find("{"):text.rfind("}") + 1]] if text and "{" in text else blocks
    for raw in candidates:
        try:
            data = parse_json(raw, "a proposal")
        except SebenchError:  # not JSON, nested too deep, a number too long: not usable
            continue
        if not isinstance(data, dict):
            continue
        query, sig, inputs, code = (data.get(k) for k in ("query", "function_name", "test_inputs", "solution"))
        if not (isinstance(query, str) and query.strip() and isinstance(sig, str) and isinstance(code, str)):
            continue
        if not isinstance(inputs, list) or not all(isinstance(i, str) and i.strip() for i in inputs):
            continue
        match = _DEF.match(sig.strip().splitlines()[0] if sig.strip() else "")
        if not match:
            continue
        code = _strip_fence(code)
        return Proposal(query.strip(), sig.strip(), match.group(1), list(dict.fromkeys(inputs)), code)
    return None


def _strip_fence(code: str) -> str:
    m = re.search(r"```(?:python)?\s*\n(.*?)```", code, re.S)
    return m.group(1) if m else code


def proposal_prompt(instance: Instance, functions: list[str]) -> str:
    """The request for one task over `functions` (public names), with their docs from `instance`."""
    which = "one" if len(functions) == 1 else "all"
    return PROPOSE.format(pkg=instance.mapping()["package"], docs=_docs_text(instance, functions), which=which,
                          names=", ".join(functions), inputs=TEST_INPUTS)


def proposal_answer(task: Task) -> str:
    """`task` written as the answer to proposal_prompt, with its TEST_INPUTS shortest inputs (in the task's
    order; short inputs are quicker for a model to write): what parse_proposal reads."""
    inputs = [case["input"] for case in task.test_cases]
    shortest = set(sorted(range(len(inputs)), key=lambda i: (len(inputs[i]), i))[:TEST_INPUTS])
    inputs = [text for i, text in enumerate(inputs) if i in shortest]
    data = {"query": task.query, "function_name": task.function_name, "test_inputs": inputs,
            "solution": task.reference_solution}
    return "```json\n" + json.dumps(data, indent=1, ensure_ascii=False) + "\n```"


def writing_example(instance: Instance, functions: list[str], task: Task) -> dict:
    """An SFT example of writing a task: proposal_prompt over `functions`, answered with `task` as a proposal
    (the warm-up's task-writing skill, and self-play's --selfplay-train-writer)."""
    return {"prompt": [{"role": "user", "content": proposal_prompt(instance, functions)}],
            "completion": [{"role": "assistant", "content": proposal_answer(task)}], "task_id": task.task_id}


@dataclass(frozen=True)
class Generated:
    """One call of `generate`: the model's answers, how many passed each check, the kept tasks."""

    texts: list[str]  # the model's answers to the proposal prompt, as written
    parsed: int  # answers that parse_proposal read
    clean: int  # of those, the ones without a leak
    tasks: list[Task]  # kept (see the module docstring)
    rejected: dict[str, int]  # clean proposals not kept, by reason (REJECTIONS)
    failed_inputs: dict[str, int] = field(default_factory=dict)  # their own solutions' failed inputs, by reason

    @property
    def asked(self) -> int:
        return len(self.texts)


def generate_tasks(instance: Instance, backend, functions: list[str], n: int, seed: int = 0,
                   samples: int = 2, min_cases: int = MIN_CASES) -> list[Task]:
    """Up to n verified tasks over `functions` (public names); see the module docstring."""
    return generate(instance, backend, functions, n, seed, samples, min_cases).tasks


def generate(instance: Instance, backend, functions: list[str], n: int, seed: int = 0, samples: int = 2,
             min_cases: int = MIN_CASES, max_tokens: int = 1500, temperature: float = 0.8) -> Generated:
    """n proposals over `functions` (public names), of at most `max_tokens` tokens each, checked as the
    module docstring says."""
    return generate_many(instance, backend, [(functions, n)], seed, samples, min_cases, max_tokens, temperature)[0]


def generate_many(instance: Instance, backend, plan: list[tuple[list[str], int]], seed: int = 0, samples: int = 2,
                  min_cases: int = MIN_CASES, max_tokens: int = 1500, temperature: float = 0.8) -> list[Generated]:
    """generate() for each (functions, n) of `plan`: the proposals asked for a batch's worth at a time (a
    batched backend writes them side by side; a progress line after each), then every fresh solution the
    same way; task ids are gen-SEED-NNNN, numbered across the plan."""
    from sebench.answers import extract_code
    from sebench.judge import program_outputs
    from sebench.rollout import GenerationRequest

    mapping = instance.mapping()
    known = set(mapping["functions"].values())
    unknown = [f for functions, _ in plan for f in functions if f not in known]
    if unknown:
        raise SebenchError(f"unknown function(s) {', '.join(unknown[:5])}: give public names of the package "
                           f"(e.g. {next(iter(sorted(known)))})")
    if samples < 0 or any(n < 1 for _, n in plan):
        raise SebenchError("--n must be at least 1 and --samples at least 0")
    asks = [(g, proposal_prompt(instance, functions)) for g, (functions, n) in enumerate(plan) for _ in range(n)]
    replies = _generate_logged(backend, [GenerationRequest([{"role": "user", "content": ask}], n=1, temperature=temperature,
                                                           max_tokens=max_tokens, seed=seed + i)
                                         for i, (_, ask) in enumerate(asks)], "proposals")
    texts = [c[0].text if c else "" for c in replies]
    parsed = [(g, parse_proposal(text)) for (g, _), text in zip(asks, texts)]
    parsed = [(g, p) for g, p in parsed if p is not None]
    leaks = _leak_checker(mapping)
    proposals = [(g, p) for g, p in parsed if not leaks(p)]
    log.info("modelgen: %d of %d proposals parsed, %d without leaks", len(parsed), len(asks), len(proposals))
    answers = [[] for _ in proposals]
    if proposals and samples:
        pkg = mapping["package"]
        answers = _generate_logged(backend, [
            GenerationRequest([{"role": "user", "content": SOLVE.format(
                pkg=pkg, docs=_docs_text(instance, plan[g][0]), query=p.query, signature=p.function_name)}],
                n=samples, temperature=temperature, max_tokens=1200, seed=seed + 1000 + i)
            for i, (g, p) in enumerate(proposals)], "fresh solutions")
    kept: list[tuple[int, Task]] = []
    rejected: list[tuple[int, str]] = []
    failed: list[tuple[int, str]] = []
    for (g, p), completions in zip(proposals, answers):
        programs = [p.solution] + [extract_code(c.text) or "" for c in completions]
        outputs = program_outputs(instance, programs, p.entry_point, p.inputs)
        task = _vote(p, programs, outputs, max(samples, 1), min_cases, known)
        if isinstance(task, str):
            rejected.append((g, task))
            failed += [(g, input_failure(c.error or "", p.entry_point)) for c in outputs[0] or [] if not c.ok]
        else:
            kept.append((g, _numbered(task, len(kept), seed)))
    log.info("modelgen: %d of %d tasks kept (agreement of %d programs)", len(kept), len(proposals), max(samples, 1))
    return [Generated(texts=[t for (h, _), t in zip(asks, texts) if h == g], parsed=sum(h == g for h, _ in parsed),
                      clean=sum(h == g for h, _ in proposals), tasks=[t for h, t in kept if h == g],
                      rejected=_count(rejected, g, REJECTIONS), failed_inputs=_count(failed, g, INPUT_FAILURES))
            for g in range(len(plan))]


def _count(reasons: list[tuple[int, str]], g: int, keys: dict) -> dict[str, int]:
    """How many of plan entry g's (entry, reason) pairs have each reason, in the order of `keys` (none: left out)."""
    return {why: n for why in keys if (n := reasons.count((g, why)))}


def _generate_logged(backend, requests: list, what: str) -> list:
    """backend.generate over `requests` a batch's worth at a time (the hf backend's batch size, else 64), with
    a progress line after each."""
    chunk = getattr(backend, "batch_size", None) or 64
    replies: list = []
    started = time.time()
    for start in range(0, len(requests), chunk):
        replies += backend.generate(requests[start:start + chunk])
        if len(requests) > chunk:
            log.info("modelgen: %d of %d %s written (%.0f s)", len(replies), len(requests), what,
                     time.time() - started)
    return replies


def _docs_text(instance: Instance, functions: list[str]) -> str:
    by_name = {d.name: d for d in instance.api_docs()}
    return "\n\n".join(f"### {name}\n{by_name[name].doc.strip()}" for name in functions if name in by_name)


def _leak_checker(mapping: dict):
    """Whether a proposal's text names the original: NumPy's surface (obfuscate.LeakChecker), and for another
    library its module and its leak words (mapping.json's "module" and "leak_words")."""
    from sebench.obfuscate import LeakChecker, Surface

    checker = LeakChecker(Surface.from_mapping(mapping))
    words = sorted({w for w in (mapping.get("module"), *(mapping.get("leak_words") or ())) if w}, key=len, reverse=True)
    original = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, words)) + r")(?!\w)") if words else None

    def leaks(p: Proposal) -> bool:
        if original is not None and (original.search(p.query) or original.search(p.function_name)):
            return True
        return bool(checker.prose(p.query) or checker.code(p.function_name))
    return leaks


REJECTIONS = {  # why a clean proposal was not kept (Generated.rejected)
    "static": "no program passes the static rules and loads",
    "few_inputs": "runs on fewer than the needed inputs",
    "no_agreement": "too few programs agree",
    "one_output": "the same output for every input",
}


INPUT_FAILURES = {  # why a rejected task's own solution failed on one of its inputs (Generated.failed_inputs)
    "not_literal": "the input is not a call's arguments in Python literals",
    "signature": "the input does not fit the task's own signature (an unknown or a missing argument)",
    "error": "the solution raised an error on it",
}


def input_failure(error: str, entry_point: str) -> str:
    """The INPUT_FAILURES key of a failed case's error text (the sandbox's "Type: message")."""
    if error.startswith("bad test input"):
        return "not_literal"
    call = rf"TypeError: {re.escape(entry_point)}\(\) "  # Python's own complaint about the call's arguments
    if re.match(call + r"(got an unexpected keyword|missing \d+ required|takes )", error):
        return "signature"
    return "error"


def _vote(p: Proposal, programs: list[str], results: list[list | None], samples: int, min_cases: int,
          known: set) -> Task | str:
    """The task when `samples` programs agree on every usable input (results: from program_outputs), else
    why not (a key of REJECTIONS)."""
    # per program: the encoded value on each input (None where it failed), or None
    outputs = [None if cases is None else [values.to_task_data(c.value, strict=False) if c.ok else None for c in cases]
               for cases in results]
    if all(o is None for o in outputs):
        return "static"
    usable = [i for i in range(len(p.inputs)) if any(o is not None and o[i] is not None for o in outputs)]
    if len(usable) < min_cases:
        return "few_inputs"
    groups: list[list[int]] = []  # programs with the same outputs on every usable input
    for k, out in enumerate(outputs):
        if out is None or any(out[i] is None for i in usable):
            continue
        for group in groups:
            ref = outputs[group[0]]
            if all(values.equal(out[i], ref[i], same_types=True) for i in usable):
                group.append(k)
                break
        else:
            groups.append([k])
    groups.sort(key=lambda grp: (-len(grp), grp[0]))  # biggest first; ties: the proposal's own first
    if not groups or len(groups[0]) < samples:
        return "no_agreement"
    winner = groups[0]
    expected = [outputs[winner[0]][i] for i in usable]
    if len({json.dumps(v) for v in expected}) < 2:
        return "one_output"  # tests nothing
    code = programs[winner[0]]
    cases = [{"input": p.inputs[i], "output": values.printed(v)} for i, v in zip(usable, expected)]
    used = [name for name in sorted(known) if re.search(rf"(?<![\w.]){re.escape(name)}\b", code)]
    return Task(
        task_id="", split="train", kind="single" if len(used) <= 1 else "multiple", query=p.query,
        function_name=p.function_name, entry_point=p.entry_point,
        example=f">>> {p.entry_point}({cases[0]['input']})\n{cases[0]['output']}", test_cases=cases,
        right_exe_result="#".join(c["output"] for c in cases), selected_functions=used, is_valid=True,
        reference_solution=code, expected=expected,
    )


def _numbered(task: Task, i: int, seed: int) -> Task:
    return replace(task, task_id=f"gen-{seed}-{i:04d}")


def run_generate(data: Path, model: str, functions: list[str], n: int, out: Path, seed: int = 0,
                 samples: int = 2, base_url: str | None = None) -> int:
    """`sebench tasks generate`: writes the kept tasks to `out` (jsonl); returns how many."""
    from sebench.rollout import get_backend

    instance = Instance.open(data)
    with get_backend(model, base_url=base_url) as backend:
        tasks = generate_tasks(instance, backend, functions, n, seed=seed, samples=samples)
    write_records(out, tasks)
    return len(tasks)

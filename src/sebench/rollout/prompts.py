"""The prompts shown to models, in one place, meant to be read and changed.

Five modes ask the same question with different help:
  closed     the problem, the signature to complete, one example with its expected output, the rules
  open       the same plus the docs of exactly the functions that the task's reference solution uses
  full-doc   the same plus all the docs, shortened and then cut to fit the model's context (logged)
  retrieval  the closed prompt plus a search tool: the model writes a ```search block, gets the best
             BM25 matches over the docs, and answers within a turn limit (see retrieval.py)
  numpy      specificity: the closed prompt, but asking for real NumPy (`import numpy as np`) instead of the
             package; the judge then requires NumPy (Judge(library="numpy"))

Unlike the original benchmark the example shows its expected output, and the answer format is fixed:
one final ```python block, which is what the judge extracts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.instance_library import is_numpy, require_numpy
from sebench.records import MODES, NUMPY_MODE, ApiDoc, Task

log = logging.getLogger(__name__)

SYSTEM = (
    "You are an expert Python programmer. You solve coding problems with the Python package that the "
    "user names, exactly as the user asks."
)

RULES = """Rules:
- Use the package `{pkg}` (write `import {pkg}`); its functions are called as `{pkg}.<name>(...)`.
{avoid}
- Complete the function with the signature above and return the result; do not print it.
- Answer with one final ```python code block that holds the complete function (with its imports)."""

# What the rules say about other libraries: NumPy's packages name NumPy (as the original benchmark's prompts
# do); a package of another library never names its original (the leak audit's rule: docs/libraries.md).
AVOID_NUMPY = "- Do not import NumPy or any other array library; the package replaces them."
AVOID_OTHERS = "- Import nothing but the package and the Python standard library; the package replaces any other library."

NUMPY_RULES = """Rules:
- Use NumPy (write `import numpy as np`); its functions are called as `np.<name>(...)`.
- Do not import any other array library.
- Complete the function with the signature above and return the result; do not print it.
- Answer with one final ```python code block that holds the complete function (with its imports)."""

TASK = """Solve the following problem with the Python package `{pkg}`.

Problem:
{query}

Complete this function:
```python
{signature}
```

Example (a call and its expected result):
{example}

{rules}"""

DOCS_HEADER = "Documentation of the `{pkg}` functions that you may need:"
FULL_DOCS_HEADER = "Documentation of the `{pkg}` package:"

RETRIEVAL_TOOL = """You may look up the documentation of `{pkg}` before answering. To search, reply with
only a search block, for example:
```search
sum of the elements along an axis
```
and you will get the best matching documentation entries. You may search at most {searches} times;
then answer with one final ```python code block."""

RETRIEVAL_RESULTS = "Search results for `{query}`:\n\n{docs}"
RETRIEVAL_NO_RESULTS = "No documentation matches `{query}`."
RETRIEVAL_LAST_TURN = "You have no searches left. Answer now with one final ```python code block."
RETRIEVAL_SEARCHES_LEFT = "You may search {left} more time(s), or answer with one final ```python code block."

# Tokens kept free for the answer in full-doc mode (and a margin for chat-template tokens).
ANSWER_RESERVE_TOKENS = 512
TEMPLATE_MARGIN_TOKENS = 32


def format_answer(code: str) -> str:
    """The assistant answer for SFT: the code in one python block."""
    return f"```python\n{code.strip()}\n```"


def format_doc(doc: ApiDoc) -> str:
    """One function's full documentation entry."""
    return f"### {doc.name}\n`{_qualified_signature(doc)}`\n\n{doc.doc.strip()}"


def format_doc_short(doc: ApiDoc) -> str:
    """The entry shortened to its signature and first line, for full-doc prompts that must shrink."""
    summary = next((line.strip() for line in doc.doc.strip().splitlines() if line.strip()), "")
    return f"- `{_qualified_signature(doc)}`: {summary}"


def _qualified_signature(doc: ApiDoc) -> str:
    """"quvohe(a)" with name "zwc.rfx.quvohe" -> "zwc.rfx.quvohe(a)"."""
    signature = doc.signature.strip()
    paren = signature.find("(")
    return doc.name + signature[paren:] if paren >= 0 else doc.name


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate on the safe side: 3 characters a token (English prose takes about 4,
    docs with code and numbers nearer 3), rounded up."""
    return (len(text) + 2) // 3


class PromptBuilder:
    """Chat messages for one task in one mode; docs are loaded once per instance."""

    def __init__(
        self,
        instance: Instance,
        mode: str,
        context_tokens: int | None = None,
        count_tokens: Callable[[str], int] | None = None,
        answer_tokens: int = ANSWER_RESERVE_TOKENS,
        max_searches: int = 3,
    ):
        if mode not in MODES:
            raise SebenchError(f"unknown mode '{mode}'; choose one of {', '.join(MODES)}")
        self.instance = instance
        self.mode = mode
        if mode == NUMPY_MODE:
            require_numpy(instance, "the numpy mode (real NumPy instead of the package)")
        self.package = "numpy" if mode == NUMPY_MODE else instance.manifest()["package"]
        self.avoid = AVOID_NUMPY if is_numpy(instance) else AVOID_OTHERS
        self.context_tokens = context_tokens
        self.count_tokens = _memoized(count_tokens or approx_tokens)
        self.answer_tokens = answer_tokens
        self.max_searches = max_searches
        self.docs: list[ApiDoc] = instance.api_docs() if mode not in ("closed", NUMPY_MODE) else []
        self.docs_by_name = {d.name: d for d in self.docs}
        self._full_docs_cache: dict[int | None, str] = {}
        self._warned = False

    def task_text(self, task: Task) -> str:
        return TASK.format(
            pkg=self.package,
            query=task.query.strip(),
            signature=task.function_name.strip(),
            example=task.example.strip(),
            rules=NUMPY_RULES if self.mode == NUMPY_MODE else RULES.format(pkg=self.package, avoid=self.avoid),
        )

    def messages(self, task: Task) -> list[dict]:
        """System + user messages for the task (the first turn, for retrieval)."""
        text = self.task_text(task)
        if self.mode == "open":
            text = self._with_docs(text, self.open_docs(task))
        elif self.mode == "full-doc":
            text = self._with_docs(text, self.full_docs(task, text), full=True)
        elif self.mode == "retrieval":
            text += "\n\n" + RETRIEVAL_TOOL.format(pkg=self.package, searches=self.max_searches)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]

    def _with_docs(self, text: str, docs: str, full: bool = False) -> str:
        header = (FULL_DOCS_HEADER if full else DOCS_HEADER).format(pkg=self.package)
        return f"{header}\n\n{docs}\n\n{text}" if docs else text

    def open_docs(self, task: Task) -> str:
        """The docs of exactly the task's selected functions, in the task's order."""
        missing = [name for name in task.selected_functions if name not in self.docs_by_name]
        if missing:
            raise SebenchError(
                f"task {task.task_id}: selected function(s) {', '.join(missing)} have no entry in "
                f"{self.instance.api_doc_path}"
            )
        return "\n\n".join(format_doc(self.docs_by_name[name]) for name in task.selected_functions)

    def full_docs(self, task: Task, task_text: str) -> str:
        """All docs, fitted to the context left after the task text, the system prompt and the answer."""
        if self.context_tokens is None:
            return self._fit_docs(None)
        overhead = self.count_tokens(SYSTEM) + self.count_tokens(task_text) + TEMPLATE_MARGIN_TOKENS + 40
        budget = self.context_tokens - self.answer_tokens - overhead
        # Round the budget down so that tasks of similar length share one fitted doc section.
        return self._fit_docs(max(0, budget - budget % 64))

    def _fit_docs(self, budget: int | None) -> str:
        if budget in self._full_docs_cache:
            return self._full_docs_cache[budget]
        text, report = fit_docs(self.docs, budget, self.count_tokens)
        if report and not self._warned:
            log.warning("full-doc prompt: %s (context %s tokens)", report, self.context_tokens)
            self._warned = True
        elif report:
            log.debug("full-doc prompt: %s", report)
        self._full_docs_cache[budget] = text
        return text


def _memoized(count: Callable[[str], int]) -> Callable[[str], int]:
    """Doc entries are counted again for every budget; a real tokenizer makes that worth caching."""
    cache: dict[str, int] = {}

    def counted(text: str) -> int:
        if text not in cache:
            cache[text] = count(text)
        return cache[text]

    return counted


def fit_docs(docs: list[ApiDoc], budget: int | None, count: Callable[[str], int]) -> tuple[str, str]:
    """(docs text, "" or a line saying how much was cut) for at most `budget` tokens.

    All entries full if they fit; else every entry shortened to its signature and summary, with full
    entries restored in order while they fit; else the shortened entries cut at the end. The order is
    the instance's, never the task's, so fitting reveals nothing about which functions a task needs.
    """
    full = [format_doc(d) for d in docs]
    full_costs = [count(t) + 1 for t in full]
    total = sum(full_costs)
    if budget is None or total <= budget:
        return "\n\n".join(full), ""
    short = [format_doc_short(d) for d in docs]
    short_costs = [count(t) + 1 for t in short]
    if sum(short_costs) <= budget:
        chosen, used = list(short), sum(short_costs)
        expanded = 0
        for i, (f_cost, s_cost) in enumerate(zip(full_costs, short_costs)):
            if used - s_cost + f_cost > budget:
                break
            chosen[i], used, expanded = full[i], used - s_cost + f_cost, expanded + 1
        report = (
            f"the docs take {total} tokens but only {budget} fit; {len(docs) - expanded} of {len(docs)} "
            f"entries shortened to their signature and summary ({total - used} tokens cut)"
        )
        return "\n\n".join(chosen[:expanded]) + ("\n\n" if expanded else "") + "\n".join(chosen[expanded:]), report
    kept, used = 0, 0
    for cost in short_costs:
        if used + cost > budget:
            break
        kept, used = kept + 1, used + cost
    report = (
        f"the docs take {total} tokens but only {budget} fit; all {len(docs)} entries shortened and "
        f"{len(docs) - kept} dropped at the end ({total - used} tokens cut)"
    )
    return "\n".join(short[:kept]), report

"""The original SE-Bench prompts (`--protocol original`), read at run time from the user's copy of the
original repository; sebench holds none of their text.

The templates are the string constants of the original's src/utils/prompt_template.py, found with `ast`
(the module is never imported or run): its query-only template for closed-book, its docs template for
open-book (the docs of the task's selected functions) and full-doc (every doc). They are filled as the
original's pipeline fills them (`string.Template.safe_substitute`): the problem, the example's input (a
one-entry dict, its `np.array` written as the package's constructor), the function's signature and, with
docs, the list of {name: rewritten doc} of the release's api_doc.jsonl (the original repository's
datasets/train/api_doc.jsonl, in its order; for an instance with other names than the release's, its own
docs). The prompt is one user message, with no system message.

Training under `--protocol original` uses the templates of the original's training scripts
(verl_evolve/evolve_folder/scripts/, read the same way), filled as those scripts fill them
(`OriginalTrainingPrompts`):
  - GRPO (rl_train.py: the open-book rows, rl_real_train.py: the closed-book rows, same order): the
    question, the task's example as the release stores it (input and output, `np.array` left as it is),
    the signature, and for the open rows the docs of the selected functions;
  - Closed-SFT (convert_jsonl_to_parquet.py with SFTprompt_template.py): the query-only template filled
    with the question and with the example and signature cut out of the open-book prompt that produced
    the answer (the text after "### Test Cases" and after "### Function to Complete", up to the next
    "###", stripped); Open-SFT trains on the open-book prompt that produced the answer itself.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from sebench.errors import SebenchError
from sebench.files import parse_json
from sebench.instance import Instance
from sebench.instance_library import require_numpy
from sebench.records import Task
from sebench.tasks import released_rows

TEMPLATE_FILE = "src/utils/prompt_template.py"
API_DOC_FILE = "datasets/train/api_doc.jsonl"
CLOSED_TEMPLATE = "query_only_prompt"
DOCS_TEMPLATE = "doc_query_cot_prompt"
MODES = ("closed", "open", "full-doc")
# the original's training scripts and the template each defines (docs/gpu.md, "The original's training, item by item")
TRAINING_SCRIPTS = "verl_evolve/evolve_folder/scripts"
SFT_CLOSED = ("SFTprompt_template.py", "query_only_prompt")
RL_OPEN = ("rl_train.py", "doc_query_cot_prompt")
RL_CLOSED = ("rl_real_train.py", "query_only_cot_prompt")


@dataclass(frozen=True)
class OriginalTemplates:
    """The original's two prompt templates and its docs (rows of its api_doc.jsonl), as read from its copy."""

    closed: str
    docs: str
    api_doc: list[dict]

    @classmethod
    def read(cls, repo: Path | str | None) -> OriginalTemplates:
        if repo is None:
            raise SebenchError("--protocol original reads the original's prompts from its repository: give the "
                               "path of your copy of github.com/thunlp/SE-Bench with --original-repo")
        repo = Path(repo)
        constants = _string_constants(repo / TEMPLATE_FILE)
        missing = [name for name in (CLOSED_TEMPLATE, DOCS_TEMPLATE) if name not in constants]
        if missing:
            raise SebenchError(f"{repo / TEMPLATE_FILE}: no string constant {', '.join(missing)} (is this the "
                               "original SE-Bench repository?)")
        return cls(constants[CLOSED_TEMPLATE], constants[DOCS_TEMPLATE], _api_doc_rows(repo / API_DOC_FILE))


@dataclass(frozen=True)
class OriginalTrainingTemplates:
    """The templates of the original's training scripts, as read from its copy."""

    sft_closed: str
    rl_open: str
    rl_closed: str

    @classmethod
    def read(cls, repo: Path | str) -> OriginalTrainingTemplates:
        found = []
        for file, name in (SFT_CLOSED, RL_OPEN, RL_CLOSED):
            path = Path(repo) / TRAINING_SCRIPTS / file
            constants = _string_constants(path)
            if name not in constants:
                raise SebenchError(f"{path}: no string constant {name} (is this the original SE-Bench repository?)")
            found.append(constants[name])
        return cls(*found)


def _string_constants(path: Path) -> dict[str, str]:
    """NAME -> text for every top-level `NAME = "..."` of a Python file, read with ast (nothing is run)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except FileNotFoundError:
        raise SebenchError(f"{path}: not found; --original-repo must be a copy of the original SE-Bench "
                           "repository") from None
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise SebenchError(f"{path}: cannot be read as Python ({exc})") from None
    found = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            found[node.targets[0].id] = node.value.value
    return found


def _api_doc_rows(path: Path) -> list[dict]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SebenchError(f"{path}: cannot be read ({exc.strerror or exc}); the original's docs are its "
                           "datasets/train/api_doc.jsonl") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row = parse_json(line, f"{path}:{lineno}")
        for field in ("original_name", "curr_name", "rewritten_doc"):
            if not isinstance(row.get(field) if isinstance(row, dict) else None, str):
                raise SebenchError(f"{path}:{lineno}: field '{field}': missing or not a string")
        rows.append(row)
    return rows


class OriginalPromptBuilder:
    """`PromptBuilder`'s interface for the original's prompts: one user message per task."""

    def __init__(self, instance: Instance, mode: str, templates: OriginalTemplates):
        if mode not in MODES:
            raise SebenchError(f"--protocol original has the modes {', '.join(MODES)}, not '{mode}'")
        require_numpy(instance, "--protocol original (its prompts are written for NumPy)")
        self.mode = mode
        self.templates = templates
        self.docs: list = []
        self.constructor = str(instance.manifest().get("constructor", "")) or "array"
        self.to_numpy = {public: name.split(".", 1)[1] for name, public in instance.mapping()["functions"].items()}
        self.rows = released_rows(instance.root)  # task_id -> the released row it was imported from
        self.api_doc = templates.api_doc if instance.manifest().get("docs") == "original" else [
            {"original_name": self.to_numpy.get(d.name, d.name), "curr_name": d.name.rsplit(".", 1)[-1],
             "rewritten_doc": d.doc} for d in instance.api_docs()]  # an instance of other names: its own docs

    def messages(self, task: Task) -> list[dict]:
        row = self.rows.get(task.task_id) or {}
        values = {"question": row.get("query", task.query), "function": row.get("function_name", task.function_name),
                  "example_test_cases": self._example(row, task)}
        template = self.templates.closed
        if self.mode != "closed":
            template = self.templates.docs
            values["ref_code"] = self.selected_docs(row, task)
        return [{"role": "user", "content": Template(template).safe_substitute(values)}]

    def _example(self, row: dict, task: Task) -> dict:
        """The example's first entry (its input), `np.array` written as the package's constructor."""
        example = _literal(row.get("example"))
        if not isinstance(example, dict) or not example:
            example = {"input": task.test_cases[0]["input"] if task.test_cases else ""}
        key, value = next(iter(example.items()))
        return {self._constructor(str(key)): self._constructor(str(value))}

    def _constructor(self, text: str) -> str:
        return re.sub(r"\bnp\.array\b", self.constructor, text)

    def selected_docs(self, row: dict, task: Task) -> list[dict]:
        """{name: doc} of the task's functions (full-doc: of every function), in the docs' order."""
        if self.mode == "full-doc":
            return [{d["curr_name"]: d["rewritten_doc"]} for d in self.api_doc]
        selected = _literal(row.get("selected_functions"))
        if not isinstance(selected, list):
            selected = [self.to_numpy.get(name, name) for name in task.selected_functions]
        return [{d["curr_name"]: d["rewritten_doc"]} for d in self.api_doc if d["original_name"] in selected]


def _literal(value):
    """A released field that may be stored as the text of a Python literal."""
    if isinstance(value, str):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
    return value


# The sections of an open-book prompt that the original's SFT conversion cuts out: from the heading to the
# next "###" (its heading pattern: "###", blanks ending in a space, then "Test Cases"; any case).
_EXAMPLE_SECTION = re.compile(r"###(?:\s*) Test Cases(.*?)###", re.S | re.I)
_SIGNATURE_SECTION = re.compile(r"###\s*Function\s*to\s*Complete(.*?)###", re.S | re.I)


class OriginalTrainingPrompts:
    """The prompts the original trains on, for the tasks of an instance (see the module docstring)."""

    def __init__(self, instance: Instance, repo: Path | str):
        self.templates = OriginalTrainingTemplates.read(repo)
        self.evaluation = OriginalTemplates.read(repo)
        self.open_builder = OriginalPromptBuilder(instance, "open", self.evaluation)

    def rl_messages(self, task: Task, mode: str) -> list[dict]:
        """The GRPO prompt of `task`: mode "open" (rl_train.py's rows) or "closed" (rl_real_train.py's)."""
        row = self.open_builder.rows.get(task.task_id) or {}
        values = {"question": row.get("query", task.query), "function": row.get("function_name", task.function_name),
                  "example_test_cases": self._stored_example(row, task)}
        template = self.templates.rl_closed
        if mode == "open":
            template = self.templates.rl_open
            values["ref_code"] = self.open_builder.selected_docs(row, task)
        return [{"role": "user", "content": Template(template).safe_substitute(values)}]

    @staticmethod
    def _stored_example(row: dict, task: Task):
        """The example as the release stores it (a built task: its first test case, in the release's form)."""
        if "example" in row:
            return row["example"]
        case = task.test_cases[0] if task.test_cases else {"input": "", "output": ""}
        return {"input": case.get("input", ""), "output": case.get("output", "")}

    def open_sft_messages(self, task: Task, answered: list[dict] | None) -> list[dict]:
        """Open-SFT's prompt: the one that produced the answer (a reference solution: the evaluation's)."""
        return answered if answered else self.open_builder.messages(task)

    def closed_sft_messages(self, task: Task, answered: list[dict] | None) -> list[dict]:
        """Closed-SFT's prompt, cut out of the open-book prompt that produced the answer."""
        open_text = self.open_sft_messages(task, answered)[-1]["content"]
        example, signature = _EXAMPLE_SECTION.search(open_text), _SIGNATURE_SECTION.search(open_text)
        if not (example and signature):
            raise SebenchError(f"task {task.task_id}: its open-book prompt has no '### Test Cases' or '### Function to "
                               "Complete' section to cut out (was it asked with --protocol original?)")
        row = self.open_builder.rows.get(task.task_id) or {}
        values = {"question": row.get("query", task.query), "example_test_cases": example.group(1).strip(),
                  "function": signature.group(1).strip()}
        return [{"role": "user", "content": Template(self.templates.sft_closed).safe_substitute(values)}]

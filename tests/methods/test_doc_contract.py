"""docs/methods.md's contract as a user reads it: the example method, copied from the page, imports and runs
against sebench.methods (stand-in services, no model), and every name, field and call the page gives for the
context, its services and the return values is one the code has, with the defaults the page states."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import logging
import re
from pathlib import Path

import pytest

from sebench.methods import (
    Agent,
    Checkpoint,
    Context,
    Cost,
    Endpoint,
    Feedback,
    Judge,
    Method,
    MethodError,
    Prompt,
    Sampler,
    check_arguments,
    resolve,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "methods.md"
TEXT = DOC.read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text under a heading of the page, up to the next heading of the same or a higher level."""
    head = re.search(rf"^(#+) {re.escape(title)}$", TEXT, re.M)
    assert head, f"docs/methods.md has no heading '{title}'"
    level = len(head.group(1))
    rest = TEXT[head.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


class StandInJudge(Judge):
    reward_rule = "binary"

    def __call__(self, answers):
        return [Feedback(task_id, "wrong", 0.0, 0, 1) for task_id, _ in answers]


class StandInSampler(Sampler):
    def prompt(self, task, mode="closed"):
        return [{"role": "user", "content": task.query}]

    def sample(self, prompts, model=None, n=1, temperature=0.0, max_tokens=256):
        return [[""] * n for _ in prompts]


def context(folder: Path) -> Context:
    return Context(docs=[], train_tasks=[], dev_tasks=[], judge=StandInJudge(), sampler=StandInSampler(),
                   start_model="smollm2-135m", seed=0, workdir=folder, view=folder, log=logging.getLogger("doc"))


def test_the_pages_example_method_imports_takes_its_arguments_and_returns_a_checkpoint_in_its_folder(tmp_path):
    block = re.search(r"```python\n(from sebench\.methods import .*?)```", section("The contract"), re.S)
    assert block, "docs/methods.md's contract has no example method"
    path = tmp_path / "my_method.py"
    path.write_text(block.group(1).replace("...  #", "pass  #"), encoding="utf-8")
    ref = resolve(f"{path}:MyMethod")
    cls = ref.load()  # as the study loads it: a subclass of Method
    assert inspect.isclass(cls) and issubclass(cls, Method) and not inspect.isabstract(cls)
    arguments = inspect.signature(cls.__init__).parameters
    name, parameter = next((n, p) for n, p in arguments.items() if n != "self")
    check_arguments("MyMethod", ref, {name: parameter.default})  # its own default passes the study's check
    with pytest.raises(MethodError, match=name):
        check_arguments("MyMethod", ref, {name: "not a number"})
    with pytest.raises(MethodError, match="unknown argument"):
        check_arguments("MyMethod", ref, {f"{name}_typo": 1})
    work = tmp_path / "work"
    result = cls().run(context(work))
    assert isinstance(result, Checkpoint) and result.path.parent == work  # "a Hugging Face model folder in your folder"


def test_every_field_of_the_context_table_is_the_contexts():
    fields = {f.name for f in dataclasses.fields(Context)}
    properties = {n for n, v in vars(Context).items() if isinstance(v, property)}
    named = set(re.findall(r"`ctx\.(\w+)", section("What the context holds")))
    assert {"docs", "train_tasks", "judge", "sampler", "cost"} <= named, named
    assert named <= fields | properties, f"the page names {sorted(named - fields - properties)}, not Context's"
    assert fields | properties <= named, f"Context's {sorted((fields | properties) - named)} are not on the page"


def _call(text: str) -> ast.Call:
    call = ast.parse(text, mode="eval").body
    assert isinstance(call, ast.Call), text
    return call


def _matches(call: ast.Call, function, defaults: bool = True) -> None:
    """The page's call `call` names `function`'s parameters in order (a method's after self), with their
    defaults where `defaults`."""
    parameters = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    given = [a.id for a in call.args if isinstance(a, ast.Name)] + [k.arg for k in call.keywords]
    assert given == [p.name for p in parameters], (ast.unparse(call), [p.name for p in parameters])
    for keyword in call.keywords if defaults else ():
        default = next(p.default for p in parameters if p.name == keyword.arg)
        assert ast.literal_eval(keyword.value) == default, (keyword.arg, default)


def test_the_samplers_and_the_judges_calls_are_the_contracts():
    table = section("What the context holds")
    sample = re.search(r"`ctx\.sampler\.(sample\([^`]*\))`", table)
    prompt = re.search(r"`ctx\.sampler\.prompt\(task, \"closed\" or \"open\"\)`", table)
    assert sample and prompt, "the context table gives no sampler call"
    _matches(_call(sample.group(1)), Sampler.sample)
    assert list(inspect.signature(Sampler.prompt).parameters)[1:] == ["task", "mode"]
    judge = re.search(r"`ctx\.judge\((\[\(task_id, answer\), \.\.\.\])\)` gives a `(\w+)`", table)
    assert judge and judge.group(2) == Feedback.__name__
    assert list(inspect.signature(Judge.__call__).parameters)[1:] == ["answers"]
    add = re.search(r"`ctx\.cost\.add\((\w+)=N\)`", table)
    assert add and add.group(1) in inspect.signature(Cost.add).parameters


def test_what_a_method_may_return_is_built_as_the_page_builds_it():
    returns = section("What a method returns")
    for text, cls in ((r"`(Checkpoint\(path, docs_at_test_time=True\))`", Checkpoint),
                      (r"`(Endpoint\(url, model\))`", Endpoint)):
        found = re.search(text, returns)
        assert found, f"the page no longer shows {cls.__name__}'s call"
        _matches(_call(found.group(1)), cls, defaults=False)
    agent = {"answer": r"`answer\((\w+)\) -> str`", "answer_all": r"`answer_all\((\w+)\)`",
             "save": r"`save\((\w+)\)`", "load": r"`load\((\w+), (\w+)\)`"}
    for name, pattern in agent.items():
        found = re.search(pattern, returns)
        assert found, f"the page no longer shows Agent.{name}"
        parameters = list(inspect.signature(getattr(Agent, name)).parameters)
        assert parameters[-len(found.groups()):] == list(found.groups()), (name, parameters)
    assert isinstance(inspect.getattr_static(Agent, "load"), classmethod)  # "a class method `load(...)`"
    prompt = re.search(r"\(`Prompt`: ([^)]*)\)", returns)
    assert prompt, "the page no longer says what a Prompt holds"
    assert set(re.findall(r"`(\w+)`", prompt.group(1))) == {f.name for f in dataclasses.fields(Prompt)}

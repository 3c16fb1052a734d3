"""Model-written tasks against a fake OpenAI-compatible server on 127.0.0.1 (scripted answers)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sebench.cli import main
from sebench.instance import Instance
from sebench.records import Task, read_records
from sebench.train.modelgen import (
    TEST_INPUTS,
    generate,
    generate_tasks,
    parse_proposal,
    proposal_answer,
    proposal_prompt,
)

INPUTS = ["scores=[[1, 2, 3], [4, 5, 6]]", "scores=[[10, 20]]", "scores=[[0.5], [1.5], [2.5]]",
          "scores=[[-1, 1], [2, 2]]", "scores=[[3, 3, 3, 3]]", "scores=[[7, 8], [9, 10], [11, 12]]",
          "scores=[[100, 0]]", "scores=[[1, 4], [2, 8]]"]


def _proposal(query: str, body: str) -> str:
    return "```json\n" + json.dumps({
        "query": query, "function_name": "def student_average(scores):", "test_inputs": INPUTS,
        "solution": "import {pkg}\n\ndef student_average(scores):\n    return " + body + "\n",
    }) + "\n```"


class _Model:
    """Scripted answers: proposal k comes from the request's seed; solutions depend on the task text."""

    def __init__(self, pkg: str, mean: str, maxf: str):
        self.pkg, self.mean, self.max = pkg, mean, maxf

    def proposal(self, seed: int) -> str:
        good = f"{self.mean}(scores, axis=1)"
        return [
            _proposal("A teacher stores exam scores in `scores` (one row per student). Return each student's average.", good),
            _proposal("Use `numpy.mean` on `scores` to average each row.", good),  # leaks a NumPy name
            _proposal("A gym logs lifts in `scores` (rows per athlete). Return each athlete's summary value.", good),
            "I cannot do that.",
        ][seed % 4].replace("{pkg}", self.pkg)

    def solutions(self, prompt: str, n: int) -> list[str]:
        if "summary value" in prompt:  # ambiguous task: the solvers disagree with the proposal and each other
            bodies = [f"{self.max}(scores, axis=1)", f"{self.mean}(scores, axis=0)"]
        else:
            bodies = [f"{self.mean}(scores, axis=1)", f"{self.mean}(scores, axis=-1)"]  # same results
        return [f"```python\nimport {self.pkg}\n\ndef student_average(scores):\n    return {bodies[i % 2]}\n```"
                for i in range(n)]


@pytest.fixture
def fake_server(built_instance):
    mapping = Instance(built_instance).mapping()
    model = _Model(mapping["package"], mapping["functions"]["numpy.mean"], mapping["functions"]["numpy.max"])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body["messages"][-1]["content"]
            n = body.get("n", 1)
            if "Write one new exercise" in prompt:
                texts = [model.proposal(body.get("seed") or 0)] * n
            else:
                texts = model.solutions(prompt, n)
            reply = {"id": "x", "object": "chat.completion", "model": body.get("model", "fake"),
                     "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                                 for i, t in enumerate(texts)],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"openai:fake@http://127.0.0.1:{server.server_address[1]}/v1", mapping
    server.shutdown()
    server.server_close()


def test_generate_keeps_only_agreed_leak_free_tasks(built_instance, fake_server):
    from sebench.rollout.backends import get_backend

    spec, mapping = fake_server
    mean = mapping["functions"]["numpy.mean"]
    with get_backend(spec) as backend:
        tasks = generate_tasks(Instance(built_instance), backend, [mean], n=4, seed=0, samples=2)
    assert len(tasks) == 1  # seed 0 kept; 1 leaks; 2 has no agreement; 3 is not JSON
    task = tasks[0]
    assert task.selected_functions == [mean] and task.entry_point == "student_average"
    assert task.expected[0] == [2.0, 5.0] and len(task.test_cases) == len(INPUTS)
    assert task.right_exe_result.split("#")[0] == "[2.0, 5.0]"


def test_generated_task_is_judged_correct(built_instance, fake_server):
    from sebench.judge import Judge
    from sebench.rollout.backends import get_backend

    spec, mapping = fake_server
    with get_backend(spec) as backend:
        task = generate_tasks(Instance(built_instance), backend, [mapping["functions"]["numpy.mean"]], n=1)[0]
    with Judge(built_instance, workers=1) as judge:
        assert judge.judge(task, f"```python\n{task.reference_solution}```").verdict == "correct"


def test_cli_writes_tasks(built_instance, fake_server, tmp_path):
    spec, mapping = fake_server
    out = tmp_path / "gen.jsonl"
    code = main(["tasks", "generate", "--data", str(built_instance), "--model", spec, "--functions",
                 mapping["functions"]["numpy.mean"], "--n", "3", "--out", str(out)])
    assert code == 0
    assert len(read_records(out, Task)) == 1


def test_cli_unknown_function(built_instance, fake_server, tmp_path, capsys):
    spec, _ = fake_server
    code = main(["tasks", "generate", "--data", str(built_instance), "--model", spec, "--functions", "nope.x",
                 "--out", str(tmp_path / "g.jsonl")])
    assert code == 2 and "unknown function" in capsys.readouterr().err


def test_parse_proposal_rejects_bad_answers():
    assert parse_proposal("no json here") is None
    assert parse_proposal('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}") is None  # a degenerate model's output, too deep to read
    assert parse_proposal('{"query": ' + "9" * 5000 + "}") is None  # a number too long to read
    assert parse_proposal('```json\n{"query": "q", "function_name": "f(x)", "test_inputs": ["x=1"], "solution": "s"}\n```') is None
    good = parse_proposal('{"query": "q", "function_name": "def f(x):", "test_inputs": ["x=1", "x=1", "x=2"], "solution": "```python\\nimport a\\n```"}')
    assert good.entry_point == "f" and good.inputs == ["x=1", "x=2"] and good.solution == "import a\n"


def test_cli_takes_the_server_from_base_url(built_instance, fake_server, tmp_path):
    spec, mapping = fake_server
    model, url = spec.split("@")
    out = tmp_path / "gen.jsonl"
    code = main(["tasks", "generate", "--data", str(built_instance), "--model", model, "--base-url", url,
                 "--functions", mapping["functions"]["numpy.mean"], "--n", "3", "--out", str(out)])
    assert code == 0
    assert len(read_records(out, Task)) == 1


def test_without_fresh_solutions_a_task_is_kept_when_its_own_solution_runs(built_instance, fake_server):
    """samples=0 (self-play's filter): no agreement asked for, so the ambiguous task (seed 2) is kept too;
    the leaking one (seed 1) and the one that is not JSON (seed 3) are not; the counts say where each went."""
    from sebench.rollout.backends import get_backend

    spec, mapping = fake_server
    mean = mapping["functions"]["numpy.mean"]
    with get_backend(spec) as backend:
        got = generate(Instance(built_instance), backend, [mean], n=4, seed=0, samples=0)
    assert (got.asked, got.parsed, got.clean, got.rejected) == (4, 3, 2, {})
    with get_backend(spec) as backend:  # with the agreement check, the ambiguous task is rejected for it
        assert generate(Instance(built_instance), backend, [mean], n=4, seed=0, samples=2).rejected == {"no_agreement": 1}
    assert [t.query.split(" ")[1] for t in got.tasks] == ["teacher", "gym"]
    assert all(t.expected[0] == [2.0, 5.0] for t in got.tasks)  # the proposal's own solution decides
    assert len({t.task_id for t in got.tasks}) == 2


def test_a_task_written_as_a_proposal_parses_back(built_instance):
    """The warm-up's task-writing examples: proposal_answer's text is what parse_proposal reads, with the
    task's shortest inputs, and the prompt is the one generate() asks with."""
    instance = Instance(built_instance)
    task = next(t for t in instance.tasks("train") if len(t.selected_functions) == 1)
    proposal = parse_proposal(proposal_answer(task))
    assert proposal is not None
    assert (proposal.query, proposal.function_name, proposal.entry_point, proposal.solution) == (
        task.query, task.function_name, task.entry_point, task.reference_solution)
    inputs = [c["input"] for c in task.test_cases]
    assert len(proposal.inputs) == min(TEST_INPUTS, len(inputs)) and set(proposal.inputs) <= set(inputs)
    assert max(map(len, proposal.inputs)) <= sorted(map(len, inputs))[len(proposal.inputs) - 1]
    prompt = proposal_prompt(instance, task.selected_functions)
    assert f"### {task.selected_functions[0]}\n" in prompt and f"{TEST_INPUTS} different" in prompt


def test_proposals_are_written_a_batch_at_a_time_with_progress(built_instance, caplog):
    """Five proposals through a backend of batch size 2: three calls, a progress line after each, the
    answers used in the order asked (the first, a good proposal, is the one kept)."""
    from sebench.rollout.backends.fake import FakeBackend
    from sebench.train.modelgen import generate_many

    mean = Instance(built_instance).mapping()["functions"]["numpy.mean"]
    pkg = Instance(built_instance).package_name
    good = "```json\n" + json.dumps({
        "query": "A class records test marks in `marks`. Return the average mark.",
        "function_name": "def average_mark(marks):",
        "test_inputs": ["marks=[1, 2, 3]", "marks=[4, 8]", "marks=[10]", "marks=[0, 5, 7]", "marks=[2, 2, 6]"],
        "solution": f"import {pkg}\n\ndef average_mark(marks):\n    return {mean}(marks)\n"}) + "\n```"
    backend = FakeBackend(responses=[good] + ["I cannot."] * 4, batch_size=2)
    caplog.set_level("INFO", logger="sebench.train.modelgen")
    got = generate_many(Instance(built_instance), backend, [([mean], 5)], seed=0, samples=0, min_cases=5)[0]
    assert [m for m in caplog.messages if "proposals written" in m] == [
        f"modelgen: {k} of 5 proposals written (0 s)" for k in (2, 4, 5)]
    assert (got.asked, got.parsed, len(got.tasks)) == (5, 1, 1) and got.texts[0] == good


def test_a_rejected_tasks_failed_inputs_are_counted_by_reason(built_instance):
    """A task whose own solution runs on one input of five is rejected (too few inputs run); its four failed
    inputs are told apart from the sandbox's error texts: one that is not a literal call, two that do not fit
    the task's signature, one where the solution raises."""
    from sebench.rollout.backends.fake import FakeBackend

    mapping = Instance(built_instance).mapping()
    pkg, mean = mapping["package"], mapping["functions"]["numpy.mean"]
    text = "```json\n" + json.dumps({
        "query": "A teacher stores exam scores in `scores`. Return their average.",
        "function_name": "def student_average(scores):",
        "test_inputs": ["scores=[[1, 2]]", "scores=[[1, 2]", "values=[[1]]", "scores=[[3]], extra=1", "scores='abc'"],
        "solution": f"import {pkg}\n\ndef student_average(scores):\n    return {mean}(scores)\n",
    }) + "\n```"
    got = generate(Instance(built_instance), FakeBackend(responses=[text]), [mean], n=1, seed=0, samples=0)
    assert (got.clean, got.tasks, got.rejected) == (1, [], {"few_inputs": 1})
    assert got.failed_inputs == {"not_literal": 1, "signature": 2, "error": 1}

"""SE-Bench as an Inspect task: `inspect_ai.eval("sebench/se_bench", ...)` in-process, with Inspect's mockllm model and
with a fake OpenAI-compatible server on 127.0.0.1. Its prompts are `sebench rollout`'s, and its verdicts are `sebench
judge`'s for the same answers, whether they come from Inspect's log or from `sebench rollout` with the same model."""

from __future__ import annotations

import ast
import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.judge import JudgeConfig, write_verdicts
from sebench.metrics import mean_pass_at_k
from sebench.records import Task, Verdict, read_records, write_records
from sebench.rollout import RolloutConfig, get_backend, write_rollouts

inspect_ai = pytest.importorskip("inspect_ai")
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from sebench.integrations.inspect_task import log_records  # noqa: E402
from sebench.integrations.inspect_task import main as inspect_records  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src" / "sebench"
KINDS = ("correct", "no_code", "numpy", "syntax", "plain_python")
LIMIT = 10


def answer(task: Task, kind: str) -> str:
    """One scripted answer of each kind, each a different verdict."""
    code = {"correct": task.reference_solution, "no_code": None,
            "numpy": f"import numpy as np\n\ndef {task.entry_point}(*args, **kwargs):\n    return np.zeros(1)\n",
            "syntax": f"def {task.entry_point}(:\n    return\n",
            "plain_python": f"def {task.entry_point}(*args, **kwargs):\n    return None\n"}[kind]
    return "I cannot solve it." if code is None else f"Here it is.\n```python\n{code}```"


class Script:
    """Answers a prompt by the task whose problem it states: kinds in turn over the tasks (and over a task's
    samples when `vary`), the same for Inspect and for sebench rollout."""

    def __init__(self, tasks: list[Task], vary: bool = False):
        assert len({t.query for t in tasks}) == len(tasks)
        self.tasks, self.vary, self.asked = tasks, vary, Counter()

    def __call__(self, prompt: str) -> str:
        index, task = next((i, t) for i, t in enumerate(self.tasks) if t.query.strip() in prompt)
        turn = self.asked[task.task_id] if self.vary else 0
        self.asked[task.task_id] += 1
        return answer(task, KINDS[(index + turn) % len(KINDS)])

    def mockllm(self):
        def output(messages, _tools, _choice, _config) -> ModelOutput:
            result = ModelOutput.from_content("mockllm/model", self(messages[-1].text))
            result.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
            return result

        return get_model("mockllm/model", custom_outputs=output)


class FullUsageServer(FakeOpenAIServer):
    """The fake server with the usage field as OpenAI's API and vLLM send it (total_tokens too, which Inspect reads)."""

    def _completion(self, body: dict, n: int) -> dict:
        data = super()._completion(body, n)
        data["usage"]["total_tokens"] = data["usage"]["prompt_tokens"] + data["usage"]["completion_tokens"]
        return data


def run_inspect(model, log_dir: Path, **task_args):
    [log] = inspect_ai.eval("sebench/se_bench", model=model, task_args=task_args, limit=LIMIT, display="none",
                            log_dir=str(log_dir))
    assert log.status == "success", log.error
    return log


def sebench_judge(instance: Path, rollouts, out: Path, protocol: str = "sebench") -> list[Verdict]:
    write_records(out / "rollouts.jsonl", rollouts)
    write_verdicts(JudgeConfig(data=instance, rollouts=out / "rollouts.jsonl", out=out / "verdicts.jsonl",
                               protocol=protocol, progress=False))
    return read_records(out / "verdicts.jsonl", Verdict)


def comparable(verdicts: list[Verdict], drop_model: bool = False) -> list[dict]:
    """Verdicts in (task, sample) order, less what varies from run to run (seconds) or names the client."""
    rows = []
    for v in sorted(verdicts, key=lambda v: (v.task_id, v.sample_idx)):
        row = dataclasses.asdict(v)
        row["detail"] = {k: x for k, x in row["detail"].items() if k != "seconds"}
        if drop_model:
            row.pop("model")
        rows.append(row)
    return rows


def first_tasks(instance: Path, split: str = "single_test") -> list[Task]:
    return [t for t in Instance.open(instance).tasks(split) if t.is_valid][:LIMIT]


def test_mockllm_answers_get_sebench_judges_verdicts(built_instance, tmp_path):
    tasks = first_tasks(built_instance)
    log = run_inspect(Script(tasks).mockllm(), tmp_path / "logs", instance=str(built_instance))
    rollouts, verdicts = log_records(log)
    assert len(verdicts) == LIMIT and {v.mode for v in verdicts} == {"closed"}
    assert len({v.verdict for v in verdicts}) >= 4  # the scripted kinds reach different verdicts
    # the same answers, as sebench's records (python -m sebench.integrations.inspect_task), judged by `sebench judge`
    assert inspect_records([log.location, str(tmp_path / "a")]) == 0
    assert read_records(tmp_path / "a/verdicts.jsonl", Verdict) == verdicts
    write_verdicts(JudgeConfig(data=built_instance, rollouts=tmp_path / "a/rollouts.jsonl",
                               out=tmp_path / "a/judged.jsonl", progress=False))
    assert comparable(read_records(tmp_path / "a/judged.jsonl", Verdict)) == comparable(verdicts)
    # the same model answering `sebench rollout`: the same prompts, the same verdicts
    script = Script(tasks)
    cfg = RolloutConfig(data=built_instance, out=tmp_path / "b/rollouts.jsonl", limit=LIMIT, model="fake:",
                        progress=False)
    write_rollouts(cfg, get_backend("fake:", responses=lambda request: script(request.messages[-1]["content"])))
    own = read_records(cfg.out, type(rollouts[0]))
    assert sorted((r.task_id, json.dumps(r.prompt)) for r in own) == sorted((r.task_id, json.dumps(r.prompt))
                                                                             for r in rollouts)
    assert comparable(sebench_judge(built_instance, own, tmp_path / "b"), True) == comparable(verdicts, True)
    # the score is the verdict: accuracy is the share of correct answers
    [score] = log.results.scores
    correct = sum(v.verdict == "correct" for v in verdicts) / len(verdicts)
    assert score.metrics["accuracy"].value == pytest.approx(correct) and 0 < correct < 1
    assert score.metrics["stderr"].params == {"cluster": "task_id"}


def test_the_numpy_mode_asks_and_judges_as_sebench_does(built_instance, tmp_path):
    tasks = first_tasks(built_instance)
    log = run_inspect(Script(tasks).mockllm(), tmp_path / "logs", instance=str(built_instance), mode="numpy")
    rollouts, verdicts = log_records(log)
    assert {v.mode for v in verdicts} == {"numpy"} and len({v.verdict for v in verdicts}) >= 3
    write_verdicts(JudgeConfig(data=built_instance, rollouts=_saved(rollouts, tmp_path / "a"),
                               out=tmp_path / "a/judged.jsonl", progress=False))
    assert comparable(read_records(tmp_path / "a/judged.jsonl", Verdict)) == comparable(verdicts)
    script = Script(tasks)
    cfg = RolloutConfig(data=built_instance, out=tmp_path / "b/rollouts.jsonl", limit=LIMIT, model="fake:",
                        mode="numpy", progress=False)
    write_rollouts(cfg, get_backend("fake:", responses=lambda request: script(request.messages[-1]["content"])))
    own = read_records(cfg.out, type(rollouts[0]))
    assert sorted((r.task_id, json.dumps(r.prompt)) for r in own) == sorted((r.task_id, json.dumps(r.prompt))
                                                                             for r in rollouts)
    numpy_answers = [v for v in verdicts if "np.zeros" in next(r.response for r in rollouts if r.task_id == v.task_id)]
    assert numpy_answers and all(v.verdict != "forbidden_access" for v in numpy_answers)  # NumPy is allowed here


def _saved(rollouts, folder: Path) -> Path:
    write_records(folder / "rollouts.jsonl", rollouts)
    return folder / "rollouts.jsonl"


def test_a_fake_openai_server_sees_sebench_rollouts_requests(built_instance, tmp_path, monkeypatch):
    tasks = first_tasks(built_instance, "multiple_test")
    script = Script(tasks)
    reasoning = "Maybe:\n```python\ndef draft():\n    pass\n```"  # served apart, as vLLM's reasoning parsers do
    with FullUsageServer(answer=lambda body: script(body["messages"][-1]["content"]), reasoning=reasoning) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        model = get_model("openai-api/fake/fake-model", base_url=server.url, api_key="test-key")
        log = run_inspect(model, tmp_path / "logs", instance=str(built_instance), split="multiple_test", mode="open",
                          temperature=0.5)
        inspect_bodies = list(server.bodies)
        cfg = RolloutConfig(data=built_instance, out=tmp_path / "b/rollouts.jsonl", split="multiple_test",
                            mode="open", temperature=0.5, limit=LIMIT, model=f"openai:fake-model@{server.url}",
                            progress=False)
        write_rollouts(cfg)
        own_bodies = server.bodies[len(inspect_bodies):]

    def requests(bodies):
        return sorted((json.dumps(b["messages"]), b.get("temperature"), b.get("seed")) for b in bodies)

    assert len(inspect_bodies) == LIMIT and requests(inspect_bodies) == requests(own_bodies)
    rollouts, verdicts = log_records(log)
    assert comparable(sebench_judge(built_instance, rollouts, tmp_path / "a")) == comparable(verdicts)
    own_rollouts = read_records(cfg.out, type(rollouts[0]))
    assert sorted((r.task_id, r.response) for r in own_rollouts) == sorted((r.task_id, r.response) for r in rollouts)
    assert all(r.response.startswith(f"<think>\n{reasoning}\n</think>\n") for r in rollouts)
    own = sebench_judge(built_instance, own_rollouts, tmp_path / "b")
    assert comparable(own, True) == comparable(verdicts, True)


def test_original_protocol_with_samples_gives_sebenchs_pass_at_k(built_instance, tmp_path):
    from original_fixtures import SHARED_API_DOC, original_repo

    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    repo = original_repo(tmp_path)
    tasks = first_tasks(built_instance)
    log = run_inspect(Script(tasks, vary=True).mockllm(), tmp_path / "logs", instance=str(built_instance),
                      protocol="original", original_repo=str(repo))
    assert log.eval.config.epochs == 5  # the original's samples per task
    rollouts, verdicts = log_records(log)
    assert {v.protocol for v in verdicts} == {"original"} and len(verdicts) == 5 * LIMIT
    assert all(r.prompt[0]["content"].startswith("PROBLEM ") for r in rollouts)  # the original's template
    assert comparable(sebench_judge(built_instance, rollouts, tmp_path / "a", "original")) == comparable(verdicts)
    per_task = Counter(v.task_id for v in verdicts if v.verdict == "correct")
    counts = [(5, per_task[t.task_id]) for t in tasks]
    by_reducer = {s.reducer: s.metrics["accuracy"].value for s in log.results.scores}
    assert by_reducer["mean"] == pytest.approx(mean_pass_at_k(counts, 1))
    assert by_reducer["pass_at_5"] == pytest.approx(mean_pass_at_k(counts, 5))
    assert by_reducer["pass_at_5"] > by_reducer["mean"]


def test_bad_arguments_are_one_line_errors(built_instance):
    from sebench.integrations.inspect_task import se_bench

    with pytest.raises(SebenchError, match="retrieval is sebench rollout's own"):
        se_bench(instance=str(built_instance), mode="retrieval")
    with pytest.raises(SebenchError, match="split=dev"):
        se_bench(instance=str(built_instance), split="dev")
    with pytest.raises(SebenchError, match="not an instance directory"):
        se_bench(instance=str(built_instance / "nowhere"))


def test_only_the_integration_imports_inspect_ai():
    importers = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "inspect_ai" or n.startswith("inspect_ai.") for n in names):
                importers.append(path.relative_to(SRC).as_posix())
    assert sorted(set(importers)) == ["integrations/inspect_task.py"]


@pytest.mark.parametrize("content", [None, "junk", '{"a": 1}'], ids=["missing", "not a zip", "other JSON"])
def test_a_log_that_is_not_one_is_one_line(tmp_path, capsys, content):
    """`python -m sebench.integrations.inspect_task LOG OUT` with a mistyped or foreign LOG: one line naming it,
    exit 2, no traceback, nothing written."""
    log = tmp_path / ("x.eval" if content != '{"a": 1}' else "x.json")
    if content is not None:
        log.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        inspect_records([str(log), str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and str(log) in err, err
    assert not (tmp_path / "out").exists()

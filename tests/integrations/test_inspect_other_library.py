"""The Inspect task on a built more-itertools instance: sebench's prompts for its package, and its judge's
verdicts (a reference is correct, the same program importing the original is a forbidden import)."""

from __future__ import annotations

import pytest

from sebench.instance import Instance

inspect_ai = pytest.importorskip("inspect_ai")
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from sebench.integrations.inspect_task import log_records  # noqa: E402


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("mi") / "instance"
    return Instance.open(build_instance(out, seed=3, task_sizes=TaskSizes(train=4, single=6, multiple=2),
                                        library="more-itertools"))


def test_inspect_judges_another_librarys_package(instance, tmp_path):
    tasks = [t for t in instance.tasks("single_test") if t.is_valid]
    assert len({t.query for t in tasks}) == len(tasks)

    def output(messages, _tools, _choice, _config) -> ModelOutput:
        index, task = next((i, t) for i, t in enumerate(tasks) if t.query.strip() in messages[-1].text)
        prefix = "import more_itertools\n" if index % 2 else ""
        result = ModelOutput.from_content("mockllm/model", f"```python\n{prefix}{task.reference_solution}```")
        result.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return result

    [log] = inspect_ai.eval("sebench/se_bench", model=get_model("mockllm/model", custom_outputs=output),
                            task_args={"instance": str(instance.root)}, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    rollouts, verdicts = log_records(log)
    order = {t.task_id: i for i, t in enumerate(tasks)}
    assert sorted(v.task_id for v in verdicts) == sorted(order)
    assert all(v.verdict == ("forbidden_import" if order[v.task_id] % 2 else "correct") for v in verdicts)
    package = instance.package_name
    assert all(f"`{package}`" in r.prompt[-1]["content"] and "more_itertools" not in r.prompt[-1]["content"]
               for r in rollouts)

"""Self-play on a more-itertools package: model-written tasks are leak-checked against the original library,
run under the judge's rules (an import of the original is refused), solved and trained on; their noise (an
agreement with NumPy's results) is not measured for another library."""

from __future__ import annotations

import json

import pytest

from sebench.instance import Instance
from sebench.records import Task, read_records
from sebench.train.config import TrainConfig
from sebench.train.run import train_model

pytest.importorskip("trl")

INPUTS = ["values=[1, 2, 3]", "values=[10, 20]", "values=[5]", "values=[-1, 1, 4]", "values=[7, 0]",
          "values=[2, 2, 2, 2]", "values=[100, 0, 1]", "values=[3, 9]"]


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from sebench.builder import build_instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("mi") / "instance"
    return Instance.open(build_instance(out, seed=5, task_sizes=TaskSizes(train=4, single=2, multiple=0),
                                        library="more-itertools"))


def _proposal(query: str, solution: str) -> str:
    return "```json\n" + json.dumps({"query": query, "function_name": "def count_items(values):",
                                      "test_inputs": INPUTS, "solution": solution}) + "\n```"


def test_a_self_play_round_on_another_library(instance, tiny_model, tmp_path):
    mapping = instance.mapping()
    pkg, ilen = mapping["package"], mapping["functions"]["more_itertools.ilen"]
    solution = f"import {pkg}\n\ndef count_items(values):\n    return {ilen}(iter(values))\n"
    script = [
        _proposal("A queue holds the ids `values`. Return how many ids are waiting.", solution),
        _proposal("Use more_itertools.ilen to count `values`.", solution),
        _proposal("Count the readings `values`.",
                  "import more_itertools\n\ndef count_items(values):\n    return more_itertools.ilen(values)\n"),
        f"```python\n{solution}```",
    ]
    (tmp_path / "script.json").write_text(json.dumps(script))
    ckpt = train_model(TrainConfig(
        data=instance.root, regime="self-play", out=tmp_path / "sp", model=str(tiny_model), functions=[ilen],
        rounds=1, selfplay_tasks=3, selfplay_solves=1, selfplay_backend=f"fake:file={tmp_path / 'script.json'}",
        max_steps=1, batch_size=1, judge_workers=2,
    ))
    [summary] = json.loads((ckpt / "train_config.json").read_text())["rounds"]
    assert {k: summary[k] for k in ("asked", "parsed", "no_leak", "kept", "solved", "examples")} == {
        "asked": 3, "parsed": 3, "no_leak": 2, "kept": 1, "solved": 1, "examples": 1}
    assert summary["rejected"] == {"static": 1}
    assert not {"agree_with_library", "noise", "agreement"} & set(summary)
    [task] = read_records(ckpt / "rounds/round-1/tasks.jsonl", Task)
    assert task.expected == [3, 2, 1, 3, 2, 4, 3, 2] and task.selected_functions == [ilen]

"""Memory mode: the model's judged-correct training trajectories, recalled by BM25, replace the docs."""

from __future__ import annotations

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Rollout, Verdict, read_records, write_records
from sebench.rollout.experience import ExperienceMemory
from sebench.rollout.run import RolloutConfig, write_rollouts


@pytest.fixture
def memory_file(built_instance, tmp_path):
    """Open-book rollouts on three training tasks: two judged correct, one wrong."""
    train = Instance.open(built_instance).tasks("train")[:3]
    rollouts = [Rollout(t.task_id, 0, "open", "m", [], f"Reasoning {i}.\n```python\n{t.reference_solution}```",
                        t.reference_solution, "stop") for i, t in enumerate(train)]
    verdicts = [Verdict(t.task_id, 0, v, 1, 1, {"mode": "open"}) for t, v in zip(train, ["correct", "correct", "wrong_answer"])]
    write_records(tmp_path / "rollouts.jsonl", rollouts)
    write_records(tmp_path / "verdicts.jsonl", verdicts)
    return tmp_path / "rollouts.jsonl", train


def test_only_correct_trajectories_are_remembered_and_a_task_never_recalls_itself(memory_file):
    path, train = memory_file
    memory = ExperienceMemory.from_files(train, path)
    assert [e.task_id for e in memory.entries] == [train[0].task_id, train[1].task_id]
    assert memory.entries[0].answer.startswith("Reasoning 0.")  # the whole answer, not only the code
    assert [e.task_id for e in memory.recall(train[0], k=3)] == [train[1].task_id]
    assert memory.recall(train[1], k=1)[0].task_id == train[0].task_id


def test_memory_rollouts_show_recalled_trajectories_instead_of_docs(built_instance, memory_file, tmp_path):
    path, _train = memory_file
    out = write_rollouts(RolloutConfig(data=built_instance, out=tmp_path / "mem.jsonl", mode="memory", memory=path, memory_k=1,
                            split="single_test", model="fake:reference", limit=3, progress=False))
    records = read_records(out, Rollout)
    assert len(records) == 3 and {r.mode for r in records} == {"memory"}
    for record in records:
        text = record.prompt[-1]["content"]
        assert "Solved examples" in text and "Documentation of" not in text
        assert sum(f"Reasoning {i}." in text for i in range(3)) == 1 and "Reasoning 2." not in text
    with pytest.raises(SebenchError, match="--memory"):
        write_rollouts(RolloutConfig(data=built_instance, out=tmp_path / "x.jsonl", mode="memory", progress=False))

"""Self-play + SFT: tasks written from the docs, solved open-book, judged, trained closed-book, in rounds.

Task writing and solving are scripted (a fake backend that answers as a capable model would), so the
round logic, the judge filter and the closed-book training are tested on a tiny random model; the
default in-process backend (the trained model itself) is used by the last test.
"""

from __future__ import annotations

import json
import re

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import Task, Verdict, read_records
from sebench.train.config import TrainConfig
from sebench.train.run import train_model

pytest.importorskip("trl")

INPUTS = ["values=[1, 2, 3]", "values=[10, 20]", "values=[0.5, 1.5]", "values=[-1, 1, 4]", "values=[7]",
          "values=[2, 2, 2, 2]", "values=[100, 0, 1]", "values=[3, 9]"]


def _proposal(query: str, solution: str) -> str:
    return "```json\n" + json.dumps({"query": query, "function_name": "def total_amount(values):",
                                      "test_inputs": INPUTS, "solution": solution}) + "\n```"


def _script(tmp_path, built_instance) -> str:
    """fake:file=... answering, in turn (each round starts the list again): five task proposals (a good one, one
    that leaks a NumPy name, one whose own tests disagree with NumPy's sum, one whose solution imports NumPy,
    one that is not JSON), then the open-book answers to the two kept tasks (right for the first, wrong for
    the second)."""
    mapping = Instance.open(built_instance).mapping()
    pkg, total = mapping["package"], mapping["functions"]["numpy.sum"]
    solution = f"import {pkg}\n\ndef total_amount(values):\n    return {total}(values)\n"
    with_fee = solution.replace("(values)\n", "(values) + 1\n")
    script = [
        _proposal("A shop logs the amounts of a day's sales in `values`. Return the day's total amount.", solution),
        _proposal("Use numpy.sum to add the amounts in `values`.", solution),
        _proposal("A bank adds a fee of 1 to the sum of the amounts `values`. Return what is charged.", with_fee),
        _proposal("A till adds up the amounts `values`.", "import numpy\n\ndef total_amount(values):\n    return 0\n"),
        "I cannot.",
        f"```python\n{solution}```",
        f"```python\n{solution}```",  # forgets the fee: wrong against the third task's own tests
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return f"fake:file={path}"


ROUND = {"asked": 5, "parsed": 4, "no_leak": 3, "kept": 2, "rejected": {"static": 1}, "agree_with_library": 1, "noise": 0.5,
         "answers": 2, "correct": 1, "solved": 1, "examples": 1}


def test_self_play_rounds_train_closed_book_on_judged_tasks(built_instance, tiny_model, tmp_path):
    from safetensors.torch import load_file

    backend = _script(tmp_path, built_instance)
    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    ckpt = train_model(TrainConfig(
        data=built_instance, regime="self-play", out=tmp_path / "sp", model=str(tiny_model), functions=[total],
        rounds=2, selfplay_tasks=5, selfplay_solves=1, selfplay_backend=backend,
        max_steps=1, batch_size=1, judge_workers=2,
    ))
    before, after = load_file(str(tiny_model / "model.safetensors")), load_file(str(ckpt / "model.safetensors"))
    assert any(not bool((after[k] == v).all()) for k, v in before.items())
    info = json.loads((ckpt / "train_config.json").read_text())
    assert [{k: r[k] for k in ("round", *ROUND)} for r in info["rounds"]] == [{"round": k, **ROUND} for k in (1, 2)]
    for k in (1, 2):
        folder = ckpt / "rounds" / f"round-{k}"
        assert json.loads((folder / "summary.json").read_text()) == info["rounds"][k - 1]
        tasks = read_records(folder / "tasks.jsonl", Task)
        assert [t.selected_functions for t in tasks] == [[total], [total]] and len(tasks[0].expected) == len(INPUTS)
        assert info["rounds"][k - 1]["agreement"] == {tasks[0].task_id: True, tasks[1].task_id: False}
        assert [v.verdict for v in read_records(folder / "verdicts.jsonl", Verdict)] == ["correct", "wrong_answer"]
        assert len((folder / "proposals.jsonl").read_text().splitlines()) == 5
    example = json.loads((ckpt / "train_data.jsonl").read_text().splitlines()[0])
    assert "Documentation of" not in example["prompt"][-1]["content"]  # trained closed-book
    assert "A shop logs" in example["prompt"][-1]["content"] and "total_amount" in example["completion"][0]["content"]
    rows = (ckpt / "loss.csv").read_text().splitlines()
    assert [r.split(",")[:2] for r in rows[1:]] == [["1", "round-1"], ["2", "round-2"]]


def test_the_writer_is_trained_on_its_kept_tasks_with_selfplay_train_writer(built_instance, tiny_model, tmp_path):
    """--selfplay-train-writer: each kept task, solved or not, is also an SFT example of writing it (the
    task-writing prompt of the function it was written from, the task as the answer: only the inputs its
    solution ran on), trained in the round's SFT pass beside the closed-book answers."""
    from safetensors.torch import load_file

    from sebench.train.modelgen import TEST_INPUTS, parse_proposal

    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    settings = dict(data=built_instance, regime="self-play-sft", model=str(tiny_model), functions=[total], rounds=1,
                    selfplay_tasks=5, selfplay_solves=1, selfplay_backend=_script(tmp_path, built_instance),
                    max_steps=3, batch_size=1, judge_workers=2)
    plain = train_model(TrainConfig(out=tmp_path / "plain", **settings))
    ckpt = train_model(TrainConfig(out=tmp_path / "writer", selfplay_train_writer=True, **settings))

    summary = json.loads((ckpt / "rounds" / "round-1" / "summary.json").read_text())
    assert (summary["kept"], summary["examples"], summary["writer_examples"]) == (2, 1, 2)
    kept = read_records(ckpt / "rounds" / "round-1" / "tasks.jsonl", Task)
    rows = [json.loads(line) for line in (ckpt / "train_data.jsonl").read_text().splitlines()]
    writing = [r for r in rows if "You write programming exercises" in r["prompt"][-1]["content"]]
    assert len(rows) == 3 and [r["task_id"] for r in writing] == [t.task_id for t in kept]
    for row, task in zip(writing, kept):
        assert f"### {total}" in row["prompt"][-1]["content"]  # the docs it was written from
        proposal = parse_proposal(row["completion"][0]["content"])
        assert proposal is not None and proposal.query == task.query
        assert len(proposal.inputs) == TEST_INPUTS and set(proposal.inputs) <= {c["input"] for c in task.test_cases}
    assert json.loads((plain / "rounds" / "round-1" / "summary.json").read_text())["writer_examples"] == 0
    ours, theirs = load_file(str(ckpt / "model.safetensors")), load_file(str(plain / "model.safetensors"))
    assert any(not bool((ours[k] == v).all()) for k, v in theirs.items())  # it trained on more than the answers


def test_only_self_play_sft_trains_the_writer(built_instance, tmp_path):
    with pytest.raises(SebenchError, match=r"selfplay-train-writer.*self-play-rl"):
        TrainConfig(data=built_instance, regime="self-play-rl", out=tmp_path, selfplay_train_writer=True).resolved()


@pytest.mark.parametrize("engine", ["own", "trl"])
def test_self_play_rl_runs_closed_rl_on_the_written_tasks(built_instance, tiny_model, tmp_path, scripted_sampling, engine):
    from safetensors.torch import load_file

    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    backend = _script(tmp_path, built_instance)
    answer = json.loads((tmp_path / "script.json").read_text())[5]  # the capable answer to the first written task
    scripted_sampling.answers = {"A shop logs the amounts": answer}
    ckpt = train_model(TrainConfig(
        data=built_instance, regime="self-play-rl", out=tmp_path / "sp", model=str(tiny_model), functions=[total],
        rounds=1, selfplay_tasks=5, selfplay_solves=1, selfplay_backend=backend,
        max_steps=2, batch_size=2, num_generations=2, judge_workers=2, engine=engine,
    ))
    before, after = load_file(str(tiny_model / "model.safetensors")), load_file(str(ckpt / "model.safetensors"))
    assert any(not bool((after[k] == v).all()) for k, v in before.items())
    assert all("Documentation of" in p and "A shop logs" in p for p in scripted_sampling)
    samples = [json.loads(line) for line in (ckpt / "rl_samples.jsonl").read_text().splitlines()]
    solved, _unsolved = read_records(ckpt / "rounds" / "round-1" / "tasks.jsonl", Task)
    # closed-rl on the task it solved open-book (the other would give every sample reward 0), judged against
    # the written task's own tests
    assert [(s["task_id"], s["reward"], s["train_mode"]) for s in samples] == [
        (solved.task_id, 1.0, "closed"), (solved.task_id, 0.0, "closed")] * 2
    assert [s["stage"] for s in samples] == ["round-1"] * 4
    info = json.loads((ckpt / "train_config.json").read_text())
    assert [{k: r[k] for k in ROUND} for r in info["rounds"]] == [ROUND]


def test_self_play_that_keeps_nothing_says_so_and_leaves_the_start_model(built_instance, tiny_model, tmp_path,
                                                                          caplog):
    """No round keeps an example: a result (the model learned nothing), not a failure; the checkpoint is the
    start model, evaluated like any other, and the warning and the round summaries say why."""
    from safetensors.torch import load_file

    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    caplog.set_level("WARNING", logger="sebench.train.selfplay")
    ckpt = train_model(TrainConfig(
        data=built_instance, regime="self-play", out=tmp_path / "sp", model=str(tiny_model), functions=[total],
        rounds=1, selfplay_tasks=1, selfplay_samples=1, selfplay_solves=1, selfplay_backend="fake:I cannot.",
        max_steps=1, batch_size=1, judge_workers=2,
    ))
    assert re.search(r"kept no training example in 1 round.*1 tasks asked, 0 parsed, 0 kept.*start model", caplog.text)
    before, after = load_file(str(tiny_model / "model.safetensors")), load_file(str(ckpt / "model.safetensors"))
    assert before.keys() == after.keys() and all(bool((after[k] == v).all()) for k, v in before.items())
    info = json.loads((ckpt / "train_config.json").read_text())
    assert info["examples"] == 0 and [(r["asked"], r["parsed"], r["examples"]) for r in info["rounds"]] == [(1, 0, 0)]
    assert (ckpt / "train_data.jsonl").read_text() == ""


def test_by_default_the_model_being_trained_writes_and_solves(built_instance, tiny_model, tmp_path):
    from sebench.models import load_causal_lm
    from sebench.train.selfplay import round_backend

    model, tokenizer = load_causal_lm(str(tiny_model), device="cpu")
    model.train()
    cfg = TrainConfig(data=built_instance, regime="self-play", out=tmp_path, model=str(tiny_model))
    backend = round_backend(cfg, model, tokenizer)
    assert backend.model is model and backend.tokenizer is tokenizer and not model.training


def test_self_play_refuses_several_processes(built_instance, tmp_path, monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(SebenchError, match="one process"):
        train_model(TrainConfig(data=built_instance, regime="self-play", out=tmp_path / "sp"))


def test_round_plan_spreads_tasks_over_functions():
    from sebench.train.selfplay import round_plan

    plan = round_plan(["a", "b", "c", "d"], 6, seed=1)
    assert sorted(n for _, n in plan) == [1, 1, 2, 2] and sorted(f for f, _ in plan) == ["a", "b", "c", "d"]
    assert round_plan(["a", "b", "c", "d"], 2, seed=1) == round_plan(["a", "b", "c", "d"], 2, seed=1)
    assert [n for _, n in round_plan(["a", "b", "c", "d"], 2, seed=1)] == [1, 1]


def test_a_task_must_run_on_selfplay_min_cases_inputs(built_instance, tiny_model, tmp_path):
    """The two tasks kept above run on all their 8 inputs: asking for 9 keeps neither."""
    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    train_model(TrainConfig(
        data=built_instance, regime="self-play", out=tmp_path / "sp", model=str(tiny_model), functions=[total],
        rounds=1, selfplay_tasks=5, selfplay_solves=1, selfplay_backend=_script(tmp_path, built_instance),
        selfplay_min_cases=9, max_steps=1, batch_size=1, judge_workers=2,
    ))
    summary = json.loads((tmp_path / "sp/rounds/round-1/summary.json").read_text())
    assert (summary["asked"], summary["parsed"], summary["kept"], summary["examples"]) == (5, 4, 0, 0)
    assert summary["rejected"] == {"static": 1, "few_inputs": 2}
    assert summary["failed_inputs"] == {}  # the two ran on all their 8 inputs: 9 were asked for


def _stop_after_round(monkeypatch, stop_at: int) -> None:
    """A stop (an exception) right after round `stop_at` has played, before its point could be saved."""
    from sebench.train import selfplay

    real = selfplay.play_round

    def play_then_stop(*args, **kwargs):
        played = real(*args, **kwargs)
        if args[-1] == stop_at:
            raise KeyboardInterrupt(f"stopped after round {stop_at}")
        return played

    monkeypatch.setattr(selfplay, "play_round", play_then_stop)


@pytest.mark.parametrize("regime", ["self-play-sft", "self-play-rl"])
def test_a_stopped_self_play_goes_on_after_its_last_finished_round(built_instance, tiny_model, tmp_path,
                                                                   scripted_sampling, monkeypatch, caplog, regime):
    """Stopped in round 3 of 3, the run resumes after round 2 (round 1 and 2 are not played again) and ends
    as an unbroken run does: the same weights, summaries, examples, loss rows and GRPO records, none twice."""
    from safetensors.torch import load_file

    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    backend = _script(tmp_path, built_instance)
    scripted_sampling.answers = {"A shop logs the amounts": json.loads((tmp_path / "script.json").read_text())[5]}
    settings = dict(data=built_instance, regime=regime, model=str(tiny_model), functions=[total], rounds=3,
                    selfplay_tasks=5, selfplay_solves=1, selfplay_backend=backend, max_steps=1, batch_size=2,
                    num_generations=2, judge_workers=2, threads=1)
    unbroken = train_model(TrainConfig(out=tmp_path / "unbroken", **settings))

    with monkeypatch.context() as patch:
        _stop_after_round(patch, 3)
        with pytest.raises(KeyboardInterrupt):
            train_model(TrainConfig(out=tmp_path / "stopped", **settings))
    stopped = tmp_path / "stopped"
    assert (stopped / "trainer" / "selfplay-rounds").is_dir() and not (stopped / "train_config.json").exists()
    round_2 = (stopped / "rounds" / "round-2" / "summary.json").stat().st_mtime_ns
    caplog.set_level("INFO", logger="sebench.train.selfplay")
    resumed = train_model(TrainConfig(out=stopped, **settings))

    assert "self-play: resuming after round 2" in caplog.text
    assert (stopped / "rounds" / "round-2" / "summary.json").stat().st_mtime_ns == round_2  # not played again
    assert not (stopped / "trainer").exists()
    ours, theirs = load_file(str(resumed / "model.safetensors")), load_file(str(unbroken / "model.safetensors"))
    assert all(bool((ours[k] == v).all()) for k, v in theirs.items())
    info, reference = (json.loads((c / "train_config.json").read_text()) for c in (resumed, unbroken))
    drop = ("seconds", "seconds_write")
    assert [{k: v for k, v in r.items() if k not in drop} for r in info["rounds"]] == \
        [{k: v for k, v in r.items() if k not in drop} for r in reference["rounds"]]
    assert info["examples"] == reference["examples"] and info["data_sha256"] == reference["data_sha256"]
    assert [r.split(",")[:2] for r in (resumed / "loss.csv").read_text().splitlines()[1:]] == \
        [["1", "round-1"], ["2", "round-2"], ["3", "round-3"]]
    for name in ("rl_samples.jsonl", "rl_steps.jsonl") if regime == "self-play-rl" else ():
        rows = [json.loads(line) for line in (resumed / name).read_text().splitlines()]
        assert [r["stage"] for r in rows] == [json.loads(line)["stage"] for line in (unbroken / name).read_text().splitlines()]
        assert {r["stage"] for r in rows} == {"round-1", "round-2", "round-3"}


def test_a_round_point_of_other_settings_is_not_used(built_instance, tiny_model, tmp_path, monkeypatch, caplog):
    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    settings = dict(data=built_instance, regime="self-play-sft", model=str(tiny_model), functions=[total], rounds=2,
                    selfplay_tasks=5, selfplay_solves=1, selfplay_backend=_script(tmp_path, built_instance),
                    max_steps=1, batch_size=1, judge_workers=2, out=tmp_path / "sp")
    with monkeypatch.context() as patch:
        _stop_after_round(patch, 2)
        with pytest.raises(KeyboardInterrupt):
            train_model(TrainConfig(**settings))
    caplog.set_level("INFO", logger="sebench.train.selfplay")
    train_model(TrainConfig(**{**settings, "lr": 1e-3}))
    assert "discarded" in caplog.text and "resuming" not in caplog.text
    rows = (tmp_path / "sp" / "loss.csv").read_text().splitlines()[1:]
    assert [r.split(",")[:2] for r in rows] == [["1", "round-1"], ["2", "round-2"]]


def test_the_self_play_regimes_play_their_first_round_on_the_same_written_tasks(built_instance, tiny_model, tmp_path):
    """The start model's first-round answers are cached (train/selfplay.first_round_cache): self-play-rl
    reads the tasks self-play-sft's first round wrote instead of writing them again."""
    from sebench.train.selfplay import first_round_cache

    total = Instance.open(built_instance).mapping()["functions"]["numpy.sum"]
    settings = dict(data=built_instance, model=str(tiny_model), functions=[total], rounds=1, selfplay_tasks=3,
                    selfplay_write_tokens=12, max_steps=1, batch_size=2, num_generations=2, judge_workers=2)
    for regime in ("self-play-sft", "self-play-rl"):  # a random tiny model writes no task: nothing is trained
        train_model(TrainConfig(regime=regime, out=tmp_path / regime, **settings))
    sft, rl = (tmp_path / r / "rounds" / "round-1" for r in ("self-play-sft", "self-play-rl"))
    assert (rl / "proposals.jsonl").read_text() == (sft / "proposals.jsonl").read_text()
    reused = [json.loads((f / "summary.json").read_text())["reused_answers"] for f in (sft, rl)]
    assert reused == [0, 3]
    assert first_round_cache(TrainConfig(regime="self-play-rl", out=tmp_path, **settings)).is_file()
    assert first_round_cache(TrainConfig(regime="self-play-rl", out=tmp_path, selfplay_backend="fake:", **settings)) is None

"""The lifelong schedule (which libraries, steps and tracks), its choice of functions, and
`sebench run --preset lifelong` end to end on a tiny random model with two libraries."""

from __future__ import annotations

import json

import pytest

from sebench.experiment.lifelong import LifelongConfig, library_functions, schedule


def test_the_schedule_shares_the_first_stage_and_chains_the_others():
    plan = schedule(LifelongConfig(libraries=3, designs=["same", "disjoint"], replay=[0, 0.5], at_once=True))
    assert [lib.label for lib in plan.libraries] == ["L1", "same.L2", "same.L3", "disjoint.L2", "disjoint.L3"]
    steps = {s.label: s for s in plan.steps}
    assert steps["after-L1"].start is None and steps["after-L1"].library == "L1"
    assert (steps["same.after-L2"].start, steps["same.after-L3"].start) == ("after-L1", "same.after-L2")
    assert steps["same.after-L3"].mixed == ()  # no replay
    replay = steps["disjoint+replay0.5.after-L3"]
    assert (replay.start, replay.library, replay.mixed, replay.mix_share) == (
        "disjoint+replay0.5.after-L2", "disjoint.L3", ("L1", "disjoint.L2"), 0.5)
    at_once = steps["same.at-once"]
    assert (at_once.start, at_once.library, at_once.mixed, at_once.mix_share) == (None, "L1", ("same.L2", "same.L3"), 1.0)
    order = [s.label for s in plan.steps]
    assert all(order.index(s.start) < order.index(s.label) for s in plan.steps if s.start)
    tracks = {t.name: t for t in plan.tracks}
    assert list(tracks) == ["same", "same, replay 0.5", "same, at once", "disjoint", "disjoint, replay 0.5",
                            "disjoint, at once"]
    assert tracks["disjoint"].rows == (("base", "base"), ("after L1", "after-L1"), ("after L2", "disjoint.after-L2"),
                                       ("after L3", "disjoint.after-L3"))
    assert tracks["same, at once"].rows[-1] == ("all at once", "same.at-once") and tracks["same, at once"].replay is None
    assert plan.evaluated_on("after-L1") == ["L1", "same.L2", "same.L3", "disjoint.L2", "disjoint.L3"]
    assert plan.evaluated_on("same.after-L2") == ["L1", "same.L2", "same.L3"]


def test_same_reuses_the_first_librarys_functions_and_disjoint_leaves_out_earlier_ones_and_relatives():
    pool = [f"f{i}" for i in range(20)]
    related = {"f0": {"f1"}, "f4": {"f5"}}  # aliases, say

    def choose(position, exclude):
        return [f for f in pool if f not in exclude][:3] if position == 1 else [f for f in pool if f not in exclude][:2]

    def relatives(position, functions):
        return set(functions) | {r for f in functions for r in related.get(f, ())}

    chosen = library_functions(3, choose, relatives)  # both designs always: the warm-up leaves them all out
    assert chosen["L1"] == chosen["same.L2"] == chosen["same.L3"] == ["f0", "f1", "f2"]
    assert chosen["disjoint.L2"] == ["f3", "f4"]
    assert chosen["disjoint.L3"] == ["f6", "f7"]  # f5 is a relative of L2's f4


@pytest.mark.parametrize("setting, message", [
    ("lifelong.designs=[\"both\"]", "lifelong.designs"),
    ("lifelong.replay=[1.5]", "lifelong.replay"),
    ("lifelong.libraries=1", "lifelong.libraries must be at least 2"),
    ("train_source=rollouts", "lifelong: train_source must be 'reference'"),
    ("functions=null", "lifelong: set functions"),
])
def test_bad_lifelong_settings_are_refused(setting, message):
    from sebench.errors import SebenchError
    from sebench.experiment.config import parse_setting, resolve

    with pytest.raises(SebenchError, match=message):
        resolve("lifelong", dict([parse_setting(setting)]))


def test_plan_follows_the_lifelong_schedule(tmp_path):
    """--plan counts the schedule's steps: one Closed-SFT a step (a replayed share adds earlier libraries'
    examples), and each model evaluated on the libraries of its tracks."""
    import json

    from sebench.cli import main

    def plan(*flags: str) -> dict:
        out = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        assert main(["run", "--preset", "lifelong", "--out", str(out), "--plan", *flags]) in (0, 1)
        return {s["stage"]: s for s in json.loads((out / "plan.json").read_text())["stages"]}

    default = plan()
    assert [s for s in default if s.endswith(": SFT")] == ["warm-up: SFT", "after-L1: SFT", "same.after-L2: SFT",
                                                           "same.after-L3: SFT", "disjoint.after-L2: SFT",
                                                           "disjoint.after-L3: SFT"]
    assert "same.after-L3/same.L3 closed single_test" in default and "same.after-L3/disjoint.L3 closed single_test" \
        not in default
    replay = plan("--set", "lifelong.designs=[\"same\"]", "--set", "lifelong.replay=[0.5]")
    assert replay["same+replay0.5.after-L3: SFT"]["prompts"] == 2 * default["after-L1: SFT"]["prompts"]  # 1 + 2 x 0.5


# ---- end to end ---------------------------------------------------------------------------------------

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _args(out, model, cache, *extra):
    warmup = {"docs": "compact", "max_examples": 4, "epochs": 1.0, "batch_size": 2, "cache_dir": str(cache)}
    return ["run", "--preset", "lifelong", "--out", str(out), "--model", f"hf:{model}", "--seeds", "0",
            "--set", "lifelong.libraries=2", "--functions", "2", "--set", "max_train=4", "--set", "max_single=3",
            "--set", "build_train=60", "--max-tokens", "8", "--set", "train.max_steps=1", "--set", "train.grad_accum=1",
            "--set", "rollout.concurrency=2", "--set", "judge.workers=1", "--set", "warmup=" + json.dumps(warmup), *extra]


def _records(run):
    return {p.name: json.loads(p.read_text()) for p in (run / "stages").glob("*.json")}


def _packages(checkpoint):
    """The packages named by the closed prompts of a checkpoint's training examples."""
    rows = [json.loads(line) for line in (checkpoint / "train_data.jsonl").read_text().splitlines()]
    return [row["prompt"][-1]["content"].split("package `", 1)[1].split("`", 1)[0] for row in rows]


@pytest.mark.slow  # about 100 s: make test-slow
def test_two_libraries_end_to_end_with_replay_and_the_at_once_reference(tmp_path, tiny_model, monkeypatch, capsys):
    from sebench.cli import main
    from sebench.instance import Instance

    monkeypatch.setenv("SEBENCH_THREADS", "1")
    out, cache = tmp_path / "run", tmp_path / "cache"
    assert main(_args(out, tiny_model, cache)) == 0
    run = out / "seed-0"
    first = _records(run)
    assert {"train--after-L1.json", "train--same.after-L2.json", "train--disjoint.after-L2.json"} <= set(first)

    # later commands add replay and the at-once reference, for one design and then both: only their stages
    # run (the warm-up leaves out every design's functions, so its base stays the same)
    more = ("--set", "lifelong.replay=[0, 0.5]", "--set", "lifelong.at_once=true")
    assert main(_args(out, tiny_model, cache, *more, "--set", 'lifelong.designs=["same"]')) == 0
    assert "train--same+replay0.5.after-L2.json" in _records(run) and "train--disjoint.at-once.json" not in _records(run)
    assert main(_args(out, tiny_model, cache, *more)) == 0
    second = _records(run)
    assert all(second[name]["attempts"] == 1 and second[name]["finished"] == record["finished"]
               for name, record in first.items() if name != "report.json")
    assert {"train--same+replay0.5.after-L2.json", "train--disjoint.at-once.json"} <= set(second)
    assert second["train--same.after-L2.json"]["config"]["model"]["after"] == "after-L1"

    schedule = json.loads((run / "lifelong.json").read_text())
    libs = schedule["libraries"]
    assert libs["same.L2"]["functions"] == libs["L1"]["functions"]
    assert not set(libs["disjoint.L2"]["functions"]) & set(libs["L1"]["functions"])
    packages = {label: lib["package"] for label, lib in libs.items()}
    assert packages["L1"] != packages["same.L2"] and packages["same.L2"] == packages["disjoint.L2"]
    assert schedule["base_library"]["package"] not in packages.values()

    # training data: each library's examples prompted with its own package; replay mixes in half of L1's
    l1_train = len([t for t in Instance.open(run / "data/L1").tasks("train") if t.is_valid])
    assert set(_packages(run / "train/same.after-L2/checkpoint")) == {packages["same.L2"]}
    mixed = _packages(run / "train/same+replay0.5.after-L2/checkpoint")
    assert mixed.count(packages["L1"]) == max(1, round(0.5 * l1_train))
    at_once = _packages(run / "train/disjoint.at-once/checkpoint")
    assert at_once.count(packages["L1"]) == l1_train and packages["disjoint.L2"] in at_once

    report = json.loads((out / "report/report.json").read_text())
    tracks = {t["name"]: t for t in report["splits"]["single_test"]["tracks"]}
    assert set(tracks) == {"same", "same, replay 0.5", "same, at once", "disjoint", "disjoint, replay 0.5",
                           "disjoint, at once"}
    assert tracks["same"]["rows"] == ["base", "after L1", "after L2"] and tracks["same"]["libraries"] == ["L1", "L2"]
    assert all(n > 0 for t in tracks.values() for row in t["n"] for n in row)
    assert set(tracks["disjoint"]["measures"]) >= {"backward_transfer", "forward_transfer", "mean_forgetting"}
    assert set(tracks["same"]["mixup"]["L2"]["by"]) == {"L1", "warm-up library"}
    assert (out / "report" / report["figures"]["single_test"]).is_file()
    assert "| after \\ on | L1 | L2 |" in capsys.readouterr().out

    # pooled: the same run twice is every cell's samples twice, and the same accuracies
    from sebench.report.continual_report import build_continual_report

    build_continual_report([run, run], tmp_path / "pooled", plots_enabled=False)
    pooled = json.loads((tmp_path / "pooled/report.json").read_text())["splits"]["single_test"]["tracks"]
    assert [[2 * n for n in row] for row in tracks["same"]["n"]] == pooled[0]["n"]
    assert pooled[0]["accuracy"] == tracks["same"]["accuracy"]

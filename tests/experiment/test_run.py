"""`sebench run` end to end on a tiny random model: killed at several moments and restarted, it ends
with the same report as an uninterrupted run; settings changed under a finished stage are refused."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from sebench.cli import main

TINY_SETTINGS = [
    "--functions", "3", "--set", "max_train=8", "--set", "max_single=6", "--set", "max_multiple=2",
    "--max-tokens", "12", "--set", "rollout.concurrency=2", "--regimes", "closed-sft", "--set", "train.max_steps=2",
    "--set", "train.batch_size=4", "--set", 'trained_modes=["closed"]', "--set", "judge.workers=1",
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _args(out: Path, instance: Path, model: Path) -> list[str]:
    return ["run", "--out", str(out), "--instance", str(instance), "--model", f"hf:{model}", *TINY_SETTINGS]


def _report(out: Path) -> dict:
    data = json.loads((out / "report/report.json").read_text())
    return {"main_table": [{k: v for k, v in row.items() if k != "runs"} for row in data["main_table"]],
            "functions": data["functions"], "losses": sorted(data["loss_curves"])}


def _rollout_keys(out: Path) -> dict:
    keys = {}
    for path in sorted(out.glob("evals/*/*/*/rollouts.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        keys[path.relative_to(out).as_posix()] = sorted((r["task_id"], r["sample_idx"]) for r in rows)
    return keys


# Moments to kill at: when each of these paths first exists (a stage has just started, or a rollout file
# holds its first records), so kills land during model loading, rollouts, judging, training and report.
KILL_WHEN = [
    "stages/select.json",
    "stages/rollout--untrained--closed--single_test.json",
    "evals/untrained/closed/single_test/rollouts.jsonl",
    "stages/train--closed-sft.json",
    "stages/judge--closed-sft--closed--single_test.json",
    "stages/report.json",
]


# One torch thread: a tiny model gains nothing from more, and spinning threads crawl on a busy machine.
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def _run_until(args: list[str], out: Path, marker: str, timeout: float = 240) -> bool:
    """Starts `sebench run` in its own process group; SIGKILLs the group once `marker` exists.
    Returns True if it was killed, False if the run finished first; a marker that an earlier run already
    reached (a fast stage can pass two moments between polls) starts no run and returns False."""
    if (out / marker).exists():
        return False
    proc = subprocess.Popen([sys.executable, "-m", "sebench.cli", *args], start_new_session=True, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if (out / marker).exists():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.01)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"sebench run did not reach {marker} in {timeout} s")
    assert proc.returncode == 0, proc.stderr.read()
    return False


@pytest.mark.slow  # a whole study killed and restarted (about 60 s); resuming is also covered by the rollout, state and training tests
@pytest.mark.timeout(900)
def test_killed_and_restarted_run_gives_the_same_report(tmp_path, built_instance, tiny_model):
    straight = tmp_path / "straight"
    assert not _run_until(_args(straight, built_instance, tiny_model), straight, "never-appears")
    manifest = json.loads((straight / "manifest.json").read_text())
    assert manifest["finished"] and manifest["seed"] == 0 and manifest["versions"]["torch"]
    assert {"select", "train:closed-sft", "report"} <= set(manifest["stages"])
    assert all(s["status"] == "done" for s in manifest["stages"].values())
    stages = manifest["stages"]  # the threads torch ran on, per stage; none for stages without torch
    assert stages["train:closed-sft"]["threads"]["seconds"] and stages["select"]["threads"] is None
    rollout_threads = stages["rollout:untrained:closed:single_test"]["threads"]
    import torch

    if torch.cuda.is_available():  # answers come from the GPU: no CPU threads to record
        assert rollout_threads is None
    else:
        assert rollout_threads["cores"] >= 1

    killed = tmp_path / "killed"
    kills = 0
    for marker in KILL_WHEN:
        kills += _run_until(_args(killed, built_instance, tiny_model), killed, marker)
    assert kills >= 4  # most moments are reached before the run ends
    _run_until(_args(killed, built_instance, tiny_model), killed, "never-appears")
    assert _report(killed) == _report(straight)
    assert _rollout_keys(killed) == _rollout_keys(straight)  # exactly one record per (task, sample)
    commands = json.loads((killed / "manifest.json").read_text())["commands"]
    assert len(commands) == kills + 1


def test_changed_settings_are_refused_unless_overwrite(tmp_path, built_instance, capsys):
    out = tmp_path / "run"
    base = ["run", "--out", str(out), "--instance", str(built_instance), "--model", "fake:", "--regimes", "--functions", "0",
            "--set", "splits=[\"single_test\"]", "--set", "untrained_modes=[\"closed\"]", "--set", "judge.workers=1"]
    assert main(base) == 0
    first = json.loads((out / "report/report.json").read_text())["main_table"]
    assert [(r["regime"], r["mode"], r["split"]) for r in first] == [("untrained", "closed", "single_test")]
    assert first[0]["verdicts"]  # the fake answer is judged, whatever it scores
    capsys.readouterr()
    assert main([*base, "--max-tokens", "99"]) == 2
    err = capsys.readouterr().err
    assert "rollout:untrained:closed:single_test" in err and "max_tokens: 128 -> 99" in err and "--overwrite" in err
    assert main([*base, "--max-tokens", "99", "--overwrite"]) == 0
    record = json.loads((out / "stages/rollout--untrained--closed--single_test.json").read_text())
    assert record["config"]["max_tokens"] == 99 and record["status"] == "done"


def test_memory_mode_remembers_the_untrained_models_judged_open_book_training_answers(tmp_path, built_instance):
    from sebench.instance import Instance
    from sebench.rollout.prompts import format_answer

    train = [t for t in Instance.open(built_instance).tasks("train") if t.is_valid]
    script = tmp_path / "answers.json"  # a model that answers every training task right, in turn
    script.write_text(json.dumps([format_answer(t.reference_solution) for t in train]))
    out = tmp_path / "run"
    assert main(["run", "--out", str(out), "--instance", str(built_instance), "--model", f"fake:file={script}",
                 "--regimes", "--functions", "0", "--set", "splits=[\"single_test\"]",
                 "--set", "untrained_modes=[\"memory\"]", "--set", "source_samples=1", "--set", "rollout.concurrency=1",
                 "--set", "judge.workers=1"]) == 0
    memory = [json.loads(line) for line in (out / "evals/untrained/open/train/verdicts.jsonl").read_text().splitlines()]
    assert len(memory) == len(train) and sum(v["verdict"] == "correct" for v in memory) > len(train) // 2
    rows = [json.loads(line) for line in (out / "evals/untrained/memory/single_test/rollouts.jsonl").read_text().splitlines()]
    assert rows and all("Solved examples" in r["prompt"][-1]["content"] for r in rows)
    assert all("Documentation of" not in r["prompt"][-1]["content"] for r in rows)
    record = json.loads((out / "stages/rollout--untrained--memory--single_test.json").read_text())
    assert len(record["config"]["memory"]) == 64  # the memory's verdicts are part of the stage's settings


def test_numpy_mode_asks_and_judges_the_same_tasks_with_real_numpy(tmp_path, built_instance):
    """Specificity: a model that answers every test task with real NumPy is correct in the numpy mode and
    forbidden closed-book, on the same tasks; the report shows both rows with their intervals."""
    from numpy_answers import numpy_solution

    from sebench.instance import Instance
    from sebench.rollout.prompts import format_answer

    instance = Instance.open(built_instance)
    answers = {t.query.strip(): format_answer(code) for t in instance.tasks("single_test")
               if (code := numpy_solution(t, instance))}
    script = tmp_path / "answers.json"
    script.write_text(json.dumps({"answers": answers}))
    out = tmp_path / "run"
    assert main(["run", "--out", str(out), "--instance", str(built_instance), "--model", f"fake:file={script}",
                 "--regimes", "--functions", "0", "--set", "splits=[\"single_test\"]",
                 "--set", "untrained_modes=[\"closed\", \"numpy\"]", "--set", "rollout.concurrency=1",
                 "--set", "judge.workers=1"]) == 0

    def verdicts(mode: str) -> dict:
        path = out / f"evals/untrained/{mode}/single_test/verdicts.jsonl"
        return {(v := json.loads(line))["task_id"]: v["verdict"] for line in path.read_text().splitlines()}

    numpy_mode, closed = verdicts("numpy"), verdicts("closed")
    answered = [t.task_id for t in instance.tasks("single_test") if t.query.strip() in answers and t.is_valid]
    assert answered and all(numpy_mode[t] == "correct" for t in answered)
    assert all(closed[t] == "forbidden_import" for t in answered)
    rows = {r["mode"]: r for r in json.loads((out / "report/report.json").read_text())["main_table"]}
    assert rows["numpy"]["accuracy"] > rows["closed"]["accuracy"] == 0.0
    assert rows["numpy"]["ci95"][0] < rows["numpy"]["accuracy"] <= rows["numpy"]["ci95"][1]


@pytest.mark.slow  # about a minute on two shared cores: a build and a training
def test_random_ft_control_trains_closed_sft_on_another_seeds_package(tmp_path, built_instance, tiny_model):
    """closed-sft-random: Closed-SFT's settings on seed + 1000's package (as many training tasks as the study's),
    evaluated on this study's test tasks."""
    from sebench.experiment.state import file_hash
    from sebench.instance import Instance

    out = tmp_path / "run"
    settings = [*TINY_SETTINGS, "--regimes", "closed-sft-random", "--set", 'splits=["single_test"]']
    assert main(["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny_model}",
                 *settings]) == 0
    control = Instance.open(out / "random-instance")
    assert control.manifest()["seed"] == 1000
    assert control.manifest()["package"] != Instance.open(built_instance).manifest()["package"]
    assert len(control.tasks("train")) == len(Instance.open(out / "data").tasks("train"))
    record = json.loads((out / "stages/train--closed-sft-random.json").read_text())["config"]
    assert record["data"] == file_hash(out / "random-instance/manifest.json")
    assert (record["regime"], record["max_steps"], record["batch_size"]) == ("closed-sft", 2, 4)
    path = out / "evals/closed-sft-random/closed/single_test/verdicts.jsonl"
    evaluated = sorted(json.loads(line)["task_id"] for line in path.read_text().splitlines())
    assert evaluated == sorted(t.task_id for t in Instance.open(out / "data").tasks("single_test"))
    rows = {r["regime"]: r for r in json.loads((out / "report/report.json").read_text())["main_table"]}
    assert rows["closed-sft-random"]["vs_untrained"] is not None


def test_name_recall_scores_each_model_on_the_studied_functions(tmp_path, built_instance, tiny_model):
    """--name-recall: the untrained and the trained model each rank their studied functions' names among all
    the package's names; the report shows both with Δ, and the trained checkpoint's file is what it scores."""
    from sebench.instance import Instance
    from sebench.models import load_causal_lm
    from sebench.rollout.name_recall import name_recall

    out = tmp_path / "run"
    assert main([*_args(out, built_instance, tiny_model), "--name-recall", "--set", 'splits=["single_test"]']) == 0
    data = Instance.open(out / "data")
    studied = data.manifest()["subset"]["functions"]
    trained = json.loads((out / "evals/closed-sft/name_recall.json").read_text())["functions"]
    untrained = json.loads((out / "evals/untrained/name_recall.json").read_text())["functions"]
    assert [r["name"] for r in trained] == [r["name"] for r in untrained] == sorted(studied, key=[
        d.name for d in data.api_docs()].index)
    assert {r["candidates"] for r in trained} == {len(data.api_docs())}
    docs = data.api_docs()
    model, tokenizer = load_causal_lm(str(out / "train/closed-sft/checkpoint"), device="cpu")
    again = name_recall(model, tokenizer, docs[0].name.split(".")[0], docs, asked=studied[:1])
    assert again[0].rank == next(r["rank"] for r in trained if r["name"] == studied[0])
    table = json.loads((out / "report/report.json").read_text())["name_recall"]
    rows = {r["regime"]: r for r in table["rows"]}
    assert rows["untrained"]["functions"] == rows["closed-sft"]["functions"] == len(studied)
    assert rows["closed-sft"]["top1"]["vs_untrained"]["pairs"] == len(studied)
    assert "## Name recall" in (out / "report/report.md").read_text()


@pytest.mark.slow  # about a minute on two shared cores: a build, rollouts and a training
def test_random_ft_control_trains_on_the_bases_answers_there_when_the_study_trains_on_rollouts(
        tmp_path, built_instance, tiny_model):
    """--train-source rollouts: closed-sft-random's SFT data is the base's judged open-book answers on the other
    package's training tasks (as closed-sft's are on this one), kept out of the report's tables."""
    from sebench.instance import Instance

    out = tmp_path / "run"
    settings = [*TINY_SETTINGS, "--regimes", "closed-sft-random", "--set", 'splits=["single_test"]',
                "--train-source", "rollouts", "--set", "source_samples=1"]
    # the tiny random model answers nothing right, so the training refuses its data: the run says so and goes on
    assert main(["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny_model}",
                 *settings]) == 1
    why = json.loads((out / "manifest.json").read_text())["not_trained"]["closed-sft-random"]
    assert "no rollout judged correct on the selected training tasks" in why
    answers = out / "random-instance-rollouts/rollouts.jsonl"
    asked = sorted(json.loads(line)["task_id"] for line in answers.read_text().splitlines())
    assert asked == sorted(t.task_id for t in Instance.open(out / "random-instance").tasks("train"))
    assert (out / "random-instance-rollouts/verdicts.jsonl").is_file()
    shown = sorted(json.loads(line)["task_id"] for line in (out / "train/closed-sft-random/view/answers/rollouts.jsonl")
                   .read_text().splitlines())
    assert shown == asked  # the training's view holds the base's answers on the other package, not on this one's
    regimes = {r["regime"] for r in json.loads((out / "report/report.json").read_text())["main_table"]}
    assert regimes == {"untrained"}

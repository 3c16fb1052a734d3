"""`sebench run --library more-itertools` end to end on a tiny random model: the quick study (untrained
closed- and open-book, Closed-SFT) and the lifelong cross design (NumPy's package then more-itertools', and
the reverse, with transfer), each from one command."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

from sebench.cli import main
from sebench.instance import Instance

ORIGINAL_WORDS = ("more_itertools", "more-itertools", "numpy")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _prompts(path) -> list[str]:
    return ["\n".join(m["content"] for m in json.loads(line)["prompt"]) for line in path.read_text().splitlines()]


@pytest.mark.slow  # about 60 s: make test-slow
def test_the_quick_study_of_another_library(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setenv("SEBENCH_THREADS", "1")
    out = tmp_path / "run"
    args = ["run", "--library", "more-itertools", "--out", str(out), "--model", f"hf:{tiny_model}",
            "--functions", "3", "--set", "max_train=8", "--set", "max_single=6", "--set", "max_multiple=2",
            "--max-tokens", "12", "--set", "rollout.concurrency=2", "--set", "train.max_steps=2",
            "--set", "train.batch_size=4", "--set", "judge.workers=1", "--untrained-modes", "closed,open"]
    assert main(args) == 0
    data = Instance.open(out / "data")
    assert data.library == "more-itertools" and Instance.open(out / "instance").library == "more-itertools"
    assert json.loads((out / "manifest.json").read_text())["config"]["library"] == "more-itertools"
    rows = json.loads((out / "report/report.json").read_text())["main_table"]
    assert {(r["regime"], r["mode"], r["split"]) for r in rows} == {
        (regime, mode, split) for regime, mode in (("untrained", "closed"), ("untrained", "open"),
                                                   ("closed-sft", "closed"))
        for split in ("single_test", "multiple_test")}
    assert all(r["n"] > 0 for r in rows)
    package = data.package_name
    for mode in ("closed", "open"):
        for prompt in _prompts(out / f"evals/untrained/{mode}/single_test/rollouts.jsonl"):
            assert f"`{package}`" in prompt and not any(w in prompt.lower() for w in ORIGINAL_WORDS)
    trained = [json.loads(line) for line in (out / "train/closed-sft/checkpoint/train_data.jsonl").read_text().splitlines()]
    assert trained and all(f"package `{package}`" in row["prompt"][-1]["content"] for row in trained)


@pytest.mark.slow  # about 3 min: make test-slow
def test_lifelong_across_libraries(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setenv("SEBENCH_THREADS", "1")
    out = tmp_path / "run"
    warmup = {"docs": "compact", "max_examples": 4, "epochs": 1.0, "batch_size": 2, "cache_dir": str(tmp_path / "cache")}
    args = ["run", "--preset", "lifelong", "--out", str(out), "--model", f"hf:{tiny_model}", "--seeds", "0",
            "--set", "lifelong.libraries=2", "--functions", "2", "--set", "max_train=4", "--set", "max_single=3",
            "--set", "build_train=60", "--max-tokens", "8", "--set", "train.max_steps=1", "--set", "train.grad_accum=1",
            "--set", "rollout.concurrency=2", "--set", "judge.workers=1", "--set", "warmup=" + json.dumps(warmup),
            "--set", "lifelong.cross=more-itertools", "--set", 'lifelong.designs=["same"]']
    assert main(args) == 0
    run = out / "seed-0"
    schedule = json.loads((run / "lifelong.json").read_text())
    libs = schedule["libraries"]
    assert libs["cross.L2"]["library"] == "more-itertools" and "library" not in libs["L1"]
    assert Instance.open(run / "data/cross.L2").library == "more-itertools"
    assert all(f.startswith("more_itertools.") for f in libs["cross.L2"]["functions"])
    # the reverse order learns more-itertools' package from the base, then NumPy's
    records = {p.name: json.loads(p.read_text()) for p in (run / "stages").glob("train--*.json")}
    base = records["train--after-L1.json"]["config"]["model"]  # the warmed-up base
    assert records["train--cross.reversed.after-L2.json"]["config"]["model"] == base
    assert records["train--cross.reversed.after-L1.json"]["config"]["model"]["after"] == "cross.reversed.after-L2"
    report = json.loads((out / "report/report.json").read_text())["splits"]["single_test"]
    tracks = {t["name"]: t for t in report["tracks"]}
    assert set(tracks) == {"same", "cross", "cross, reversed"}
    assert tracks["cross"]["libraries"] == ["L1", "L2 (more-itertools)"]
    assert tracks["cross, reversed"]["libraries"] == ["L2 (more-itertools)", "L1"]
    assert all(n > 0 for t in tracks.values() for row in t["n"] for n in row)
    transfer = {(r["source"], r["target"], r["mode"]) for r in report["transfer"]}
    assert transfer == {("L1", "L2 (more-itertools)", m) for m in ("closed", "open")} | {
        ("L2 (more-itertools)", "L1", m) for m in ("closed", "open")}
    assert all(r["base"]["n"] > 0 and r["trained"]["n"] > 0 for r in report["transfer"])


@pytest.mark.slow  # about 2 min: make test-slow
def test_warm_up_memory_name_recall_and_the_random_control_on_another_library(tmp_path, tiny_model, monkeypatch):
    """The parts of the cpu and paper-mini presets that read the instance beyond its tasks: the warm-up on the
    library's other functions, the memory baseline, Open-SFT, name recall, and the Random-FT control (another
    seed's package of the same library)."""
    monkeypatch.setenv("SEBENCH_THREADS", "1")
    out = tmp_path / "run"
    warmup = {"docs": "compact", "max_examples": 4, "epochs": 1.0, "batch_size": 2, "cache_dir": str(tmp_path / "cache")}
    args = ["run", "--library", "more-itertools", "--out", str(out), "--model", f"hf:{tiny_model}",
            "--functions", "3", "--set", "max_train=8", "--set", "max_single=6", "--set", "max_multiple=2",
            "--max-tokens", "12", "--set", "rollout.concurrency=2", "--set", "train.max_steps=2",
            "--set", "train.batch_size=4", "--set", "judge.workers=1", "--set", "build_train=80",
            "--untrained-modes", "closed,open,memory", "--name-recall", "--set", "warmup=" + json.dumps(warmup),
            "--regimes", "closed-sft", "open-sft", "closed-sft-random"]
    assert main(args) == 0
    assert Instance.open(out / "random-instance").library == "more-itertools"
    report = json.loads((out / "report/report.json").read_text())
    rows = {(r["regime"], r["mode"], r["split"]) for r in report["main_table"]}
    assert {("untrained", "memory", "single_test"), ("open-sft", "closed", "single_test"),
            ("closed-sft-random", "closed", "single_test")} <= rows
    assert report["name_recall"]["candidates"] == len(Instance.open(out / "data").api_docs())
    assert {r["regime"] for r in report["name_recall"]["rows"]} >= {"untrained", "closed-sft", "closed-sft-random"}

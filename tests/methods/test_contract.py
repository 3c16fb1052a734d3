"""The method contract from outside the package: methods from a file, an entry point and an agent run through
`sebench run` beside the built-ins, with their cost; a method cannot read the test splits, the mapping or the
evaluations, by any path; the judge it is given refuses test task ids."""

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from sebench.cli import main
from sebench.instance import Instance
from sebench.methods import Cost, MethodError, MethodJob, resolve, run_method
from sebench.methods.services import ViewJudge
from sebench.methods.view import write_view

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = ["--functions", "3", "--set", "max_train=8", "--set", "max_single=6", "--set", "max_multiple=2",
         "--max-tokens", "12", "--set", "rollout.concurrency=2", "--set", 'trained_modes=["closed"]',
         "--set", 'untrained_modes=["closed"]', "--set", "judge.workers=1", "--set", 'splits=["single_test"]']


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture()
def entry_point(tmp_path, monkeypatch):
    """An installed method (entry point `echo-start` of group sebench.methods) in a folder on the path (not one
    that holds the run: a method's process may not read that)."""
    tmp_path = tmp_path / "site"
    tmp_path.mkdir()
    (tmp_path / "my_methods.py").write_text(textwrap.dedent("""
        from pathlib import Path
        from sebench.methods import Checkpoint

        def keep_start(ctx, note="none"):
            (ctx.workdir / "note.txt").write_text(note)
            return Checkpoint(Path(ctx.start_model))
    """))
    info = tmp_path / "my_methods-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-methods\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[sebench.methods]\necho-start = my_methods:keep_start\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    return "echo-start"


@pytest.mark.timeout(900)
def test_file_entry_point_and_agent_methods_run_beside_the_built_ins(tmp_path, built_instance, tiny_model, entry_point):
    out = tmp_path / "run"
    trainer, agent = f"{EXAMPLES}/reference_sft.py:ReferenceSFT", f"{EXAMPLES}/notes_agent.py:TakeNotes"
    argv = ["run", "--out", str(out), "--instance", str(built_instance), "--model", f"hf:{tiny_model}", *SMALL,
            "--regimes", trainer, agent, entry_point, "base", "-M", "ReferenceSFT.steps=2",
            "--set", "methods.echo-start.note=hello"]
    assert main(argv) == 0
    report = json.loads((out / "report/report.json").read_text())
    rows = {row["regime"]: row for row in report["main_table"]}
    assert {"ReferenceSFT", "TakeNotes", "echo-start", "untrained"} <= set(rows)
    for label in ("ReferenceSFT", "TakeNotes", "echo-start"):
        assert rows[label]["vs_untrained"] is not None  # its difference from the untrained model, with pairs
        record = json.loads((out / "train" / label / "method.json").read_text())
        assert record["cost"]["wall_seconds"] > 0 and record["view_sha256"] and record["source_sha256"]
    sft = json.loads((out / "train/ReferenceSFT/method.json").read_text())
    assert sft["origin"] == "file" and sft["returns"] == "checkpoint" and sft["args"] == {"steps": 2}
    assert sft["cost"]["tokens_trained"] > 0 and sft["cost"]["judge_calls"] >= 1  # it judged its dev tasks
    assert _weights(Path(sft["result"]["path"])) != _weights(tiny_model)  # it trained
    notes = json.loads((out / "train/TakeNotes/method.json").read_text())
    assert notes["returns"] == "agent" and (out / "train/TakeNotes/agent/notes.json").is_file()
    rollouts = (out / "evals/TakeNotes/closed/single_test/rollouts.jsonl").read_text().splitlines()
    assert len(rollouts) == len(Instance(out / "data").tasks("single_test"))
    ep = json.loads((out / "train/echo-start/method.json").read_text())
    assert ep["origin"] == "entry point" and (out / "train/echo-start/work/note.txt").read_text() == "hello"
    assert "methods" in report and {m["label"] for m in report["methods"]} >= {"ReferenceSFT", "TakeNotes"}

    # a method's source changed since its stage ran: a user's method is trained again only with --overwrite,
    # a built-in's (sebench's own code) goes on as a regime does
    for label in ("base", "echo-start"):
        stage = out / "stages" / f"train--{label}.json"
        record = json.loads(stage.read_text())
        record["config"]["source_sha256"] = "0" * 64
        stage.write_text(json.dumps(record))
    main(argv)
    report = json.loads((out / "report/report.json").read_text())
    assert "base" in {row["regime"] for row in report["main_table"]}
    assert "echo-start" in report["not_trained"] and "source_sha256" in report["not_trained"]["echo-start"]


def _weights(folder: Path) -> bytes:
    return next(folder.glob("*.safetensors")).read_bytes()


PEEK = """
import os, subprocess
from pathlib import Path
from sebench.methods import Checkpoint

def peek(ctx, how, target=""):
    if how == "open":
        Path(target).read_text()
    elif how == "built":  # the run's evaluations, by a path made from the view's place
        os.listdir(ctx.view.parents[2] / "evals")
    elif how == "cat":  # around Python: only the operating system's layer holds
        got = subprocess.run(["cat", target], capture_output=True, text=True).stdout
        (ctx.workdir / "got.txt").write_text(got)
    elif how == "judge":
        ctx.judge([(target, "print(1)")])
    return Checkpoint(Path(ctx.start_model))
"""


@pytest.fixture()
def peek_job(tmp_path, built_instance):
    (tmp_path / "peek.py").write_text(PEEK)
    run = tmp_path / "run"
    (run / "evals" / "untrained").mkdir(parents=True)
    instance = Instance.open(built_instance)

    def job(how: str, target: str = "") -> MethodJob:
        return MethodJob(ref=resolve(f"{tmp_path}/peek.py:peek"), args={"how": how, "target": target},
                         data=built_instance, folder=run / "train" / how, start_model="fake:", seed=0,
                         hidden=(run, instance.root / "datasets" / "test", instance.root / "private"))

    return job, instance


@pytest.mark.parametrize("what", ["single_test", "mapping"])
def test_a_method_that_opens_a_test_split_or_the_mapping_fails_with_one_line_and_the_attempt_is_recorded(peek_job, what):
    job, instance = peek_job
    target = instance.split_path("single_test") if what == "single_test" else instance.mapping_path
    with pytest.raises(Exception) as failed:
        run_method(job("open", str(target)))
    assert "outside what a method may read" in str(failed.value) and "\n" not in str(failed.value)
    record = json.loads((job("open").folder / "method.json").read_text())
    assert [a["path"] for a in record["refused_reads"]] == [str(target)]
    assert target.read_text()  # nothing lost


def test_a_method_cannot_list_the_runs_evaluations_by_a_path_it_builds(peek_job):
    job, _ = peek_job
    with pytest.raises(Exception, match="outside what a method may read"):
        run_method(job("built"))


@pytest.mark.skipif(sys.platform != "linux", reason="the operating system's layer is Linux's")
def test_reading_around_python_gets_nothing_where_the_os_layer_is_active(peek_job):
    from sebench.methods import isolation_layer

    if isolation_layer() == "audit-hook":
        pytest.skip("neither bubblewrap nor landlock on this machine")
    job, instance = peek_job
    record = run_method(job("cat", str(instance.mapping_path)))
    assert record["returns"] == "checkpoint"
    assert (job("cat").workdir / "got.txt").read_text() == ""


def test_the_judge_refuses_a_test_task_id(peek_job, tmp_path):
    job, instance = peek_job
    test_id = instance.tasks("single_test")[0].task_id
    with pytest.raises(Exception, match="training and dev tasks only"):
        run_method(job("judge", test_id))
    view = tmp_path / "view"
    write_view(instance.root, view, seed=0)
    judge = ViewJudge(view, Cost())
    with pytest.raises(MethodError):
        judge([(test_id, "x")])
    train = instance.tasks("train")[0]
    feedback = judge([(train.task_id, f"```python\n{train.reference_solution}\n```")])
    judge.close()
    assert feedback[0].verdict == "correct" and feedback[0].reward == 1.0
    assert not (view / "datasets" / "test").exists() and not (view / "private").exists()
    mapping = json.loads(instance.mapping_path.read_text())["functions"]
    text = "\n".join(p.read_text(errors="ignore") for p in view.rglob("*") if p.is_file() and p.suffix != ".pyc")
    assert not any(f'"{numpy_name}"' in text for numpy_name in mapping)  # no mapping entry in the view


class _Recorder:
    """A sampler that answers with the last user message and keeps what it was asked."""

    def __init__(self):
        self.asked = []

    def sample(self, prompts, model=None, n=1, temperature=0.0, max_tokens=256):
        self.asked += [list(p) for p in prompts]
        return [[p[-1]["content"]] for p in prompts]


def test_the_memory_agent_asks_what_the_memory_mode_asks(built_instance, tmp_path):
    from sebench.methods import Prompt
    from sebench.methods.builtins import Memory, MemoryAgent
    from sebench.records import Rollout, Verdict, write_records
    from sebench.rollout import ExperienceMemory, PromptBuilder

    instance = Instance.open(built_instance)
    train, tests = instance.tasks("train")[:12], instance.tasks("single_test")[:5]
    rollouts = tmp_path / "rollouts.jsonl"
    write_records(rollouts, [Rollout(t.task_id, 0, "open", "m", [], f"```python\n{t.reference_solution}\n```", "",
                                     "stop", {}, 0.0) for t in train])
    write_records(rollouts.with_name("verdicts.jsonl"),
                  [Verdict(t.task_id, 0, "correct" if i % 3 else "wrong_answer", 1, 1, mode="open")
                   for i, t in enumerate(train)])
    ctx = type("Ctx", (), {"answers": rollouts, "train_tasks": instance.tasks("train"), "start_model": "m",
                           "package": instance.package_name})()
    saved = tmp_path / "state"
    saved.mkdir()
    Memory(k=3).run(ctx).save(saved)
    recorder = _Recorder()
    agent = MemoryAgent.load(saved, recorder)
    closed = PromptBuilder(instance, "closed")
    agent.answer_all([Prompt(t.query, closed.messages(t)) for t in tests])
    memory = ExperienceMemory.from_files(instance.tasks("train"), rollouts)
    expected = [memory.messages(closed.messages(t), t, instance.package_name, 3) for t in tests]
    assert recorder.asked == expected
    assert any(m[-1]["content"] != closed.messages(t)[-1]["content"] for m, t in zip(expected, tests))  # it recalls


def test_a_readable_folder_that_holds_the_run_is_carved_around_it(tmp_path):
    from sebench.methods.isolation import Fence

    run = tmp_path / "run"
    (run / "train" / "start").mkdir(parents=True)
    (run / "evals").mkdir()
    (tmp_path / "elsewhere").mkdir()
    fence = Fence(read=(tmp_path, run / "train" / "start"), write=(run / "train" / "me",), hidden=(run,))
    assert not fence.may_read(run / "evals" / "x") and not fence.may_read(run)
    assert fence.may_read(run / "train" / "start" / "config.json") and fence.may_read(run / "train" / "me" / "f")
    assert fence.may_read(tmp_path / "elsewhere") and not fence.may_write(tmp_path / "elsewhere")
    assert fence.may_write(run / "train" / "me" / "f") and not fence.may_write(run / "train" / "start" / "x")
    assert run not in fence.read_roots() and tmp_path not in fence.read_roots()  # carved around the run
    assert fence.read_roots() == sorted({run / "train" / "start"} | {p for p in tmp_path.iterdir() if p != run})


def test_a_grpo_regimes_cost_counts_its_samples_and_their_completion_tokens(tmp_path):
    from sebench.methods.builtins import grpo_samples

    assert grpo_samples(tmp_path) == (0, 0)  # no GRPO stage
    rows = [{"completion_ids": list(range(n)), "reward": 1.0} for n in (3, 5, 0)]
    (tmp_path / "rl_samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    assert grpo_samples(tmp_path) == (3, 8)

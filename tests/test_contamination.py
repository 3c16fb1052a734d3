"""`sebench contamination`: a fake model that knows only the public names scores higher on the original."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "tasks"))

from released import norm_row, released_row, write_api_doc, write_jsonl

from sebench.cli import main
from sebench.experiment.contamination import ContaminationConfig, compare, plain_verdict, run
from sebench.obfuscate.names import generate_names
from sebench.records import Verdict
from sebench.rollout.backends.fake import FakeBackend

PUBLIC = generate_names(21).mapping()  # the "released" names the fake model has memorised


def _rows() -> list[dict]:
    return [
        released_row(),  # cumsum
        norm_row(),  # linalg.norm
        released_row(selected_functions=["mean"], function_name="def average(xs):", query="Average of xs.",
                     test_cases=[{"input": "xs=[1, 2, 3]", "output": "2.0"}, {"input": "xs=[4]", "output": "4.0"}],
                     example={"input": "xs=[1, 2, 3]", "output": "2.0"}, right_exe_result="2.0#4.0"),
        released_row(selected_functions=["sum"], function_name="def total(xs):", query="Total of xs.",
                     test_cases=[{"input": "xs=[1, 2, 3]", "output": "6"}, {"input": "xs=[[1], [2]]", "output": "3"}],
                     example={"input": "xs=[1, 2, 3]", "output": "6"}, right_exe_result="6#3"),
        released_row(selected_functions=["maximum"], function_name="def cap(a, b):", query="Larger of each pair.",
                     test_cases=[{"input": "a=[1, 5], b=[3, 2]", "output": "[3, 5]"}],
                     example={"input": "a=[1, 5], b=[3, 2]", "output": "[3, 5]"}, right_exe_result="[3, 5]"),
    ]


def _memorised(request) -> str:
    """Answers from memory, in the public names, whatever package the prompt names; knows three tasks."""
    prompt = request.messages[-1]["content"]
    f, pkg = PUBLIC["functions"], PUBLIC["package"]
    known = {"def running_total(sales):": f"return {f['numpy.cumsum']}(sales)",
             "def length(v):": f"return {f['numpy.linalg.norm']}(v)",
             "def average(xs):": f"return {f['numpy.mean']}(xs)"}
    for signature, body in known.items():
        if signature in prompt:
            return f"```python\nimport {pkg}\n\n{signature}\n    {body}\n```"
    return "```python\ndef total(xs):\n    return None\n```"


@pytest.fixture
def release(tmp_path):
    api_doc = write_api_doc(tmp_path / "release/train/api_doc.jsonl", PUBLIC)
    tasks = write_jsonl(tmp_path / "release/test/single_test.jsonl", _rows())
    return api_doc, tasks


def test_a_model_that_knows_the_public_names_is_flagged(release, tmp_path, capsys):
    api_doc, tasks = release
    write_jsonl(tmp_path / "release/train/train.jsonl", [norm_row()])  # another split: left out
    cfg = ContaminationConfig(model="fake:memorised", mapping_from=api_doc, tasks=tmp_path / "release",
                              out=tmp_path / "c", seed=3, workers=1, audit=False)
    result = run(cfg, backend=FakeBackend(responses=_memorised))
    assert (result.tasks, result.samples) == (5, 1)
    assert result.accuracy_original == pytest.approx(0.6) and result.accuracy_fresh == 0.0
    assert result.gap == pytest.approx(0.6) and 0 < result.ci_low < 0.6 < result.ci_high <= 1.0
    assert result.verdict.startswith("likely contaminated")
    saved = json.loads((tmp_path / "c/contamination.json").read_text())
    assert saved["gap"] == pytest.approx(0.6) and saved["verdict"] == result.verdict
    fresh = json.loads((tmp_path / "c/fresh-seed3/private/mapping.json").read_text())
    assert fresh["package"] != PUBLIC["package"]
    rollouts = [json.loads(line) for line in (tmp_path / "c/fresh-seed3.rollouts.jsonl").read_text().splitlines()]
    assert all(r["mode"] == "closed" and fresh["package"] in r["prompt"][-1]["content"] for r in rollouts)

    # the command line, on the same instances: a model that knows nothing shows no gap
    shutil.copytree(tmp_path / "c/original", tmp_path / "d/original")
    shutil.copytree(tmp_path / "c/fresh-seed3", tmp_path / "d/fresh-seed3")
    assert main(["contamination", "--model", "fake:", "--mapping-from", str(api_doc), "--tasks", str(tasks),
                 "--out", str(tmp_path / "d"), "--seed", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "gap        +0.0 points" in out and "verdict    no evidence of contamination" in out


def _verdicts(outcomes: list[int], samples: int = 1) -> list[Verdict]:
    return [Verdict(f"t{i}", s, "correct" if ok else "wrong_answer", int(ok), 1)
            for i, ok in enumerate(outcomes) for s in range(samples)]


def test_the_gap_and_its_interval_are_paired_by_task():
    result = compare("m", _verdicts([1, 1, 0, 0]), _verdicts([1, 0, 0, 0]), Path("o"), Path("f"))
    assert result.gap == pytest.approx(0.25)
    # differences (0, 1, 0, 0): standard deviation 0.5, standard error 0.25
    assert (result.ci_low, result.ci_high) == (pytest.approx(0.25 - 1.959964 * 0.25),
                                               pytest.approx(0.25 + 1.959964 * 0.25))
    assert result.verdict.startswith("no evidence")
    with pytest.raises(Exception, match="not asked the same tasks"):
        compare("m", _verdicts([1, 1]), _verdicts([1]), Path("o"), Path("f"))


def test_plain_verdicts():
    assert plain_verdict(0.3, 0.1, 0.5, 100).startswith("likely contaminated")
    assert plain_verdict(-0.3, -0.5, -0.1, 100).startswith("not contaminated")
    assert "wide" in plain_verdict(0.1, -0.2, 0.4, 5)


def test_contamination_under_the_original_protocol(release, tmp_path):
    from original_fixtures import original_repo

    api_doc, tasks = release
    cfg = ContaminationConfig(model="fake:memorised", mapping_from=api_doc, tasks=tasks, out=tmp_path / "c", seed=3,
                              workers=1, audit=False, protocol="original", original_repo=original_repo(tmp_path))
    result = run(cfg, backend=FakeBackend(responses=_memorised))
    assert result.accuracy_original == pytest.approx(0.6) and result.accuracy_fresh == 0.0
    rollouts = [json.loads(line) for line in (tmp_path / "c/original.rollouts.jsonl").read_text().splitlines()]
    assert all(len(r["prompt"]) == 1 and r["prompt"][0]["role"] == "user" and r["protocol"] == "original"
               for r in rollouts)
    verdicts = [json.loads(line) for line in (tmp_path / "c/original.verdicts.jsonl").read_text().splitlines()]
    assert {v["protocol"] for v in verdicts} == {"original"}
    assert sum(v["outcome"] == "right" for v in verdicts) == 3

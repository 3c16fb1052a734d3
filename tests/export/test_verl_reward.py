"""The export's verl reward (sebench_reward.py, loaded as verl loads a custom reward): 1 for each reference
solution and 0 for a wrong answer, judged in this process and through `sebench sandbox serve` on 127.0.0.1."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest
from judge.serve_helpers import server_thread
from original_fixtures import RIGHT_ANSWER

from sebench.cli import main
from sebench.errors import SebenchError
from sebench.export import verl_reward
from sebench.instance import Instance
from sebench.rollout.prompts import format_answer

WRONG = "```python\nimport zwc\ndef running_total(sales):\n    return sales\n```"


def _load_reward(path: Path):
    """verl's way (verl/trainer/ppo/reward.py get_custom_reward_fn): the file as a module, its compute_score."""
    spec = importlib.util.spec_from_file_location(f"reward_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compute_score


def _rows(out: Path, name: str = "real_train") -> list:
    return list(pd.read_parquet(out / f"RL_data/{name}.parquet").itertuples())


@pytest.fixture(scope="module")
def original_export(verl_original, tmp_path_factory):
    repo, inst = verl_original
    out = tmp_path_factory.mktemp("reward") / "ex"
    assert main(["export", "--data", str(inst), "--out", str(out), "--protocol", "original", "--original-repo",
                 str(repo), "--max-prompt-tokens", "0"]) == 0
    return inst, out


@pytest.fixture(scope="module")
def sebench_export(built_instance, tmp_path_factory):
    out = tmp_path_factory.mktemp("reward") / "ex"
    assert main(["export", "--data", str(built_instance), "--out", str(out), "--protocol", "sebench"]) == 0
    return built_instance, out


def _scores(score, rows, answer_of, **kwargs) -> list[float]:
    return [score(r.data_source, answer_of(r), r.reward_model["ground_truth"], r.extra_info, **kwargs) for r in rows]


def _right(rows) -> list[float]:
    """1 for each row, except where a test input holds `np.array` as released: the original's reward pastes it
    as it is, and gives every answer 0 there (tests/train/test_original_training.py)."""
    return [0.0 if any("np.array" in c["input"] for c in r.extra_info["test_cases"]) else 1.0 for r in rows]


def test_the_originals_rule_in_process(original_export):
    from sebench.judge.original import OriginalJudge

    inst, out = original_export
    score = _load_reward(out / "sebench_reward.py")
    tasks = {t.task_id: t for t in Instance.open(inst).all_tasks()}
    for name in ("train", "real_train", "test"):
        rows = _rows(out, name)
        assert _scores(score, rows, lambda r: RIGHT_ANSWER) == _right(rows)
        assert _scores(score, rows, lambda r: WRONG) == [0.0] * len(rows)
    rows = _rows(out)
    assert 0.0 in _right(rows) and 1.0 in _right(rows)
    with OriginalJudge(inst, 2) as judge:  # what `sebench train --protocol original` rewards
        assert _scores(score, rows, lambda r: RIGHT_ANSWER) == [judge.reward(tasks[r.extra_info["task_id"]],
                                                                             RIGHT_ANSWER) for r in rows]


def test_the_originals_rule_through_a_sandbox_server(original_export):
    inst, out = original_export
    score, rows = _load_reward(out / "sebench_reward.py"), _rows(out)
    with server_thread(inst, protocol="original") as url:
        assert _scores(score, rows, lambda r: RIGHT_ANSWER, sandbox_urls=[url]) == _right(rows)
        assert _scores(score, rows, lambda r: WRONG, sandbox_urls=[url]) == [0.0] * len(rows)


def test_sebench_judge_in_process_and_through_a_server(sebench_export):
    inst, out = sebench_export
    score, rows = _load_reward(out / "sebench_reward.py"), _rows(out)
    tasks = {t.task_id: t for t in Instance.open(inst).tasks("train")}

    def reference(row):
        return format_answer(tasks[row.extra_info["task_id"]].reference_solution)

    def constant(row):
        return "```python\ndef " + tasks[row.extra_info["task_id"]].entry_point + "(*a, **k):\n    return 0\n```"

    assert _scores(score, rows, reference) == [1.0] * len(rows)
    assert _scores(score, rows, constant) == [0.0] * len(rows)
    with server_thread(inst) as url:
        assert _scores(score, rows, reference, sandbox_urls=[url]) == [1.0] * len(rows)
        assert _scores(score, rows, constant, sandbox_urls=[url]) == [0.0] * len(rows)


def test_settings_from_the_environment_and_refusals(original_export, monkeypatch):
    inst, out = original_export
    row = _rows(out)[0]
    monkeypatch.setenv("SEBENCH_INSTANCE", str(inst))
    assert verl_reward.compute_score(row.data_source, RIGHT_ANSWER, "", row.extra_info) == 1.0
    with pytest.raises(ValueError, match="data_source"):  # rows of another dataset are not ours to score
        verl_reward.compute_score("openai/gsm8k", RIGHT_ANSWER, "", row.extra_info)
    # a server of sebench's protocol prints values in sebench's way
    with server_thread(inst) as url, pytest.raises(SebenchError, match="--protocol original"):
        verl_reward.compute_score(row.data_source, RIGHT_ANSWER, "", row.extra_info, sandbox_urls=url)
    monkeypatch.delenv("SEBENCH_INSTANCE")
    with pytest.raises(SebenchError, match="SEBENCH_INSTANCE"):
        verl_reward.compute_score(row.data_source, RIGHT_ANSWER, "", row.extra_info)


@pytest.mark.parametrize("text, why", [("{", "not valid JSON"), ("[" * 100_000, "JSON nested too deep"),
                                       ("[1]", "expected a JSON object")])
def test_a_settings_file_that_is_not_an_object_of_settings_is_one_line(tmp_path, text, why):
    settings = tmp_path / "sebench_reward.json"
    settings.write_text(text)
    with pytest.raises(SebenchError, match=rf"^{settings}: {why}"):
        verl_reward.scorer(settings)
    with pytest.raises(SebenchError, match=rf"^{tmp_path / 'none.json'}: cannot be read"):
        verl_reward.scorer(tmp_path / "none.json")

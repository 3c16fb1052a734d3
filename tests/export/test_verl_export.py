"""`sebench export --format verl`: the files the original's verl scripts read, with the original's columns, the
original's prompts (read from a stand-in of its repository), and the two RL files aligned row by row."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
from original_fixtures import RIGHT_ANSWER

from sebench.cli import main
from sebench.instance import Instance
from sebench.records import Rollout, read_records
from sebench.rollout.original_prompts import OriginalTrainingPrompts
from sebench.tasks.release import released_rows

# the columns of the original's RL rows (evolve_folder/scripts/rl_train.py, rl_real_train.py, rl_test.py) and
# of its SFT rows (convert_jsonl_to_parquet.py)
RL_COLUMNS = ["data_source", "prompt", "ability", "reward_model", "extra_info"]
RL_EXTRA = {"split", "index", "test_cases", "right_exe_result"}
SFT_EXTRA = {"split", "index", "with_doc_prompt", "without_doc_prompt", "response"}


@pytest.fixture
def setup(verl_original):
    return verl_original


def _export(setup, out, *flags):
    repo, inst = setup
    return main(["export", "--format", "verl", "--data", str(inst), "--out", str(out), "--protocol", "original",
                 "--original-repo", str(repo), *flags])


def test_rl_files_have_the_originals_columns_and_prompts_and_align_row_by_row(setup, tmp_path):
    repo, inst = setup
    assert _export(setup, tmp_path / "ex", "--max-prompt-tokens", "0") == 0
    open_rows = pd.read_parquet(tmp_path / "ex/RL_data/train.parquet")
    closed_rows = pq.read_table(tmp_path / "ex/RL_data/real_train.parquet").to_pandas()
    assert list(open_rows.columns) == RL_COLUMNS and list(closed_rows.columns) == RL_COLUMNS
    tasks = Instance.open(inst).tasks("train")
    assert len(open_rows) == len(closed_rows) == len(tasks) == 6
    assert set(open_rows.data_source) == {"train_for_test_doc"} and set(closed_rows.data_source) == {"query_doc"}
    prompts = OriginalTrainingPrompts(Instance.open(inst), repo)
    released = released_rows(inst)
    assert any("np.array" in c["input"] for r in released.values() for c in r["test_cases"])
    for i, task in enumerate(tasks):
        o, c = open_rows.iloc[i], closed_rows.iloc[i]
        assert set(o.extra_info) >= RL_EXTRA and o.extra_info["index"] == c.extra_info["index"] == i
        assert o.extra_info["task_id"] == c.extra_info["task_id"] == task.task_id
        row = released[task.task_id]  # the original's scripts write the released row's tests, as released
        assert o.reward_model == c.reward_model == {"style": "rule", "ground_truth": row["right_exe_result"]}
        assert list(o.extra_info["test_cases"]) == list(c.extra_info["test_cases"]) == row["test_cases"]
        assert o.ability == "code" and o.extra_info["right_exe_result"] == row["right_exe_result"]
        assert list(o.prompt) == prompts.rl_messages(task, "open") and list(c.prompt) == prompts.rl_messages(task, "closed")
        assert o.prompt[0]["content"].startswith("RL DOCS") and c.prompt[0]["content"].startswith("RLC PROBLEM")
    test_rows = pd.read_parquet(tmp_path / "ex/RL_data/test.parquet")
    assert list(test_rows.columns) == RL_COLUMNS and set(test_rows.data_source) == {"query_doc_train"}
    assert [list(p) for p in test_rows.prompt] == [prompts.rl_messages(t, "closed") for t in Instance.open(inst).tasks("single_test")]


def test_the_prompt_filter_drops_the_same_tasks_from_both_files(setup, tmp_path):
    from transformers import AutoTokenizer

    from sebench.models import create_tiny_model

    repo, inst = setup
    tokenizer_dir = create_tiny_model(tmp_path / "model")  # a local folder with the model's tokenizer files
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    prompts = OriginalTrainingPrompts(Instance.open(inst), repo)
    tasks = Instance.open(inst).tasks("train")
    lengths = [len(tokenizer.tokenize(prompts.rl_messages(t, "open")[0]["content"])) for t in tasks]
    limit = sorted(lengths)[3]  # keeps the three shortest open-book prompts (the original: `>= limit` is dropped)
    assert _export(setup, tmp_path / "ex", "--tokenizer", str(tokenizer_dir), "--max-prompt-tokens", str(limit)) == 0
    kept = [t.task_id for t, n in zip(tasks, lengths) if n < limit]
    open_rows = pd.read_parquet(tmp_path / "ex/RL_data/train.parquet")
    closed_rows = pd.read_parquet(tmp_path / "ex/RL_data/real_train.parquet")
    assert len(kept) == 3
    assert [e["task_id"] for e in open_rows.extra_info] == [e["task_id"] for e in closed_rows.extra_info] == kept
    assert [e["index"] for e in open_rows.extra_info] == [i for i, n in enumerate(lengths) if n < limit]
    record = json.loads((tmp_path / "ex/export.json").read_text())
    assert record["rl_rows"] == 3 and len(record["dropped_long_prompts"]) == 3


def test_sft_file_holds_every_judged_correct_answer_with_both_prompts(setup, tmp_path):
    repo, inst = setup
    wrong = "```python\nimport zwc\ndef running_total(sales):\n    return sales\n```"
    (tmp_path / "answers.json").write_text(json.dumps([RIGHT_ANSWER, wrong]))
    rollouts, verdicts = tmp_path / "r/rollouts.jsonl", tmp_path / "r/verdicts.jsonl"
    assert main(["rollout", "--data", str(inst), "--split", "train", "--mode", "open", "--protocol", "original",
                 "--original-repo", str(repo), "--model", f"fake:file={tmp_path / 'answers.json'}", "--n", "2",
                 "--concurrency", "1", "--out", str(rollouts)]) == 0
    assert main(["judge", "--data", str(inst), "--rollouts", str(rollouts), "--out", str(verdicts),
                 "--protocol", "original"]) == 0
    assert _export(setup, tmp_path / "ex", "--max-prompt-tokens", "0", "--rollouts", str(rollouts)) == 0
    sft = pd.read_parquet(tmp_path / "ex/SFT_data/valid_SFT_data.parquet")
    correct = [r for r in read_records(rollouts, Rollout) if r.response == RIGHT_ANSWER]
    assert len(sft) == len(correct) == 6  # one right answer per task; the wrong ones are left out
    assert {"data_source", "query", "response", "prompt", "ability", "reward_model", "extra_info"} == set(sft.columns)
    prompts = OriginalTrainingPrompts(Instance.open(inst), repo)
    by_id = {t.task_id: t for t in Instance.open(inst).tasks("train")}
    for row, rollout in zip(sft.itertuples(), correct):
        assert set(row.extra_info) == SFT_EXTRA and row.extra_info["response"] == row.response == RIGHT_ANSWER
        assert row.extra_info["with_doc_prompt"] == rollout.prompt[-1]["content"]
        closed = prompts.closed_sft_messages(by_id[rollout.task_id], rollout.prompt)[0]["content"]
        assert row.extra_info["without_doc_prompt"] == closed and closed.startswith("SFT PROBLEM")
        assert "DOCS" not in closed and row.reward_model["ground_truth"] == RIGHT_ANSWER


def test_an_export_asks_for_what_it_lacks_in_one_line(setup, tmp_path, capsys):
    _repo, inst = setup
    assert main(["export", "--data", str(inst), "--out", str(tmp_path / "a"), "--protocol", "original"]) == 2
    assert "--original-repo" in capsys.readouterr().err
    assert _export(setup, tmp_path / "b") == 2  # the original's 2000-token filter needs the model's tokenizer
    assert "--tokenizer" in capsys.readouterr().err
    assert _export(setup, tmp_path / "c", "--tokenizer", str(tmp_path / "nowhere")) == 2
    assert "nothing is downloaded" in capsys.readouterr().err
    assert _export(setup, tmp_path / "d", "--max-prompt-tokens", "0") == 0
    assert _export(setup, tmp_path / "d", "--max-prompt-tokens", "0") == 2  # an earlier export is kept
    assert "--overwrite" in capsys.readouterr().err
    assert _export(setup, tmp_path / "d", "--max-prompt-tokens", "0", "--overwrite") == 0


def test_sebench_prompts_for_a_fresh_instance(built_instance, tmp_path):
    assert main(["export", "--data", str(built_instance), "--out", str(tmp_path / "ex"), "--protocol", "sebench"]) == 0
    rows = pd.read_parquet(tmp_path / "ex/RL_data/real_train.parquet")
    assert [m["role"] for m in rows.prompt[0]] == ["system", "user"]
    assert json.loads((tmp_path / "ex/sebench_reward.json").read_text())["rule"] == "binary"


def test_the_default_protocol_is_sebenchs_and_original_repo_asks_for_the_original(setup, tmp_path, capsys):
    repo, inst = setup
    assert main(["export", "--data", str(inst), "--out", str(tmp_path / "a"), "--original-repo", str(repo)]) == 2
    assert "add --protocol original" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()

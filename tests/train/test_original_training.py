"""Training under `--protocol original`: the prompts of the original's training scripts (read from a copy of its
repository; here a stand-in with their constant names and our own text), filled as those scripts fill them, the
keep-every-correct-answer SFT filter, and GRPO's data in the original's order with its reward rule. With a real
copy of the original (SEBENCH_ORIGINAL_REPO) its own scripts are run and their prompts must equal ours, byte for
byte."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from original_fixtures import ROW, SHARED_API_DOC, original_repo

from sebench.builder.run import build_instance
from sebench.cli import main
from sebench.instance import Instance
from sebench.records import Rollout, Verdict, write_records
from sebench.rollout.original_prompts import OriginalPromptBuilder, OriginalTemplates, OriginalTrainingPrompts
from sebench.train import data

# a second task whose inputs hold no `np.array` (the original's reward pastes inputs as stored)
ROW2 = {**copy.deepcopy(ROW), "query": "Return the running total of `costs`.", "function_name": "def totals(costs):",
        "test_cases": [{"input": "costs=[1, 2]", "output": "[1 3]"}, {"input": "costs=[[5]]", "output": "[5]"}],
        "example": {"input": "costs=[1, 2]", "output": "[1 3]"}, "right_exe_result": "[1 3]#[5]"}
RIGHT2 = "```python\nimport zwc\ndef totals(costs):\n    return zwc.dorujot(costs)\n```"


def _import(inst: Path, rows: list[dict], split: str, tmp: Path) -> None:
    rows_file = tmp / f"{split}.jsonl"
    rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["tasks", "import", "--official", str(rows_file), "--data", str(inst), "--split", split]) == 0


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not SHARED_API_DOC.is_file():
        pytest.skip("shared/reference/official_api_doc.jsonl is not beside the checkout")
    base = tmp_path_factory.mktemp("orig")
    inst = build_instance(base / "inst", 0, mapping_from=SHARED_API_DOC, docs_from="original", audit=False)
    _import(inst, [ROW, ROW2], "train", base)
    return original_repo(base), inst


def _cumsum_doc() -> str:
    return next(json.loads(line)["rewritten_doc"] for line in SHARED_API_DOC.read_text().splitlines()
                if json.loads(line)["original_name"] == "cumsum")


def test_grpo_prompts_are_the_rl_scripts_templates_with_the_example_as_stored(setup):
    repo, inst = setup
    task = next(t for t in Instance.open(inst).tasks("train") if t.function_name == ROW["function_name"])
    prompts = OriginalTrainingPrompts(Instance.open(inst), repo)
    example = str(ROW["example"])  # input and output, np.array as released
    assert prompts.rl_messages(task, "open") == [{"role": "user", "content":
        f"RL DOCS {[{'dorujot': _cumsum_doc()}]!r}\nRL PROBLEM {ROW['query']}\nRL EXAMPLE {example}\n"
        f"RL COMPLETE {ROW['function_name']}"}]
    assert prompts.rl_messages(task, "closed") == [{"role": "user", "content":
        f"RLC PROBLEM {ROW['query']}\nRLC EXAMPLE {example}\nRLC COMPLETE {ROW['function_name']}"}]


def test_closed_sft_prompt_is_cut_from_the_open_prompt_that_answered(setup):
    repo, inst = setup
    instance = Instance.open(inst)
    task = next(t for t in instance.tasks("train") if t.function_name == ROW["function_name"])
    asked = OriginalPromptBuilder(instance, "open", OriginalTemplates.read(repo)).messages(task)
    prompts = OriginalTrainingPrompts(instance, repo)
    assert prompts.open_sft_messages(task, asked) == asked
    assert prompts.closed_sft_messages(task, asked) == [{"role": "user", "content":
        f"SFT PROBLEM {ROW['query']}\nSFT EXAMPLE {{'input': 'sales=zwc.yitaf([3, 1])'}}\n"
        f"SFT COMPLETE {ROW['function_name']}"}]


def _answers(setup, tmp_path: Path) -> Path:
    """Two equal judged-correct open-book answers to ROW2 (asked with the original's open prompt)."""
    repo, inst = setup
    instance = Instance.open(inst)
    task = next(t for t in instance.tasks("train") if t.function_name == ROW2["function_name"])
    asked = OriginalPromptBuilder(instance, "open", OriginalTemplates.read(repo)).messages(task)
    rollouts = [Rollout(task.task_id, i, "open", "m", asked, RIGHT2, None, "stop", protocol="original")
                for i in range(2)]
    write_records(tmp_path / "rollouts.jsonl", rollouts)
    write_records(tmp_path / "verdicts.jsonl", [Verdict(task.task_id, i, "correct", 2, 2, {}, mode="open")
                                                for i in range(2)])
    return tmp_path / "rollouts.jsonl"


@pytest.mark.parametrize("protocol, kept", [("original", 2), ("sebench", 1)])
def test_sft_keeps_every_correct_answer_under_the_original(setup, tmp_path, protocol, kept):
    repo, inst = setup
    rollouts = _answers(setup, tmp_path)
    keep = "all" if protocol == "original" else "distinct"
    answers = data.rollout_pairs(Instance.open(inst).tasks("train"), rollouts, tmp_path / "verdicts.jsonl", keep=keep)
    assert len(answers) == kept
    original = OriginalTrainingPrompts(Instance.open(inst), repo) if protocol == "original" else None
    closed = data.sft_examples(Instance.open(inst), answers, "closed", original)
    if protocol == "original":  # one user message, no system message
        assert [m["role"] for m in closed[0]["prompt"]] == ["user"]
        assert closed[0]["prompt"][0]["content"].startswith("SFT PROBLEM " + ROW2["query"])
        opened = data.sft_examples(Instance.open(inst), answers, "open", original)
        assert opened[0]["prompt"] == answers[0].prompt  # Open-SFT: the prompt that produced the answer


def test_closed_rl_under_the_original_trains_in_order_with_its_reward(setup, tmp_path, tiny_model, monkeypatch):
    from transformers import AutoTokenizer

    from sebench.rollout.backends import hf

    repo, inst = setup
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    asked = []

    def generate_tokens(model, prompts, max_new_tokens, eos_ids, pad_id, temperature=0.0, top_p=1.0, should_stop=None):
        assert should_stop is None  # the original samples to the end of the sequence
        asked.extend(tokenizer.decode(p) for p in prompts)
        answers = [RIGHT2 if i % 2 == 0 else "no idea" for i in range(len(prompts))]
        return [tokenizer(a, add_special_tokens=False)["input_ids"] + [eos_ids[0]] for a in answers]

    monkeypatch.setattr(hf, "generate_tokens", generate_tokens)
    out = tmp_path / "ckpt"
    assert main(["train", "--data", str(inst), "--regime", "closed-rl", "--model", str(tiny_model), "--out", str(out),
                 "--protocol", "original", "--original-repo", str(repo), "--num-generations", "2", "--batch-size", "2",
                 "--max-steps", "2", "--judge-workers", "2"]) == 0
    config = json.loads((out / "train_config.json").read_text())["config"]
    assert (config["reward"], config["rl_order"], config["sample_until"], config["max_prompt_tokens"]) == (
        "original", "in-order", "eos", 2000)
    tasks = Instance.open(inst).tasks("train")
    samples = [json.loads(line) for line in (out / "rl_samples.jsonl").read_text().splitlines()]
    assert [s["task_id"] for s in samples] == [t.task_id for t in tasks for _ in range(2)]  # the data's order
    assert all("RL DOCS" in p for p in asked)  # sampled from the RL scripts' open-book prompt
    # the reward rule: RIGHT2 answers ROW2 (1); for ROW, whose input holds np.array, nothing is rewarded
    by_task = {t.function_name: t.task_id for t in tasks}
    rewards = {(s["task_id"], s["completion"].startswith("```")): s["reward"] for s in samples}
    assert rewards[(by_task[ROW2["function_name"]], True)] == 1.0
    assert rewards[(by_task[ROW["function_name"]], True)] == 0.0
    assert all(s["old_logp"] == s["new_logp"] for s in samples)
    trained = [json.loads(line) for line in (out / "train_data.jsonl").read_text().splitlines()]
    assert all(row["prompt"][0]["content"].startswith("RLC PROBLEM") for row in trained)


# ---- with a real copy of the original: its own scripts are the oracle

ORIGINAL = os.environ.get("SEBENCH_ORIGINAL_REPO")
RELEASED_ROWS = SHARED_API_DOC.parent / "original_single_test_sample.jsonl"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    if not ORIGINAL or not RELEASED_ROWS.is_file():
        pytest.skip("needs SEBENCH_ORIGINAL_REPO (a copy of github.com/thunlp/SE-Bench) and shared/reference")
    pytest.importorskip("pandas")
    pytest.importorskip("datasets")
    base = tmp_path_factory.mktemp("real")
    inst = build_instance(base / "inst", 0, mapping_from=SHARED_API_DOC, docs_from="original", audit=False)
    released = [json.loads(line) for line in RELEASED_ROWS.read_text().splitlines()]
    long = {**copy.deepcopy(released[0]), "query": released[0]["query"] + " Be exact." * 1000}  # over 2000 tokens
    rows = [*released[:6], long, *released[6:]]
    _import(inst, rows, "train", base)
    (base / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return Path(ORIGINAL), inst, base


def _script(repo: Path, name: str, cwd: Path, *args: str) -> None:
    script = repo / "verl_evolve/evolve_folder/scripts" / name
    subprocess.run([sys.executable, str(script), *args], cwd=cwd, check=True, capture_output=True)


def test_grpo_prompts_equal_the_original_scripts_output(real, tiny_model):
    import pandas as pd
    from transformers import AutoTokenizer

    repo, inst, base = real
    docs = base / "random_numpy_package_bk" / "results"  # where the scripts read the docs from (../ of cwd)
    docs.mkdir(parents=True)
    (docs / "all.jsonl").write_text((repo / "datasets/train/api_doc.jsonl").read_text())
    (base / "work").mkdir()
    for name in ("rl_train.py", "rl_real_train.py"):
        _script(repo, name, base / "work", "--input_path", str(base / "rows.jsonl"), "--output_path",
                str(base / "rl"), "--tokenizer", str(tiny_model))
    theirs = {name: [next(iter(p))["content"] for p in pd.read_parquet(base / "rl" / f"{name}.parquet")["prompt"]]
              for name in ("train", "real_train")}
    instance = Instance.open(inst)
    prompts = OriginalTrainingPrompts(instance, repo)
    rows = data.rl_prompts(instance, instance.tasks("train"), "open", "closed", prompts)
    kept = data.drop_long_prompts(rows, AutoTokenizer.from_pretrained(tiny_model), 2000)
    assert len(kept) == len(rows) - 1  # the long one
    rows = kept
    assert [r["sample_prompt"][0]["content"] for r in rows] == theirs["train"]
    assert [r["prompt"][0]["content"] for r in rows] == theirs["real_train"]


def test_sft_prompts_equal_the_original_conversion_output(real):
    import pandas as pd

    repo, inst, base = real
    instance = Instance.open(inst)
    asker = OriginalPromptBuilder(instance, "open", OriginalTemplates.read(repo))
    tasks = [t for t in instance.tasks("train") if "Be exact." not in t.query]
    answers = [data.Answer(t, f"Thinking.\n```python\n{t.reference_solution or 'pass'}\n```", asker.messages(t))
               for t in tasks]
    folder = base / "sft"
    folder.mkdir()
    (folder / "valid.jsonl").write_text("".join(json.dumps({"usr_prompt": a.prompt[0]["content"], "query": a.task.query,
                                                            "response": a.text}) + "\n" for a in answers))
    _script(repo, "convert_jsonl_to_parquet.py", repo / "verl_evolve/evolve_folder/scripts", "--local_dir", str(folder),
            "--trainset_name", "valid")
    theirs = pd.read_parquet(folder / "valid.parquet")["extra_info"].tolist()
    prompts = OriginalTrainingPrompts(instance, repo)
    closed = data.sft_examples(instance, answers, "closed", prompts)
    opened = data.sft_examples(instance, answers, "open", prompts)
    assert [e["prompt"][0]["content"] for e in closed] == [x["without_doc_prompt"] for x in theirs]
    assert [e["prompt"][0]["content"] for e in opened] == [x["with_doc_prompt"] for x in theirs]
    assert [e["completion"][0]["content"] for e in closed] == [x["response"] for x in theirs]

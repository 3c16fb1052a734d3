"""`sebench export --format verl`: an instance as the files the original's verl scripts read.

Layout of OUT (the original's relative paths: its RL scripts read ../RL_data/, its SFT scripts
../../SFT_data/valid_SFT_data.parquet; verl_evolve/evolve_folder/training_commands/Qwen3-8B/):
  RL_data/train.parquet        the open-book GRPO rows (rl_train.py): data_source "train_for_test_doc"
  RL_data/real_train.parquet   the closed-book rows of the same tasks in the same order (rl_real_train.py):
                               data_source "query_doc"; provided-Closed-RL.sh samples from the first and
                               trains on the second, row by row (data.shuffle=False)
  RL_data/test.parquet         the validation rows (rl_test.py: the closed-book template, data_source
                               "query_doc_train", no length filter) of --val-split
  SFT_data/valid_SFT_data.parquet   with --rollouts: the judged-correct answers (convert_jsonl_to_parquet.py);
                               provided-Open-SFT.sh trains on extra_info.with_doc_prompt, provided-Closed-SFT.sh
                               on extra_info.without_doc_prompt, both with extra_info.response
  sebench_reward.py, sebench_reward.json   verl's custom reward (sebench.export.verl_reward)
  export.json                  what was written: settings, counts, the tasks the length filter dropped

RL rows have the original's columns: data_source, prompt (the chat messages; the original's: one user
message), ability "code", reward_model {style "rule", ground_truth: right_exe_result} and extra_info
{split "train", index: the task's line in the instance's train.jsonl, test_cases (input and output as
text), right_exe_result}, plus extra_info.task_id, which the sebench rules binary and graded need. An
imported task's test cases and results are the released row's (`np.array` inputs as released, as the
original's scripts write them, so that the original's reward rule sees what it saw); a built task's results
are what the original's package prints for its reference solution (`OriginalJudge.reward_data`).

Prompts: `--protocol original` fills the templates of the original's training scripts, read
from --original-repo (`OriginalTrainingPrompts`); rl_test.py's template is the same text as
rl_real_train.py's, so the validation rows use the latter. `--protocol sebench` (the default, as for every
command) writes sebench's own prompts (a system and a user message); verl's SFT dataset takes a prompt
string, so the SFT file then holds the user message alone. The length filter (the original: 2000 tokens of the open-book prompt, with
the model's tokenizer, rl_train.py and rl_real_train.py alike) is `sebench.train.data.drop_long_prompts`
on the pairs, so the two RL files keep the same tasks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.export.config import ExportConfig
from sebench.instance import Instance
from sebench.instance_library import is_numpy
from sebench.protocols import get as get_protocol
from sebench.records import Task

log = logging.getLogger(__name__)

RL_FILES = {"open": "RL_data/train.parquet", "closed": "RL_data/real_train.parquet", "test": "RL_data/test.parquet"}
SFT_FILE = "SFT_data/valid_SFT_data.parquet"
REWARD_FILE, REWARD_SETTINGS, RECORD = "sebench_reward.py", "sebench_reward.json", "export.json"
DATA_SOURCE = {"open": "train_for_test_doc", "closed": "query_doc", "test": "query_doc_train"}  # see verl_reward
_PYTHON_BLOCK = re.compile(r"(```python.*?```)", re.S)  # convert_jsonl_to_parquet.py's ground truth: the last one

REWARD_STUB = '''"""sebench's judge as this export's verl reward.

    custom_reward_function.path={path} custom_reward_function.name=compute_score

Settings: sebench_reward.json beside this file; SEBENCH_INSTANCE, SEBENCH_REWARD, SEBENCH_SANDBOX_URLS and
custom_reward_function.reward_kwargs override them (see sebench.export.verl_reward).
"""
from pathlib import Path

from sebench.export.verl_reward import scorer

compute_score = scorer(Path(__file__).with_name("{settings}"))
'''


def export_verl(cfg: ExportConfig) -> list[Path]:
    """Writes OUT (module docstring); returns the files written."""
    from sebench.judge import OriginalJudge
    from sebench.train import drop_long_prompts, rl_prompts, rollout_pairs, select_tasks, sft_examples

    instance, protocol = Instance.open(cfg.data), get_protocol(cfg.protocol)
    out = Path(cfg.out)
    _refuse_earlier_export(out, cfg.overwrite)
    numpy = is_numpy(instance)
    if not numpy and (cfg.reward or protocol.reward) == "original":
        raise SebenchError(f"--reward original: the original's reward rule is defined for NumPy's instances only; "
                           f"{instance.root} renames '{instance.library}' (give --reward binary or graded)")
    original = _original_prompts(instance, cfg) if protocol.prompts == "original" else None
    every = instance.tasks("train")
    index = {t.task_id: i for i, t in enumerate(every)}
    tasks = select_tasks(instance)
    pairs = rl_prompts(instance, tasks, "open", "closed", original)
    limit = protocol.rl_max_prompt_tokens if cfg.max_prompt_tokens is None else cfg.max_prompt_tokens
    kept = drop_long_prompts(pairs, load_tokenizer(cfg.tokenizer), limit) if limit else pairs
    by_id = {t.task_id: t for t in every}
    val = [t for t in instance.tasks(cfg.val_split) if t.is_valid]
    val_rows = rl_prompts(instance, val, "closed", "closed", original)
    # the test cases and results as the original's RL data holds them (NumPy's: as the original's package prints
    # them); another library's package has no original printing, so its tasks' own
    with OriginalJudge(instance) if numpy else contextlib.nullcontext() as judge:
        reward_data = judge.reward_data if judge is not None else _own_results
        written = [_write_rl(out / RL_FILES[kind], [(by_id[p["task_id"]], p[key]) for p in kept], kind, index,
                             reward_data) for kind, key in (("open", "sample_prompt"), ("closed", "prompt"))]
        written.append(_write_rl(out / RL_FILES["test"], list(zip(val, (r["prompt"] for r in val_rows))), "test",
                                 {t.task_id: i for i, t in enumerate(instance.tasks(cfg.val_split))}, reward_data))
    sft = 0
    if cfg.rollouts is not None:
        verdicts = cfg.verdicts or Path(cfg.rollouts).with_name("verdicts.jsonl")
        answers = rollout_pairs(tasks, cfg.rollouts, verdicts, "response", keep=protocol.sft_examples)
        sft = len(answers)
        written.append(_write_sft(out / SFT_FILE, answers, sft_examples(instance, answers, "open", original),
                                  sft_examples(instance, answers, "closed", original)))
    rule = cfg.reward or protocol.reward
    written += _write_reward(out, instance, rule, list(cfg.sandbox_url or []))
    record = {"config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(cfg).items()},
              "reward": rule, "max_prompt_tokens": limit, "rl_rows": len(kept), "val_rows": len(val),
              "sft_rows": sft,
              "dropped_long_prompts": sorted({p["task_id"] for p in pairs} - {p["task_id"] for p in kept}),
              "verl": {"custom_reward_function.path": str((out / REWARD_FILE).resolve()),
                       "custom_reward_function.name": "compute_score"}}
    _write_text(out / RECORD, json.dumps(record, indent=1) + "\n")
    return [*written, out / RECORD]


def _own_results(task: Task) -> tuple[list, str]:
    """A task's test cases and its printed results joined by "#" (the RL data of another library than NumPy)."""
    return task.test_cases, task.right_exe_result


def _refuse_earlier_export(out: Path, overwrite: bool) -> None:
    from sebench.output_files import check_dir_target

    check_dir_target(out)
    earlier = [out / name for name in (*RL_FILES.values(), SFT_FILE, REWARD_FILE, RECORD) if (out / name).exists()]
    if earlier and not overwrite:
        raise SebenchError(f"{earlier[0]}: an earlier export is in {out}; give --overwrite to replace it, or "
                           "choose another --out")


def _original_prompts(instance: Instance, cfg: ExportConfig):
    from sebench.rollout import OriginalTrainingPrompts

    if cfg.original_repo is None:
        raise SebenchError("--protocol original writes the prompts of the original's training scripts, read from its "
                           "repository: give your copy of github.com/thunlp/SE-Bench with --original-repo (or "
                           "--protocol sebench for sebench's prompts)")
    return OriginalTrainingPrompts(instance, cfg.original_repo)


def load_tokenizer(spec: str | None) -> Any:
    """The tokenizer that counts prompt tokens: a local folder or the embedded model's; never a download."""
    from sebench.models import EMBEDDED_DEFAULT, load_embedded_tokenizer

    if spec is None:
        raise SebenchError("the prompt-length filter counts tokens with the trained model's tokenizer: give "
                           "--tokenizer FOLDER (a local copy of the model or of its tokenizer files) or "
                           f"{EMBEDDED_DEFAULT}, or --max-prompt-tokens 0 to keep every prompt")
    if spec == EMBEDDED_DEFAULT:
        return load_embedded_tokenizer()
    from transformers import AutoTokenizer

    name = spec[3:] if spec.startswith("hf:") else spec
    try:
        return AutoTokenizer.from_pretrained(name, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise SebenchError(f"--tokenizer {spec}: no tokenizer there ({str(exc).splitlines()[0][:200]}); give a "
                           "local folder holding the model's tokenizer files (nothing is downloaded)") from None


def _messages(prompt: list[dict]) -> list[dict]:
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in prompt]


def _rl_row(task: Task, prompt: list[dict], kind: str, index: int, reward_data) -> dict:
    """One RL row; its test cases and results as the original's RL data holds them (`reward_data`: an imported
    task's released row, `np.array` inputs included; a built task's results as the original's package prints
    them)."""
    cases, expected = reward_data(task)
    cases = [{"input": str(c.get("input", "")), "output": str(c.get("output", ""))} if isinstance(c, dict)
             else {"input": str(c), "output": ""} for c in cases]
    return {"data_source": DATA_SOURCE[kind], "prompt": _messages(prompt), "ability": "code",
            "reward_model": {"style": "rule", "ground_truth": expected},
            "extra_info": {"split": "train", "index": index, "test_cases": cases, "right_exe_result": expected,
                           "task_id": task.task_id}}


def _write_rl(path: Path, rows: list[tuple[Task, list[dict]]], kind: str, index: dict[str, int],
              reward_data) -> Path:
    pa = _pyarrow()

    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    case = pa.struct([("input", pa.string()), ("output", pa.string())])
    schema = pa.schema([
        ("data_source", pa.string()), ("prompt", pa.list_(message)), ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", pa.struct([("split", pa.string()), ("index", pa.int64()), ("test_cases", pa.list_(case)),
                                  ("right_exe_result", pa.string()), ("task_id", pa.string())])),
    ])
    return _write_parquet(path, [_rl_row(t, p, kind, index[t.task_id], reward_data) for t, p in rows], schema)


def _write_sft(path: Path, answers: list, opens: list[dict], closeds: list[dict]) -> Path:
    pa = _pyarrow()

    rows = []
    for i, (answer, open_ex, closed_ex) in enumerate(zip(answers, opens, closeds)):
        with_doc, without_doc = open_ex["prompt"][-1]["content"], closed_ex["prompt"][-1]["content"]
        blocks = _PYTHON_BLOCK.findall(answer.text)
        rows.append({"data_source": "self-evolve", "query": answer.task.query, "response": answer.text,
                     "prompt": [{"role": "user", "content": with_doc}], "ability": "math",
                     "reward_model": {"style": "rule", "ground_truth": blocks[-1] if blocks else ""},
                     "extra_info": {"split": "train", "index": i, "with_doc_prompt": with_doc,
                                    "without_doc_prompt": without_doc, "response": answer.text}})
    text = pa.string()
    schema = pa.schema([
        ("data_source", text), ("query", text), ("response", text),
        ("prompt", pa.list_(pa.struct([("role", text), ("content", text)]))), ("ability", text),
        ("reward_model", pa.struct([("style", text), ("ground_truth", text)])),
        ("extra_info", pa.struct([("split", text), ("index", pa.int64()), ("with_doc_prompt", text),
                                  ("without_doc_prompt", text), ("response", text)])),
    ])
    return _write_parquet(path, rows, schema)


def _write_parquet(path: Path, rows: list[dict], schema: Any) -> Path:
    """One parquet file, written beside `path` and renamed into place."""
    pa = _pyarrow()
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), partial)
    os.replace(partial, path)
    return path


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise SebenchError("the verl export writes parquet files and needs pyarrow: pip install 'sebench[export]'") from None
    return pyarrow


def _write_reward(out: Path, instance: Instance, rule: str, urls: list[str]) -> list[Path]:
    settings = {"instance": str(instance.root.resolve()), "rule": rule, "sandbox_urls": urls}
    _write_text(out / REWARD_SETTINGS, json.dumps(settings, indent=1) + "\n")
    _write_text(out / REWARD_FILE, REWARD_STUB.format(path=(out / REWARD_FILE).resolve(), settings=REWARD_SETTINGS))
    return [out / REWARD_FILE, out / REWARD_SETTINGS]


def _write_text(path: Path, text: str) -> None:
    from sebench.output_files import write_text_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)

"""A stand-in copy of the original SE-Bench repository (its prompt-template constants with our own text, and
the shared release api_doc.jsonl) and an instance of the release's names with released-format rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sebench.builder.run import build_instance
from sebench.cli import main

SHARED_API_DOC = Path(__file__).resolve().parents[2] / "shared/reference/official_api_doc.jsonl"

TEMPLATES = '''"""Stand-in for the original's prompt templates (not its text)."""
unused_prompt = """ignored ${question}"""
query_only_prompt = """PROBLEM ${question}
EXAMPLE ${example_test_cases}
COMPLETE ${function}
$$ kept"""
doc_query_cot_prompt = """DOCS ${ref_code}
PROBLEM ${question}
### Test Cases
${example_test_cases}
### Function to Complete
${function}
### Rules
use the docs"""
'''

ROW = {"selected_functions": "['cumsum']", "query": "Return the running total of `sales`.",
       "function_name": "def running_total(sales):",
       "test_cases": [{"input": "sales=np.array([3, 1])", "output": "[3 4]"}, {"input": "sales=[2]", "output": "[2]"}],
       "example": {"input": "sales=np.array([3, 1])", "output": "[3 4]"}, "example_output": [""],
       "right_exe_result": "[3 4]#[2]", "is_valid": True, "1func_query_id": 1}

# an answer the original judge accepts for ROW (dorujot is the release's name of numpy.cumsum)
RIGHT_ANSWER = "```python\nimport zwc\ndef running_total(sales):\n    return zwc.dorujot(sales)\n```"


# stand-ins for the templates of the original's training scripts (verl_evolve/evolve_folder/scripts/)
TRAINING_SCRIPTS = {
    "SFTprompt_template.py": 'query_only_prompt = """SFT PROBLEM ${question}\nSFT EXAMPLE ${example_test_cases}\n'
                             'SFT COMPLETE ${function}"""\n',
    "rl_train.py": 'import json\ndoc_query_cot_prompt = """RL DOCS ${ref_code}\nRL PROBLEM ${question}\n'
                   'RL EXAMPLE ${example_test_cases}\nRL COMPLETE ${function}"""\n',
    "rl_real_train.py": 'query_only_cot_prompt = """RLC PROBLEM ${question}\nRLC EXAMPLE ${example_test_cases}\n'
                        'RLC COMPLETE ${function}"""\n',
}


def original_repo(base: Path) -> Path:
    if not SHARED_API_DOC.is_file():  # a clone without shared/ beside it
        pytest.skip(f"needs the release's api_doc.jsonl at {SHARED_API_DOC}")
    repo = base / "SE-Bench"
    (repo / "src/utils").mkdir(parents=True)
    (repo / "src/utils/prompt_template.py").write_text(TEMPLATES)
    scripts = repo / "verl_evolve/evolve_folder/scripts"
    scripts.mkdir(parents=True)
    for name, text in TRAINING_SCRIPTS.items():
        (scripts / name).write_text(text)
    (repo / "datasets/train").mkdir(parents=True)
    shutil.copy(SHARED_API_DOC, repo / "datasets/train/api_doc.jsonl")
    return repo


def released_instance(base: Path, rows: list[dict] = (ROW,)) -> Path:
    inst = build_instance(base / "inst", 0, mapping_from=SHARED_API_DOC, docs_from="original", audit=False)
    (base / "single_test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["tasks", "import", "--official", str(base / "single_test.jsonl"), "--data", str(inst),
                 "--split", "single_test"]) == 0
    return inst

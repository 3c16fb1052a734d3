"""Rows and files in the released SE-Bench format (written for these tests, not copied from the release).

The release's rows carry `example` as {"input", "output"}, `selected_functions` as NumPy names,
`right_exe_result` as the "#"-joined printed outputs, and fields sebench does not use (`right_code`,
`example_output` as a list, `major_vote_response_dict`, `1func_query_id`). Its api_doc.jsonl rows carry
`original_name`, `curr_name`, `docstring`, `func_mapping` (a JSON string) and `rewritten_doc`.
"""

from __future__ import annotations

import json
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared/reference"
SHARED_SAMPLE = SHARED / "original_single_test_sample.jsonl"
SHARED_API_DOC = SHARED / "official_api_doc.jsonl"


def released_row(**over) -> dict:
    row = {
        "selected_functions": ["cumsum"],
        "query": "A shop logs its sales per hour; return the running total of the sales so far.",
        "test_cases": [
            {"input": "sales=[3, 1, 4]", "output": "[3, 4, 8]"},
            {"input": "sales=[[1, 2], [3, 4]]", "output": "[1, 3, 6, 10]"},
            {"input": "sales=[2.5]", "output": "[2.5]"},
        ],
        "example_output": [("\nimport numpy as np\n\ndef running_total(sales):\n"
                            "    return np.cumsum(sales).tolist()\n")],
        "1func_query_id": 7,
        "function_name": "def running_total(sales):",
        "example": {"input": "sales=[3, 1, 4]", "output": "[3, 4, 8]"},
        "major_vote_response_dict": {"some-model": "I would add the sales one by one.\n```python\n...\n```"},
        "is_valid": True,
        "right_exe_result": "[3, 4, 8]#[1, 3, 6, 10]#[2.5]",
        "right_code": "def running_total(sales):\n    total, out = 0, []\n    ...",
    }
    row.update(over)
    return row


def norm_row() -> dict:
    return released_row(
        selected_functions=["linalg.norm"], function_name="def length(v):",
        query="Return the Euclidean length of a displacement vector.",
        test_cases=[{"input": "v=[3.0, 4.0]", "output": "5.0"}, {"input": "v=[1, 2, 2]", "output": "3"}],
        example={"input": "v=[3.0, 4.0]", "output": "5.0"},
        right_exe_result="5.0#3.0", **{"1func_query_id": 8})


def write_jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def write_api_doc(path: Path, mapping: dict, doc_of=lambda numpy_key, short: f"{short}(...)\n\nDoc of {short}.") -> Path:
    """An api_doc.jsonl in the release's format for an instance's mapping.json (the first row maps all)."""
    functions = mapping["functions"]
    full = {key.replace("numpy.", "np.", 1): public for key, public in functions.items()}
    rows = []
    for i, (key, public) in enumerate(functions.items()):
        short = public.rsplit(".", 1)[1]
        own = {key.replace("numpy.", "np.", 1): public}
        rows.append({"original_name": key.rsplit(".", 1)[1], "curr_name": short, "docstring": "(not used)",
                     "func_mapping": json.dumps(full if i == 0 else own), "rewritten_doc": doc_of(key, short)})
    return write_jsonl(path, rows)

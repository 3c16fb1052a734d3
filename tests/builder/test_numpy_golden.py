"""NumPy builds stay byte-identical per seed: each case rebuilds with `sebench build` (a fresh process, as a
user runs it) and compares the sha256 of every file with the digests recorded in
tests/data/numpy_build_digests.json. manifest.json is compared without its `sebench_version` (a release
changes it; nothing else in the instance depends on it).

Re-record (only on purpose, e.g. after a NumPy upgrade changes its outputs):
    PYTHONPATH=tests python tests/builder/test_numpy_golden.py
"""

import hashlib
import json
import tempfile
from pathlib import Path

import pytest
from cli_fixtures import sebench

DIGESTS = Path(__file__).resolve().parents[1] / "data" / "numpy_build_digests.json"
CASES = {  # name -> `sebench build` flags; the quick preset builds with the default task sizes (720/259/300)
    "seed0-small": ["--seed", "0", "--n-train", "20", "--n-single", "10", "--n-multiple", "5"],
    "seed0-no-tasks": ["--seed", "0", "--no-tasks"],
    "seed1-no-tasks": ["--seed", "1", "--no-tasks"],
    "seed0-quick-sizes": ["--seed", "0"],
    "seed1-quick-sizes": ["--seed", "1"],
}
FAST = ("seed0-small",)


def digests(root: Path) -> dict[str, str]:
    """sha256 of every file under root (manifest.json without sebench_version), by relative path."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        if rel == "manifest.json":
            manifest = json.loads(data)
            manifest.pop("sebench_version")
            data = json.dumps(manifest, sort_keys=True).encode()
        out[rel] = hashlib.sha256(data).hexdigest()
    return out


def build(case: str, out: Path) -> dict[str, str]:
    done = sebench("build", "--out", out, *CASES[case])
    assert done.returncode == 0, done.stderr
    return digests(out)


@pytest.mark.parametrize("case", [c if c in FAST else pytest.param(c, marks=pytest.mark.slow) for c in CASES])
def test_a_numpy_build_is_byte_identical_to_the_recorded_one(case, tmp_path):
    recorded = json.loads(DIGESTS.read_text(encoding="utf-8"))[case]
    built = build(case, tmp_path / case)
    changed = sorted(k for k in recorded.keys() | built.keys() if recorded.get(k) != built.get(k))
    assert changed == [], f"{len(changed)} files differ, e.g. {changed[:5]}"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        DIGESTS.write_text(json.dumps({c: build(c, Path(tmp) / c) for c in CASES}, indent=1, sort_keys=True) + "\n")

"""The submit tests' shared run: one greedy tiny-model run of examples/reference_sft.py and its bundle, per session."""

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LABEL = "ReferenceSFT"
SMALL = ["--functions", "3", "--build-train", "60", "--build-single", "30", "--build-multiple", "20",
         "--set", "max_train=8", "--set", "max_single=6", "--set", "max_multiple=2", "--max-tokens", "12",
         "--set", "rollout.concurrency=2", "--set", 'trained_modes=["closed"]', "--set", 'untrained_modes=["closed"]',
         "--set", "judge.workers=1"]


@pytest.fixture(scope="session")
def submitted(tmp_path_factory):
    """(run directory, bundle) of a greedy tiny-model run of examples/reference_sft.py, seed 0."""
    pytest.importorskip("transformers")
    from sebench.cli import main
    from sebench.models import create_tiny_model

    root = tmp_path_factory.mktemp("submit")
    model = create_tiny_model(root / "tiny")
    run, bundle = root / "run", root / "bundle.tar.gz"
    assert main(["run", "--out", str(run), "--model", f"hf:{model}", *SMALL, "--regimes",
                 f"{EXAMPLES}/reference_sft.py:{LABEL}", "-M", f"{LABEL}.steps=2"]) == 0
    assert main(["submit", str(run), "--method", LABEL, "--out", str(bundle)]) == 0
    return run, bundle


@pytest.fixture(scope="session")
def shared_work(tmp_path_factory):
    """A work folder that verifications share: the seed's instance is rebuilt there once."""
    return tmp_path_factory.mktemp("verify-work")

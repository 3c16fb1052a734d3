"""The submit tests' shared runs: a greedy tiny-model run of examples/reference_sft.py and its bundle, per session
(and, for the slow tests, a sampled one); a work folder where the seed's instance is rebuilt once; and `forge`,
which makes a changed bundle with sebench's own packer (every hash, verdict-derived row and card made again)."""

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from bundle_packing import repack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LABEL = "ReferenceSFT"
# six functions give 13 single-function tasks: enough for the sampled rule to tell replaced answers apart
SMALL = ["--functions", "6", "--build-train", "60", "--build-single", "40", "--build-multiple", "20",
         "--set", "max_train=8", "--set", "max_single=16", "--set", "max_multiple=2", "--max-tokens", "12",
         "--set", "rollout.concurrency=2", "--set", 'trained_modes=["closed"]', "--set", 'untrained_modes=["closed"]',
         "--set", "judge.workers=1"]


def _submit(root: Path, name: str, extra: list[str]) -> None:
    from sebench.cli import main
    from sebench.models import create_tiny_model

    model = root / "tiny"
    if not model.is_dir():
        create_tiny_model(model)
    run, bundle = root / f"run-{name}", root / f"{name}.tar.gz"
    assert main(["run", "--out", str(run), "--model", f"hf:{model}", *SMALL, *extra, "--regimes",
                 f"{EXAMPLES}/reference_sft.py:{LABEL}", "-M", f"{LABEL}.steps=2"]) == 0
    assert main(["submit", str(run), "--method", LABEL, "--out", str(bundle)]) == 0


@pytest.fixture(scope="session")
def submit_root(tmp_path_factory):
    """Where the shared runs live: beside every xdist worker's own temporary folder, so that the workers of
    one session make each run once and share it (they only read it)."""
    import os

    pytest.importorskip("transformers")
    base = tmp_path_factory.getbasetemp()  # under xdist: this session's folder/popen-gwN
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "submit-shared"
    root.mkdir(exist_ok=True)
    return root


def _once(root: Path, name: str, extra: list[str]) -> tuple[Path, Path]:
    """The run `name` and its bundle, made by the first worker that asks (the others wait on a lock)."""
    import fcntl

    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / f"{name}.done"
        if not done.is_file():
            _submit(root, name, extra)
            done.write_text("")
    return root / f"run-{name}", root / f"{name}.tar.gz"


@pytest.fixture(scope="session")
def submitted(submit_root):
    """(run directory, bundle) of a greedy tiny-model run of examples/reference_sft.py, seed 0."""
    return _once(submit_root, "greedy", [])


@pytest.fixture(scope="session")
def tiny_model(submitted, submit_root):
    """The tiny base model's spec (hf:PATH): the bundles name it by its folder's name and sha256."""
    return f"hf:{submit_root / 'tiny'}"


@pytest.fixture(scope="session")
def submitted_sampled(submit_root, submitted):
    """(run directory, bundle) of the same run with sampled decoding: 2 samples a task at temperature 0.7."""
    return _once(submit_root, "sampled", ["--set", "rollout.n=2", "--set", "rollout.temperature=0.7"])


@pytest.fixture(scope="session")
def shared_work(tmp_path_factory):
    """A work folder that verifications share: the seed's instance is rebuilt there once."""
    return tmp_path_factory.mktemp("verify-work")


@pytest.fixture(scope="session")
def rebuilt_tests(submitted, shared_work) -> Callable[[str], dict]:
    """split -> {task id: task} of the greedy bundle's rebuilt test split (rebuilt in shared_work)."""
    from sebench.submit import read_bundle
    from sebench.submit.verify import rebuild

    data = rebuild(read_bundle(submitted[1]), shared_work)

    def tasks(split: str) -> dict:
        lines = (data / "datasets/test" / f"{split}.jsonl").read_text().splitlines()
        return {t["task_id"]: t for t in map(json.loads, lines)}
    return tasks


def _jsonl(records: list[dict]) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


class Forger:
    """Changed bundles made with sebench's own packer (`repack`: rows, card and index made again)."""

    def __init__(self, bundle: Path, out: Path, data: Path | None = None):
        self.bundle, self.out, self.data = bundle, out, data

    def members(self) -> dict[str, bytes]:
        from sebench.submit import read_bundle

        return dict(read_bundle(self.bundle).members)

    def repack(self, members: dict[str, bytes], name: str = "forged.tar.gz") -> Path:
        return repack(members, self.out / name)

    def edit_json(self, members: dict[str, bytes], name: str, change: Callable[[dict], None]) -> None:
        value = json.loads(members[name])
        change(value)
        members[name] = json.dumps(value).encode()

    def answer(self, members: dict[str, bytes], folder: str, answer: Callable[[dict], str | None]) -> None:
        """Every answer of evals/<folder> whose `answer(rollout)` is not None replaced by it (its code extracted
        again), and judged again (by sebench's own judge against the rebuilt tasks), as a forger who knows the
        tasks would."""
        from sebench.answers import extract_code
        from sebench.judge import judge_records
        from sebench.records import Rollout, from_dict

        rollouts = [json.loads(line) for line in members[f"evals/{folder}/rollouts.jsonl"].decode().split("\n") if line]
        for r in rollouts:
            r["response"] = answer(r) if answer(r) is not None else r["response"]
            r["code"] = extract_code(r["response"])  # as the rollout stage records it
        judged = judge_records(self.data, [from_dict(Rollout, {**r, "prompt": None}, "x") for r in rollouts], 1)
        verdicts = [{**dataclasses.asdict(v), "detail": {}} for v in judged]
        members[f"evals/{folder}/rollouts.jsonl"] = _jsonl(rollouts)
        members[f"evals/{folder}/verdicts.jsonl"] = _jsonl(verdicts)


@pytest.fixture()
def forge(submitted, shared_work, tmp_path, rebuilt_tests) -> Forger:
    from sebench.submit import read_bundle
    from sebench.submit.verify import rebuilt_dir

    bundle = read_bundle(submitted[1])
    return Forger(submitted[1], tmp_path, rebuilt_dir(bundle, shared_work) / bundle.manifest.get("data", "data"))

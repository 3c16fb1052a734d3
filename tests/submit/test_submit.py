"""A real run of the tiny model with a method from a file, packed with `sebench submit`: its bundle is re-judged and
holds nothing of the test split and no folder of this machine; one changed member fails verification naming it;
`--rerun` reproduces the greedy run task for task; `--rerun --seeds-file` gives a result on a seed the bundle does
not hold."""

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from sebench.cli import main
from sebench.files import file_sha256, tree_sha256
from sebench.submit import read_bundle
from sebench.submit.bundle import INDEX, pack
from sebench.submit.rerun import EQUAL
from sebench.submit.verify import STEPS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LABEL = "ReferenceSFT"


def test_a_runs_bundle_verifies_and_holds_nothing_of_the_test_split(submitted, capsys, shared_work, tmp_path):
    run, bundle = submitted
    assert main(["verify", str(bundle), "--work", str(shared_work), "--store", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[0].startswith("re-judged: ")
    record = json.loads((tmp_path / f"{file_sha256(bundle)}.json").read_text())
    assert record["verified"] and record["checked"] == list(STEPS) and record["level"] == "re-judged"
    members = read_bundle(bundle).members
    assert {"card.md", "lock.txt", "method/source/reference_sft.py", "run/manifest.json", "report/rows.json",
            f"evals/{LABEL}/closed/single_test/rollouts.jsonl", "evals/untrained/closed/single_test/verdicts.jsonl",
            } <= set(members)
    text = "\n".join(b.decode() for b in members.values())
    tasks = [json.loads(line) for split in ("single_test", "multiple_test")
             for line in (run / "data/datasets/test" / f"{split}.jsonl").read_text().splitlines()]
    assert tasks and not [t["task_id"] for t in tasks if t["query"] in text or t["function_name"] in text]
    private = [str(run.parent), str(EXAMPLES.parent), str(Path.home())]  # no folder of this machine
    assert not [(n, p) for n, b in members.items() for p in private if p.encode() in b]
    assert read_bundle(bundle).submission["base_model"] == "hf:tiny"
    assert read_bundle(bundle).submission["base_model_sha256"] == tree_sha256(run.parent / "tiny")
    card = members["card.md"].decode()
    assert "- [x] eligible" in card and "- [x] no refused reads: none" in card and "1 sample a task, greedy" in card


def _forge(bundle: Path, out: Path, name: str, change, reindex: bool = True) -> Path:
    """The bundle with member `name` changed; its index rewritten to match unless `reindex` is False."""
    members = dict(read_bundle(bundle).members)
    index = json.loads(members.pop(INDEX))
    members[name] = change(members[name])
    if reindex:
        pack(members, index["label"], out)
    else:
        pack(members, index["label"], out)
        members = dict(read_bundle(out).members)  # put back the original index: the member no longer matches it
        members.pop(INDEX)
        _pack_with_index(members, index, out)
    return out


def _pack_with_index(members: dict, index: dict, out: Path) -> None:
    import gzip
    import io
    import tarfile

    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        for name, data in [(INDEX, json.dumps(index).encode()), *sorted(members.items())]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out.write_bytes(buffer.getvalue())


def _first_line_changed(fn):
    def change(data: bytes) -> bytes:
        lines = data.decode().splitlines()
        lines[0] = json.dumps(fn(json.loads(lines[0])))
        return ("\n".join(lines) + "\n").encode()
    return change


def _manifest_hash(data: bytes) -> bytes:
    manifest = json.loads(data)
    manifest["data_hashes"]["datasets/test/single_test.jsonl"] = "0" * 64
    return json.dumps(manifest).encode()


SPLIT = f"evals/{LABEL}/closed/single_test"
FORGERIES = {
    "rollout": (f"{SPLIT}/rollouts.jsonl", _first_line_changed(lambda r: {**r, "response": "```python\nprint(1)\n```",
                                                                             "code": "print(1)\n"}),
                [f"{SPLIT}/rollouts.jsonl", f"{SPLIT}/verdicts.jsonl", "task single_test-0000 sample 0"]),
    "verdict": (f"{SPLIT}/verdicts.jsonl", _first_line_changed(lambda v: {**v, "verdict": "correct", "tests_passed": 10}),
                [f"{SPLIT}/verdicts.jsonl", "task single_test-0000 sample 0"]),
    "manifest hash": ("run/manifest.json", _manifest_hash,
                      ["run/manifest.json", "data_hashes['datasets/test/single_test.jsonl']"]),
    "source file": ("method/source/reference_sft.py", lambda b: b + b"\n# changed\n",
                    ["method/source/reference_sft.py", "source_sha256"]),
}


@pytest.mark.parametrize("what", list(FORGERIES))
def test_a_bundle_with_one_changed_member_fails_naming_it(submitted, tmp_path, capsys, what, shared_work):
    name, change, named = FORGERIES[what]
    forged = _forge(submitted[1], tmp_path / "forged.tar.gz", name, change)
    assert main(["verify", str(forged), "--work", str(shared_work), "--store", str(tmp_path)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith("mismatch: ") and all(part in out for part in named), out
    assert json.loads((tmp_path / f"{file_sha256(forged)}.json").read_text())["level"] == "fails"


def test_an_unreadable_member_is_one_line_and_exit_2(submitted, tmp_path, capsys, shared_work):
    forged = _forge(submitted[1], tmp_path / "forged.tar.gz", f"{SPLIT}/verdicts.jsonl", lambda b: b"{not json\n" + b)
    assert main(["verify", str(forged), "--work", str(shared_work), "--store", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{SPLIT}/verdicts.jsonl:1: not valid JSON" in err, err


def test_a_member_changed_without_its_index_fails_at_the_index(submitted, tmp_path, capsys):
    forged = _forge(submitted[1], tmp_path / "forged.tar.gz", "lock.txt", lambda b: b + b"extra==1\n", reindex=False)
    assert main(["verify", str(forged), "--store", str(tmp_path)]) == 1
    assert "mismatch: lock.txt: its sha256 is not the one bundle.json lists" in capsys.readouterr().out


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 30-60 s: a second study
def test_rerun_reproduces_the_greedy_run_task_for_task(submitted, tmp_path, capsys, tiny_model):
    assert main(["verify", str(submitted[1]), "--rerun", "--work", str(tmp_path / "work"),
                 "--store", str(tmp_path), "--model", tiny_model]) == 0
    record = json.loads((tmp_path / f"{file_sha256(submitted[1])}.json").read_text())
    assert record["level"] == "reproduced"
    rerun = record["rerun"]
    assert rerun["rule"] == EQUAL and rerun["reproduced"] and rerun["mismatch"] is None
    again = (tmp_path / "work/runs/rerun" / SPLIT / "verdicts.jsonl").read_text().splitlines()
    kept = {(v["task_id"], v["verdict"]) for v in read_bundle(submitted[1]).lines(f"{SPLIT}/verdicts.jsonl")}
    assert {(json.loads(v)["task_id"], json.loads(v)["verdict"]) for v in again} == kept
    assert capsys.readouterr().out.startswith(f"reproduced: {EQUAL}\nre-judged: ")


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 30-60 s: a study on another seed
def test_rerun_on_held_out_seeds_gives_a_result_on_an_unseen_seed(submitted, tmp_path, capsys, tiny_model):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# kept secret\n0\n")
    assert main(["verify", str(submitted[1]), "--rerun", "--seeds-file", str(seeds)]) == 2
    assert "seed 0 is the bundle's own seed" in capsys.readouterr().err
    seeds.write_text("# kept secret\n3\n")
    assert main(["verify", str(submitted[1]), "--rerun", "--seeds-file", str(seeds), "--work", str(tmp_path / "w"),
                 "--store", str(tmp_path), "--model", tiny_model]) == 0
    held = json.loads((tmp_path / f"{file_sha256(submitted[1])}.json").read_text())["held_out"]
    assert held["seeds"] == 1 and not _keys({"seed", "runs", "run"}, held)  # the seeds themselves stay secret
    rows = {(r["regime"], r["split"]): r for r in held["rows"]}
    assert rows[(LABEL, "single_test")]["n"] > 0 and rows[("untrained", "single_test")]["n"] > 0
    assert not (tmp_path / "w/runs/seed-3/instance/datasets/test").exists()  # gone before another seed's method
    seed3 = json.loads((tmp_path / "w/runs/seed-3/manifest.json").read_text())
    assert seed3["seed"] == 3 and seed3["data_hashes"] != read_bundle(submitted[1]).json("run/manifest.json")["data_hashes"]


def _keys(names: set[str], value: object) -> set[str]:
    """Which of `names` are keys anywhere in `value`."""
    if isinstance(value, dict):
        return (names & set(value)) | {k for v in value.values() for k in _keys(names, v)}
    return {k for v in value for k in _keys(names, v)} if isinstance(value, list) else set()


def test_verify_errors_are_one_line(tmp_path, capsys):
    not_bundle = tmp_path / "x.tar.gz"
    not_bundle.write_text("hello")
    for argv in (["verify", str(tmp_path / "missing.tar.gz")], ["verify", str(not_bundle)],
                 ["submit", str(tmp_path), "--method", "M", "--out", str(tmp_path / "b.tar.gz")]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_leaderboard_refuses_a_path_that_is_no_file_and_writes_nothing(tmp_path, capsys):
    """A mistyped bundle path or a run directory given as a bundle is one line, exit 2, and no board; a file that
    is not a bundle is listed as failing (test_leaderboard.py)."""
    for path in (tmp_path / "missing.tar.gz", tmp_path):
        out = tmp_path / "board"
        assert main(["leaderboard", str(path), "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and str(path) in err and "Traceback" not in err, err
        assert not out.exists()


@pytest.mark.parametrize("record, says", [
    ('{"spec": 5, "origin": "file"}', "method.json: field 'spec': expected str, got int"),
    ('{"origin": "file"}', "method.json: field 'spec': missing"),
    ('{"spec": "closed-sft", "origin": "built-in", "cost": {"wall_seconds": "x"}}',
     "method.json: field 'cost.wall_seconds': expected a number"),
])
def test_submit_names_the_field_of_a_broken_method_record(tmp_path, capsys, record, says):
    """A method.json with a field of the wrong type or none is one line naming the file and the field, exit 2."""
    (tmp_path / "run/train/M").mkdir(parents=True)
    (tmp_path / "run/manifest.json").write_text('{"config": {}}', encoding="utf-8")
    (tmp_path / "run/train/M/method.json").write_text(record, encoding="utf-8")
    assert main(["submit", str(tmp_path / "run"), "--method", "M", "--out", str(tmp_path / "b.tar.gz")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err and "Traceback" not in err, err
    assert not (tmp_path / "b.tar.gz").exists()


def test_verify_of_a_run_directory_says_how_to_make_a_bundle(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a directory, not a bundle; `sebench submit RUN_DIR" in err, err

"""Forged bundles, each made with sebench's own packer (every hash, the rows and the card made again), caught at
the level docs/leaderboard.md promises: re-judged catches what the bundle's own contents contradict (missing
answers, a description that is not the records', rows that are not the verdicts'); only reproduced catches
answers that are judged right but are not the method's (replaced answers, a changed baseline, a sampled claim)."""

import json
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.submit import read_bundle
from sebench.submit.bundle import pack

LABEL = "ReferenceSFT"
SINGLE = f"evals/{LABEL}/closed/single_test"
BASE_SINGLE = "evals/untrained/closed/single_test"


def verify(bundle: Path, work: Path, store: Path, capsys, *extra: str) -> tuple[int, list[str]]:
    code = main(["verify", str(bundle), "--work", str(work), "--store", str(store), *extra])
    return code, capsys.readouterr().out.strip().splitlines()


def reference(tasks):
    return lambda rollout: f"```python\n{tasks[rollout['task_id']]['reference_solution']}\n```"


# ---- caught at re-judged ---------------------------------------------------------------------------------


def test_the_honest_greedy_bundle_is_re_judged(submitted, shared_work, tmp_path, capsys):
    code, out = verify(submitted[1], shared_work, tmp_path, capsys)
    assert code == 0 and out[0].startswith("re-judged: ") and "rest on the submitter" in out[0]
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert record["level"] == "re-judged" and record["answers"] == sum(
        len(read_bundle(submitted[1]).lines(n)) for n in read_bundle(submitted[1]).eval_files("rollouts"))
    assert not Path(f"{submitted[1]}.verify.json").exists()  # nothing is written beside the bundle


def test_wrong_answers_dropped_are_missing_answers(forge, rebuilt_tests, shared_work, tmp_path, capsys):
    members = forge.members()
    tasks = rebuilt_tests("single_test")
    keep = sorted(tasks)[:2]
    forge.answer(members, f"{LABEL}/closed/single_test",
                 lambda r: reference(tasks)(r) if r["task_id"] in keep else None)
    for kind in ("rollouts", "verdicts"):  # only the two right answers are kept: 2/2
        lines = [line for line in members[f"{SINGLE}/{kind}.jsonl"].decode().splitlines()
                 if json.loads(line)["task_id"] in keep]
        members[f"{SINGLE}/{kind}.jsonl"] = ("\n".join(lines) + "\n").encode()
    forged = forge.repack(members)
    rows = read_bundle(forged).rows
    assert next(r for r in rows if r["regime"] == LABEL and r["split"] == "single_test")["accuracy"] == 1.0
    code, out = verify(forged, shared_work, tmp_path / "store", capsys)
    missing = sorted(tasks)[2]
    assert code == 1 and out == [f"mismatch: {SINGLE}/rollouts.jsonl: task {missing}: samples [], but the run's "
                                 "decoding calls for 1 (0..0)"]


SUBMISSION_FORGERIES = {  # field of submission.json -> the forged value
    "base_model": "Qwen3-8B", "preset": "paper", "seed": 1, "protocol": "original",
    "decoding": {"n": 1, "temperature": 0.7, "max_tokens": 12},
}


@pytest.mark.parametrize("field", list(SUBMISSION_FORGERIES))
def test_a_description_that_is_not_the_records_fails_naming_the_field(forge, shared_work, tmp_path, capsys, field):
    members = forge.members()
    forge.edit_json(members, "submission.json", lambda s: s.update({field: SUBMISSION_FORGERIES[field]}))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1 and out[0].startswith(f"mismatch: submission.json: {field} "), out


def test_a_changed_isolation_wall_time_or_card_fails_naming_it(forge, shared_work, tmp_path, capsys):
    members = forge.members()
    forge.edit_json(members, "method/method.json", lambda m: m.update(isolation="landlock"))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out[0].startswith("mismatch: method/method.json: isolation 'landlock' is not the run "
                                           "manifest's 'bwrap'"), out
    members = forge.members()
    forge.edit_json(members, "method/method.json", lambda m: m["cost"].update(wall_seconds=1.0))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out[0].startswith(f"mismatch: method/method.json: cost.wall_seconds 1.0 is not the run "
                                           f"manifest's stage train:{LABEL}"), out
    members = forge.members()
    members.pop("bundle.json")
    card = members["card.md"].decode().replace("base model: `hf:tiny`", "base model: `Qwen3-8B`")
    members["card.md"] = card.encode()
    pack(members, LABEL, tmp_path / "card.tar.gz")
    code, out = verify(tmp_path / "card.tar.gz", shared_work, tmp_path, capsys)
    assert code == 1 and out[0].startswith("mismatch: card.md:4: base model is not what the run's records give"), out


def test_edited_rows_and_a_stale_interval_fail(forge, shared_work, tmp_path, capsys):
    for name, change, field in (("edited", lambda r: r.update(accuracy=0.9), "accuracy"),
                                ("stale", lambda r: r.update(ci95=[r["ci95"][0] + 0.01, r["ci95"][1]]), "ci95[0]")):
        members = forge.members()
        members.pop("bundle.json")
        rows = json.loads(members["report/rows.json"])
        change(next(r for r in rows if r["regime"] == LABEL and r["split"] == "single_test"))
        members["report/rows.json"] = json.dumps(rows).encode()
        pack(members, LABEL, tmp_path / f"{name}.tar.gz")  # sebench's packer: the index matches
        code, out = verify(tmp_path / f"{name}.tar.gz", shared_work, tmp_path, capsys)
        assert code == 1 and out[0].startswith(f"mismatch: report/rows.json: row {LABEL} closed single_test "
                                               f"sebench: {field} is "), out


# ---- passing re-judged, which does not prove the answers are the method's --------------------------------


def test_answers_replaced_by_reference_solutions_pass_only_re_judged(forge, rebuilt_tests, shared_work, tmp_path,
                                                                      capsys):
    members = forge.members()
    forge.answer(members, f"{LABEL}/closed/single_test", reference(rebuilt_tests("single_test")))
    forged = forge.repack(members)
    code, out = verify(forged, shared_work, tmp_path, capsys)
    assert code == 0 and out[0].startswith("re-judged: ") and "rest on the submitter" in out[0]
    rows = read_bundle(forged).rows
    assert next(r for r in rows if r["regime"] == LABEL and r["split"] == "single_test")["accuracy"] == 1.0


# ---- caught at reproduced (a re-run trains the method again: slow) ---------------------------------------


@pytest.fixture(scope="module")
def honest_rerun(submitted, tiny_model, tmp_path_factory):
    """The honest bundle's re-run study (its run directory)."""
    from sebench.submit.rerun import extract_sources, run_study

    bundle, work = read_bundle(submitted[1]), tmp_path_factory.mktemp("rerun")
    return run_study(bundle, extract_sources(bundle, work / "source"), work / "runs/rerun", 0, tiny_model)


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 30-60 s: the method trained again
def test_answers_replaced_or_a_changed_baseline_are_not_reproduced(forge, rebuilt_tests, honest_rerun, submitted):
    from sebench.submit.rerun import EQUAL, compare_rerun

    honest = compare_rerun(read_bundle(submitted[1]), honest_rerun)
    assert honest["rule"] == EQUAL and honest["reproduced"], honest
    for folder in (f"{LABEL}/closed/single_test", "untrained/closed/single_test"):
        members = forge.members()
        forge.answer(members, folder, reference(rebuilt_tests("single_test")))
        outcome = compare_rerun(read_bundle(forge.repack(members)), honest_rerun)
        assert not outcome["reproduced"] and outcome["mismatch"].startswith(f"evals/{folder}/verdicts.jsonl: task ")


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 40-80 s: the forged bundle's method trained again
def test_rerun_of_a_forged_bundle_does_not_print_reproduced_first(forge, rebuilt_tests, shared_work, tmp_path, capsys,
                                                                  tiny_model):
    members = forge.members()
    forge.answer(members, f"{LABEL}/closed/single_test", reference(rebuilt_tests("single_test")))
    code, out = verify(forge.repack(members), tmp_path / "w", tmp_path / "store", capsys, "--rerun", "--model",
                       tiny_model)
    assert code == 1 and out[0].startswith("not reproduced (equal per task"), out
    assert out[1].startswith("re-judged: ")


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 40-80 s: a re-run at temperature 0.7
def test_a_sampled_claim_with_replaced_answers_is_not_reproduced(forge, rebuilt_tests, tmp_path, capsys, tiny_model):
    from sebench.submit.rerun import SIGN_FLIP

    members = forge.members()
    forge.answer(members, f"{LABEL}/closed/single_test", reference(rebuilt_tests("single_test")))
    sampled = {"n": 1, "temperature": 0.7, "max_tokens": 12}
    forge.edit_json(members, "run/manifest.json", lambda m: m["config"]["rollout"].update(temperature=0.7))
    forge.edit_json(members, "submission.json", lambda s: s.update(decoding=sampled))
    forged = forge.repack(members)
    code, out = verify(forged, tmp_path / "w", tmp_path / "store", capsys, "--rerun", "--model", tiny_model)
    assert code == 1 and out[0].startswith(f"not reproduced ({SIGN_FLIP}): {SINGLE}/verdicts.jsonl: accuracy 1.000"), out


@pytest.mark.timeout(1200)
@pytest.mark.slow  # 60-120 s: a sampled run and its re-run
def test_an_honest_sampled_bundle_passes_every_level(submitted_sampled, tmp_path, capsys, tiny_model):
    from sebench.submit.rerun import SIGN_FLIP

    code, out = verify(submitted_sampled[1], tmp_path / "w", tmp_path / "store", capsys, "--rerun", "--model",
                       tiny_model)
    assert code == 0 and out[0] == f"reproduced: {SIGN_FLIP}", out
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("5\n")
    code, out = verify(submitted_sampled[1], tmp_path / "w2", tmp_path / "store", capsys, "--rerun", "--model",
                       tiny_model, "--seeds-file", str(seeds))
    assert code == 0 and out[0].startswith("held-out (1 seed): ")
    record = json.loads(next((tmp_path / "store").glob("*.json")).read_text())
    assert record["level"] == "held-out"

"""Forgeries beyond test_forgeries.py: records whose values are not what the board can show (a cost that is a
string or not finite, NaN and Infinity in any JSON member), settings that make the verifier's own work unbounded
(a judge time limit or an instance size from the bundle), and texts that hide or reverse what the page shows
(bidirectional overrides, zero-width characters)."""

import json
import math
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.submit.entry import Cell, Entry
from sebench.submit.page import html_page, markdown_table, plot, visible
from sebench.submit.safe import BundleError, parse_json

LABEL = "ReferenceSFT"


def verify(bundle: Path, work: Path, store: Path, capsys) -> tuple[int, list[str]]:
    code = main(["verify", str(bundle), "--work", str(work), "--store", str(store)])
    captured = capsys.readouterr()
    return code, (captured.out + captured.err).strip().splitlines()


# ---- values the board cannot show ------------------------------------------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_constants_that_are_no_numbers_are_refused(constant):
    with pytest.raises(BundleError, match="not a finite number"):
        parse_json(f'{{"cost": {{"wall_seconds": {constant}}}}}', "method/method.json")


def test_an_infinite_wall_time_is_one_line_and_exit_2(forge, shared_work, tmp_path, capsys):
    members = forge.members()  # Infinity in both records: their difference is NaN, which no threshold catches
    forge.edit_json(members, "method/method.json", lambda m: m["cost"].update(wall_seconds=math.inf))
    forge.edit_json(members, "run/manifest.json", lambda m: m["stages"][f"train:{LABEL}"].update(seconds=math.inf))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 2 and len(out) == 1 and "not a finite number" in out[0], out


@pytest.mark.parametrize("value", ["5", [5], -3, True])
def test_a_cost_that_is_not_a_count_fails_naming_it(forge, shared_work, tmp_path, capsys, value):
    members = forge.members()
    forge.edit_json(members, "method/method.json", lambda m: m["cost"].update(tokens_sampled=value))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == [f"mismatch: method/method.json: cost.tokens_sampled {value!r} is not a "
                                 "non-negative number"], out


def test_the_plot_leaves_out_a_wall_time_it_cannot_place():
    entries = [Entry(name, "m", "quick", "0", {"single_test": Cell(0.5, (0.4, 0.6))}, {"wall_seconds": wall})
               for name, wall in (("text", "5"), ("infinite", math.inf), ("nan", math.nan), ("listed", [1]),
                                  ("fine", 10.0))]
    svg = plot(entries)
    assert "fine" in svg and not any(f">{n} (" in svg for n in ("text", "infinite", "nan", "listed"))


# ---- the verifier's own work, bounded --------------------------------------------------------------------


@pytest.mark.parametrize(("setting", "value"), [("judge.timeout", 1e6), ("judge.memory_mb", 10**6),
                                                ("build_train", 10**8), ("build_single", 10**7),
                                                ("max_train", 10**9), ("max_multiple", 10**9), ("rollout.n", 10**12),
                                                ("rollout.max_tokens", 10**9), ("source_samples", 10**9),
                                                ("rollout.max_searches", 10**9)])
def test_settings_that_would_make_verify_unbounded_are_refused(forge, shared_work, tmp_path, capsys, setting, value):
    """The rebuild generates a studied subset's tasks anew, as many as max_* asks (a training variant repeats with
    fresh inputs), the answers step lists the samples 0..n-1 of every task, and a re-run generates max_tokens a
    sample, source_samples a training task and max_searches generations a retrieval task: each bounded by a cap."""
    members = forge.members()

    def change(manifest: dict) -> None:
        section, _, name = setting.rpartition(".")
        (manifest["config"][section] if section else manifest["config"])[name] = value
    forge.edit_json(members, "run/manifest.json", change)
    if setting in ("rollout.n", "rollout.max_tokens"):  # the decoding submission.json describes, as the records say
        forge.edit_json(members, "submission.json", lambda s: s["decoding"].update({setting.partition(".")[2]: value}))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1, out
    assert out[0].startswith(f"mismatch: run/manifest.json: {setting} {value!r} is over the verifier's cap of "), out


# ---- texts that hide or reverse what is shown ------------------------------------------------------------


SPOOF = "Qwen3-8B\u202eTFS-desolC\u200b\u2066"


def test_format_characters_are_shown_not_obeyed():
    assert visible(SPOOF) == "Qwen3-8B\\u202eTFS-desolC\\u200b\\u2066"
    entry = Entry("m", SPOOF, SPOOF, "0", {"single_test": Cell(0.5, (0.4, 0.6))}, {"wall_seconds": 10.0},
                  level="re-judged")
    for text in (html_page([entry]), markdown_table([entry])):
        assert not any(c in text for c in "\u202e\u200b\u2066")
        assert not any(ref in text for ref in ("&#8238;", "&#8203;", "&#8294;"))  # nor as references


# ---- verdict fields the rows are keyed by --------------------------------------------------------------


def test_a_verdict_whose_protocol_is_not_the_rejudged_one_fails(forge, shared_work, tmp_path, capsys):
    """The rows are keyed by the verdicts' protocol: the untrained model's answers marked "original" leave the
    method's rows without their paired difference (Δ) unless the re-judged protocol is compared."""
    members = forge.members()
    name = "evals/untrained/closed/single_test/verdicts.jsonl"
    lines = [json.loads(line) for line in members[name].decode().splitlines() if line.strip()]
    members[name] = "".join(json.dumps({**v, "protocol": "original"}) + "\n" for v in lines).encode()
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1 and "re-judged protocol 'sebench'" in out[0], out


# ---- the store ----------------------------------------------------------------------------------------------


def test_a_store_record_made_under_other_rules_is_made_again(forge, tmp_path):
    """A record that says "verified; re-run reproduced" for these very bytes, but made by other code (an older
    sebench, or planted in the cache folder), is not trusted: the board verifies the bundle again."""
    from sebench.files import file_sha256
    from sebench.submit.leaderboard import leaderboard_rows
    from sebench.submit.verify import record_path

    members = forge.members()
    forge.edit_json(members, "submission.json", lambda s: s.update(base_model="Qwen3-8B"))
    forged = forge.repack(members)
    digest, store = file_sha256(forged), tmp_path / "store"
    store.mkdir()
    planted = {"bundle": str(forged), "bundle_sha256": digest, "label": LABEL, "verified": True, "mismatch": None,
               "rerun": {"reproduced": True, "rule": "equal", "mismatch": None, "rows": []}, "held_out": None}
    record_path(store, digest).write_text(json.dumps(planted))
    entry = next(e for e in leaderboard_rows([forged], store) if e.source == forged.name)
    assert entry.level == "fails" and "submission.json: base_model" in entry.marks["fails"]
    from sebench.submit.verify import rules

    assert json.loads(record_path(store, digest).read_text())["rules"] == rules()


# ---- ranking only what was measured on the same benchmark --------------------------------------------------


def test_entries_of_other_settings_are_not_ranked_together():
    """An entry measured on a smaller or otherwise changed instance, or with other decoding, is not in the bands
    of the preset's own entries, though its base model is the same."""
    from sebench.submit.leaderboard import rank

    easy = Entry("easy", "m", "quick (changed: functions)", "0", {"single_test": Cell(0.9, (0.8, 1.0))},
                 level="reproduced", group="easy")
    own = [Entry(name, "m", "quick", "0", {"single_test": Cell(acc, (acc - 0.05, acc + 0.05))}, level="reproduced",
                 group="quick") for name, acc in (("a", 0.5), ("b", 0.2))]
    assert {e.method: e.band for e in rank([easy, *own])} == {"easy": 1, "a": 1, "b": 2}


def test_the_board_names_the_settings_a_run_changed_from_its_preset(submitted):
    from sebench.submit import read_bundle
    from sebench.submit.crosscheck import changed_settings

    changed = changed_settings(read_bundle(submitted[1]))  # the tests' small run: --functions 6 and more
    assert {"functions", "max_single", "rollout.max_tokens"} <= set(changed), changed
    entries = Path(__file__).resolve().parents[2] / "docs" / "leaderboard" / "entries"
    assert all(changed_settings(read_bundle(b)) == [] for b in entries.glob("*.tar.gz"))


# ---- the re-run: no server a bundle names, no method but the bundled one -----------------------------------


SERVERS = {  # a setting of the bundle's run -> where a re-run would send the verifier's key and the test tasks
    "rollout.base_url": "https://collector.example/v1", "rollout.api_key_env": "HF_TOKEN",
    "judge.sandbox_url": "https://collector.example", "train.vllm_server": "https://collector.example",
    "model": "openai:Qwen3-8B@https://collector.example/v1"}


@pytest.mark.parametrize("setting", list(SERVERS))
def test_a_rerun_refuses_a_bundle_that_names_a_server_or_a_key(forge, tmp_path, tiny_model, setting):
    from sebench.errors import SebenchError
    from sebench.submit.rerun import rerun_bundle

    members = forge.members()

    def change(manifest: dict) -> None:
        section, _, name = setting.rpartition(".")
        (manifest["config"][section] if section else manifest["config"])[name] = SERVERS[setting]
    forge.edit_json(members, "run/manifest.json", change)
    with pytest.raises(SebenchError, match=r"names a server or a key|served over HTTP"):
        rerun_bundle(forge.repack(members), tmp_path / "work", model=tiny_model)
    assert not (tmp_path / "work" / "runs").exists()  # refused before anything ran


def test_a_rerun_refuses_method_arguments_that_name_a_server(forge, tmp_path, tiny_model):
    from sebench.errors import SebenchError
    from sebench.submit.rerun import rerun_bundle

    members = forge.members()
    for name in ("submission.json", "method/method.json"):  # the two records agree: verify's check passes
        forge.edit_json(members, name, lambda r: r["args"].update(endpoint="https://collector.example/v1",
                                                                   endpoint_key="HF_TOKEN"))
    with pytest.raises(SebenchError, match=r"args\.endpoint"):
        rerun_bundle(forge.repack(members), tmp_path / "work", model=tiny_model)


def test_the_rerun_trains_the_bundled_method_whatever_its_arguments_name(forge, tmp_path):
    """Arguments holding "method" (the key that names a method's spec) cannot swap in another method, such as a
    built-in whose answers the bundle carries under a label of its own."""
    from sebench.submit import read_bundle
    from sebench.submit.rerun import ENTRY_FILE, extract_sources, rerun_config

    members = forge.members()
    for name in ("submission.json", "method/method.json"):
        forge.edit_json(members, name, lambda r: r["args"].update(method="closed-sft"))
    bundle = read_bundle(forge.repack(members))
    source = extract_sources(bundle, tmp_path / "source")
    entry = rerun_config(bundle, source, 0).methods[LABEL]["method"]
    assert entry.startswith(str(source)) and entry.endswith(":" + LABEL) and ENTRY_FILE not in entry


# ---- the folder the answers are judged in ------------------------------------------------------------------


def test_answers_are_judged_in_the_rebuilt_instance_not_a_folder_the_manifest_names(
        forge, rebuilt_tests, shared_work, tmp_path, capsys):
    """The manifest's `data` named the folder the answers were checked and judged in, while the data hashes were
    checked against the rebuilt instance: pointed at another instance beside it in the work folder (here one
    with two single-function tasks), two right answers passed as 2/2."""
    import shutil

    from sebench.submit import read_bundle
    from sebench.submit.verify import rebuilt_dir

    bundle = read_bundle(forge.bundle)
    real = rebuilt_dir(bundle, shared_work)
    easy = real.parent / "rebuilt-easier"
    shutil.rmtree(easy, ignore_errors=True)
    shutil.copytree(real / "data", easy / "data")
    tasks = rebuilt_tests("single_test")
    keep = sorted(tasks)[:2]
    (easy / "data/datasets/test/single_test.jsonl").write_text("".join(json.dumps(tasks[t]) + "\n" for t in keep))
    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: m.update(data="../rebuilt-easier/data"))
    for single, kind in [(f"evals/{who}/closed/single_test", kind) for who in (LABEL, "untrained")
                         for kind in ("rollouts", "verdicts")]:
        lines = [line for line in members[f"{single}/{kind}.jsonl"].decode().splitlines()
                 if json.loads(line)["task_id"] in keep]
        members[f"{single}/{kind}.jsonl"] = ("\n".join(lines) + "\n").encode()
    forge.data = easy / "data"
    forge.answer(members, f"{LABEL}/closed/single_test",
                 lambda r: f"```python\n{tasks[r['task_id']]['reference_solution']}\n```")
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == ["mismatch: run/manifest.json: data '../rebuilt-easier/data' is not the rebuilt "
                                 "instance's folder 'data'"], out


# ---- one bad bundle does not stop the board -----------------------------------------------------------------


def test_a_bundle_the_verifier_cannot_rebuild_fails_alone_on_the_board(forge, tmp_path):
    """A setting this sebench refuses when it rebuilds the instance is an error of that bundle (one line, exit 2
    in `sebench verify`); on the board it is that entry's failure, and the other entries are still shown."""
    from sebench.submit.leaderboard import leaderboard_rows

    members = forge.members()
    for name in ("run/manifest.json", "submission.json"):
        forge.edit_json(members, name, lambda r: (r.get("config") or r).update(protocol="nope"))
    forged = forge.repack(members)
    entry = next(e for e in leaderboard_rows([forged], tmp_path / "store") if e.source == forged.name)
    assert entry.level == "fails" and "nope" in entry.marks["fails"], entry.marks


# ---- a rollout's own description --------------------------------------------------------------------------


def test_a_rollout_is_judged_in_its_folders_mode(forge, shared_work, tmp_path, capsys):
    """A rollout's `mode` chose the judge's library: closed-book answers marked "numpy" were judged with real
    NumPy (answers written against NumPy itself pass), while the board shows them in the closed-book row, which
    the folder names."""
    members = forge.members()
    folder = f"{LABEL}/closed/single_test"
    lines = [json.loads(line) for line in members[f"evals/{folder}/rollouts.jsonl"].decode().splitlines()]
    members[f"evals/{folder}/rollouts.jsonl"] = "".join(json.dumps({**r, "mode": "numpy"}) + "\n" for r in lines).encode()
    forge.answer(members, folder, lambda r: None)  # judged again as the forger marked them: the verdicts agree
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == [f"mismatch: evals/{folder}/rollouts.jsonl:1: mode 'numpy' is not its folder's "
                                 "'closed'"], out

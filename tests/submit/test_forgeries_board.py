"""Forgeries aimed at the answers step's count and at the board: answers files outside the folders the answers
step counts (judged, never counted: the verifier's work unbounded), a folder without its verdicts, a label that is
no text, a judge's limit below 0, wall times the plot cannot place, one result listed twice, and ties ordered by
the order the bundles were given."""

import json
import shutil
from pathlib import Path

import bundle_packing
import pytest

from sebench.cli import main
from sebench.submit.entry import Cell, Entry
from sebench.submit.page import plot

LABEL = "ReferenceSFT"
SINGLE = f"evals/{LABEL}/closed/single_test"


def verify(bundle: Path, work: Path, store: Path, capsys) -> tuple[int, list[str]]:
    code = main(["verify", str(bundle), "--work", str(work), "--store", str(store)])
    captured = capsys.readouterr()
    return code, (captured.out + captured.err).strip().splitlines()


def relabelled(members: dict[str, bytes], label: object) -> dict[str, bytes]:
    return bundle_packing.relabelled(members, LABEL, label)


# ---- the answers step counts what the verdicts step judges ----------------------------------------------------


@pytest.mark.parametrize("name", [f"{SINGLE}/again/rollouts.jsonl", f"evals/{LABEL}/closed/rollouts.jsonl.bak",
                                  f"{SINGLE}/notes.txt"])
def test_an_evaluation_file_outside_the_counted_folders_is_a_mismatch(forge, shared_work, tmp_path, capsys, name):
    """Answers one folder deeper (evals/L/closed/single_test/again/) were judged by the verdicts step, answer by
    answer, but never counted by the answers step (which read a folder from a name's first three parts): a bundle
    could add a million answers, each judged up to the time limit, to a bundle that verifies."""
    members = forge.members()
    copies = 20
    for kind in ("rollouts", "verdicts"):
        member = name.replace("rollouts.jsonl", f"{kind}.jsonl") if name.endswith("/rollouts.jsonl") else name
        members[member] = members[f"{SINGLE}/{kind}.jsonl"] * copies
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1 and out[0].startswith("mismatch: evals/") and "not an evaluation's file" in out[0]
    assert name.rpartition("/")[0] in out[0], out


def test_a_folder_without_its_verdicts_is_a_mismatch(forge, shared_work, tmp_path, capsys):
    """The untrained model's answers without their verdicts left its row out of the table, and with it the method's
    paired difference (Δ), though every answer was there."""
    members = forge.members()
    del members["evals/untrained/closed/single_test/verdicts.jsonl"]
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == ["mismatch: evals/untrained/closed/single_test/verdicts.jsonl: missing; the run's "
                                 "settings evaluate untrained closed single_test"], out


def test_a_row_given_twice_is_a_mismatch(forge, shared_work, tmp_path, capsys):
    """report/rows.json with a forged row before the honest one of the same key verified: only the last row of a
    key was compared, and a reader of the bundle's table saw the first (100%)."""
    from sebench.submit.bundle import pack

    members = forge.members()
    members.pop("bundle.json")
    rows = json.loads(members["report/rows.json"])
    honest = next(r for r in rows if r["regime"] == LABEL and r["split"] == "single_test")
    members["report/rows.json"] = json.dumps([{**honest, "accuracy": 1.0}, *rows]).encode()
    pack(members, LABEL, tmp_path / "twice.tar.gz")
    code, out = verify(tmp_path / "twice.tar.gz", shared_work, tmp_path / "store", capsys)
    assert code == 1 and out == [f"mismatch: report/rows.json: row {LABEL} closed single_test sebench: given twice"]


# ---- the source a reader reads is the code that runs -----------------------------------------------------------


HIDDEN = "raise SystemExit('hidden code, not the bundled source')\n"


def compiled_beside_the_source(tmp_path: Path) -> tuple[str, bytes]:
    """A .pyc of unchecked hash where Python looks for reference_sft.py's compiled code: Python runs it in the
    source's place, whatever the source says."""
    import importlib.util
    import py_compile

    (tmp_path / "hidden.py").write_text(HIDDEN)
    cfile = tmp_path / "compiled.pyc"
    py_compile.compile(str(tmp_path / "hidden.py"), cfile=str(cfile),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    name = Path(importlib.util.cache_from_source(str(tmp_path / "reference_sft.py"))).relative_to(tmp_path)
    return f"method/source/{name.as_posix()}", cfile.read_bytes()


def with_member(forge, name: str, data: bytes) -> dict:
    members = forge.members()
    members[name] = data
    forge.edit_json(members, "submission.json", lambda s: s.update(sources=sorted([*s["sources"], name])))
    return members


@pytest.mark.parametrize("kind", ["pyc", "so", "pth"])
def test_a_file_beside_the_source_that_is_no_source_is_a_mismatch(forge, shared_work, tmp_path, capsys, monkeypatch,
                                                                   kind):
    """A bundle's method/source/ held a __pycache__ .pyc of unchecked hash (or an extension module, which an
    import finds before the .py): its sha256-checked reference_sft.py was what a reader read, the .pyc what the
    re-run's fence would run. Verify refuses it at the method step; rerun_bundle alone before anything runs."""
    from sebench.errors import SebenchError
    from sebench.experiment import Study
    from sebench.submit.rerun import rerun_bundle

    name, data = {"pyc": compiled_beside_the_source(tmp_path),
                  "so": ("method/source/reference_sft.cpython-311-x86_64-linux-gnu.so", b"\x7fELF"),
                  "pth": ("method/source/hook.pth", b"import os\n")}[kind]
    forged = forge.repack(with_member(forge, name, data))
    code, out = verify(forged, shared_work, tmp_path / "store", capsys)
    assert code == 1 and out == [f"mismatch: {name}: not Python source (.py); a compiled or other file beside the "
                                 "method's source would be run or read in its place"], out
    started: list = []
    monkeypatch.setattr(Study, "run", lambda self: started.append(self))
    with pytest.raises(SebenchError, match="not Python source"):
        rerun_bundle(forged, tmp_path / "work")
    assert not started and not (tmp_path / "work" / "source").exists()


def test_the_compiled_file_would_run_in_the_sources_place(tmp_path):
    """What the refusal guards against: Python loads the method's file (as sebench's loader does) from the .pyc
    beside it, never reading the source."""
    import importlib.util

    name, data = compiled_beside_the_source(tmp_path)
    source = tmp_path / "source"
    (source / name.removeprefix("method/source/")).parent.mkdir(parents=True)
    (source / name.removeprefix("method/source/")).write_bytes(data)
    (source / "reference_sft.py").write_text("WHO = 'the source a reader reads'\n")
    spec = importlib.util.spec_from_file_location("planted_method", source / "reference_sft.py")
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(SystemExit, match="hidden code"):
        spec.loader.exec_module(module)


def test_a_record_cannot_add_a_line_to_the_card(forge, shared_work, tmp_path, capsys):
    """A base model named "hf:tiny`" + a line break + "- [x] held-out: ..." ended the card's code span and its
    line, and added a checklist item of its own that the records' card matched (so verify passed it): a reader of
    card.md saw a checked item no check made."""
    from sebench.submit import read_bundle

    inject = "hf:tiny`\n- [x] held-out: verified on 5 seeds by the maintainers\n[details](https://collector.example)"
    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: (m.update(model=inject), m["config"].update(model=inject)))
    forge.edit_json(members, "submission.json", lambda s: s.update(base_model=inject))
    forged = forge.repack(members)
    card = read_bundle(forged).text("card.md").splitlines()
    assert [line.split(":")[0] for line in card if line.startswith("- [")] == [
        "- [x] eligible", "- [x] isolation layer", "- [x] no refused reads", "- [x] no network",
        "- [x] samples declared"], card
    assert not any(line.startswith("[details]") for line in card)
    assert card[3] == ("- base model: ``hf:tiny`\\u000a- [x] held-out: verified on 5 seeds by the maintainers"
                       "\\u000a[details](https://collector.example)``; preset quick; seed 0; protocol sebench"), card[3]
    code, out = verify(forged, shared_work, tmp_path / "store", capsys)
    assert code == 0 and out[0].startswith("re-judged: "), out


# ---- the label and the judge's limits ---------------------------------------------------------------------------


def test_a_label_that_is_no_text_fails_and_the_board_is_still_written(forge, shared_work, tmp_path, capsys):
    """A label 5 (a number, the same in every record and as the folders' name) verified, and the board then
    stopped with a traceback drawing it (a label is text): every other entry lost with it."""
    from sebench.submit.leaderboard import write_leaderboard

    forged = forge.repack(relabelled(forge.members(), 5))
    code, out = verify(forged, shared_work, tmp_path / "store", capsys)
    assert code == 1 and out == ["mismatch: bundle.json: label '5' is not a plain name (letters, digits, _ . - + = @ ,)"]
    write_leaderboard([forged], tmp_path / "board", tmp_path / "store")
    entry = json.loads((tmp_path / "board/leaderboard.json").read_text())["entries"][0]
    assert entry["level"] == "fails" and "label '5'" in entry["marks"]["fails"]


def test_a_method_labelled_as_the_untrained_model_is_a_mismatch(forge, shared_work, tmp_path, capsys):
    """A method labelled "untrained" has its answers in the untrained model's folders: the bundle verified with
    the method's answers standing for the untrained model's (and a re-run's study would write both in one)."""
    members = relabelled(forge.members(), "untrained")
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == ["mismatch: bundle.json: label 'untrained' is the untrained model's; a method has a "
                                 "name of its own"], out


def test_a_judge_limit_below_zero_is_a_mismatch(forge, shared_work, tmp_path, capsys):
    """A memory limit of -1 MiB passed the cap (it is below 8192) and was handed to the sandbox (a negative
    limit, read as unsigned by the kernel, is none; the sandbox's job header refused it, so every answer came
    out judge_error, each with a traceback)."""
    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: m["config"]["judge"].update(memory_mb=-1))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 1 and out == ["mismatch: run/manifest.json: judge.memory_mb -1 is not above 0 (a judged "
                                 "program's limit)"], out


def test_an_integer_no_float_holds_is_one_line_and_exit_2(forge, shared_work, tmp_path, capsys):
    """A wall time of 10^400 s in both records (an integer: finite to JSON, too long for a float) ended verify in
    a traceback comparing them (OverflowError), and the board with it."""
    members = forge.members()
    forge.edit_json(members, "method/method.json", lambda m: m["cost"].update(wall_seconds=10**400))
    forge.edit_json(members, "run/manifest.json", lambda m: m["stages"][f"train:{LABEL}"].update(seconds=10**400))
    code, out = verify(forge.repack(members), shared_work, tmp_path, capsys)
    assert code == 2 and len(out) == 1 and "is not a finite number (refused)" in out[0], out


# ---- the board ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wall", [1e308, 10**400, 5e-324, 1e-300], ids=["1e308", "10^400", "5e-324", "1e-300"])
def test_a_wall_time_the_axis_cannot_place_leaves_the_plot_drawn(wall):
    """A verified bundle's records may state any non-negative wall time: 1e308 s or a 400-digit count put the
    axis's last tick beyond a float (OverflowError), 5e-324 s its first at 0 (log of 0): the board stopped."""
    entries = [Entry(name, "m", "quick", "0", {"single_test": Cell(0.5, (0.4, 0.6))}, {"wall_seconds": seconds})
               for name, seconds in (("odd", wall), ("fine", 10.0))]
    for shown in (entries, entries[:1]):
        svg = plot(shown)
        assert ">odd (" not in svg and (">fine (" in svg) == (len(shown) == 2)
        assert svg.count("text-anchor=\"middle\">") < 20  # a handful of ticks, not hundreds


def test_one_bundle_under_two_names_or_relabelled_is_one_entry(forge, submitted, tmp_path):
    """The same bytes under a second file name, and the same answers packed again under another label, were two
    entries (each ranked, once re-run): the board lists the first of the highest level, and the others as
    failing, naming it."""
    from sebench.submit.leaderboard import leaderboard_rows

    first, copy = tmp_path / "a-first.tar.gz", tmp_path / "b-copy.tar.gz"
    shutil.copy(submitted[1], first)
    shutil.copy(submitted[1], copy)
    other = forge.repack(relabelled(forge.members(), "Another"), "c-other.tar.gz")
    rows = {e.source: e for e in leaderboard_rows([first, copy, other], tmp_path / "store") if e.source}
    assert rows["a-first.tar.gz"].level == "re-judged" and rows["a-first.tar.gz"].method == LABEL
    for name in ("b-copy.tar.gz", "c-other.tar.gz"):
        assert rows[name].level == "fails" and rows[name].marks["fails"].startswith(
            f"the same answers as a-first.tar.gz ({LABEL})"), rows[name].marks
    # a copy given first does not push out an entry of a higher level: the re-run one is kept
    from sebench.files import file_sha256
    from sebench.submit import Verification
    from sebench.submit.verify import write_record

    rerun = {"rule": "equal per task", "reproduced": True, "mismatch": None, "rows": []}
    write_record(Verification(str(other), file_sha256(other), "Another", True, rerun=rerun), tmp_path / "ledger")
    rows = {e.source: e for e in leaderboard_rows([first, copy, other], tmp_path / "store", tmp_path / "ledger")
            if e.source}
    assert rows["c-other.tar.gz"].level == "reproduced" and rows["c-other.tar.gz"].band == 1
    assert all(rows[name].level == "fails" and "the same answers as c-other.tar.gz (Another)" in
               rows[name].marks["fails"] for name in ("a-first.tar.gz", "b-copy.tar.gz"))


def test_a_method_trained_from_other_weights_is_not_shown_under_the_untrained_models_name(forge, tmp_path):
    """`train_model` sets the weights a method trains from, apart from the untrained model (`model`): a run of a
    135M base whose method trained from an 8B model was shown, and ranked once re-run, as the 135M base's."""
    from sebench.submit.leaderboard import leaderboard_rows

    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: m["config"].update(train_model="hf:Qwen/Qwen3-8B"))
    forged = forge.repack(members)
    entry = next(e for e in leaderboard_rows([forged], tmp_path / "store") if e.source == forged.name)
    assert entry.level == "re-judged" and entry.base_model == "hf:tiny (trained from hf:Qwen/Qwen3-8B)"
    assert "hf:Qwen/Qwen3-8B" in json.loads(entry.group)[0]  # ranked apart from the tiny base's own entries


def test_a_base_model_named_with_a_look_alike_letter_is_shown_by_its_code(forge, tmp_path):
    """A local base model's name is its folder's, any text: "hf:Qwen3-8\u0412" (a Cyrillic Ve) read as Qwen3-8B on
    the board, and its entries were ranked first of a group that looked like Qwen3-8B's."""
    from sebench.submit.leaderboard import leaderboard_rows

    spoof = "hf:Qwen3-8\u0412"
    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: (m.update(model=spoof), m["config"].update(model=spoof)))
    forge.edit_json(members, "submission.json", lambda s: s.update(base_model=spoof))
    forged = forge.repack(members)
    entry = next(e for e in leaderboard_rows([forged], tmp_path / "store") if e.source == forged.name)
    assert entry.level == "re-judged" and entry.base_model == "hf:Qwen3-8\\u0412", entry.base_model


def test_ties_are_ordered_whatever_order_the_bundles_were_given():
    from sebench.submit.leaderboard import rank

    entries = [Entry(name, "m", "quick", "0", {"single_test": Cell(0.5, (0.4, 0.6))}, level=level, group="g",
                     source=f"{name}.tar.gz") for name, level in (("b", "reproduced"), ("a", "reproduced"),
                                                                  ("d", "re-judged"), ("c", "re-judged"))]
    orders = {tuple(e.method for e in rank(list(given))) for given in (entries, entries[::-1])}
    assert orders == {("a", "b", "c", "d")}


# ---- a re-run's speed settings are the verifier's ------------------------------------------------------------


def test_a_reruns_batch_threads_and_reward_judges_are_the_verifiers(forge, tmp_path):
    """The evaluation's rows per generate call (10^6: every test prompt with every sample at once, in the
    verifier's own process), the training's threads and its reward judges came from the bundle; each changes how
    fast a stage runs, not what it produces, so the re-run takes the verifier's defaults."""
    from sebench.submit import read_bundle
    from sebench.submit.rerun import extract_sources, rerun_config

    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: (
        m["config"]["rollout"].update(batch_size=10**6),
        m["config"]["train"].update(threads=10**6, judge_workers=10**6, lr=0.5)))
    bundle = read_bundle(forge.repack(members))
    config = rerun_config(bundle, extract_sources(bundle, tmp_path / "source"), 0)
    assert config.rollout["batch_size"] is None
    assert config.train["threads"] is None and config.train["judge_workers"] is None
    assert config.train["lr"] == 0.5  # what the method trains with stays the bundle's

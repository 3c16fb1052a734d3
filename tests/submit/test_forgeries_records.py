"""Forged answers and records that a reader of the bundle would take for something else than the verifier checks:
an answer's code that is not its response's, a JSON key given twice, the data hashes of another seed, a label that
reads as a built-in's, a copy whose data manifest is written again, a card whose lines end otherwise, a file
replaced once verified; and an honest answer holding a character that Python's str.splitlines, but no JSON lines
reader, ends a line at."""

import json
import shutil
from pathlib import Path

import pytest
from bundle_packing import relabelled

from sebench.cli import main
from sebench.submit import read_bundle
from sebench.submit.bundle import Bundle, collect
from sebench.submit.safe import BundleError, parse_json

LABEL = "ReferenceSFT"
SINGLE = f"evals/{LABEL}/closed/single_test"


def verify(bundle: Path, work: Path, store: Path, capsys) -> tuple[int, list[str], str]:
    code = main(["verify", str(bundle), "--work", str(work), "--store", str(store)])
    captured = capsys.readouterr()
    return code, captured.out.strip().splitlines(), captured.err.strip()


def _rollouts(members: dict[str, bytes], name: str) -> list[dict]:
    return [json.loads(line) for line in members[name].decode().split("\n") if line]


def _put(members: dict[str, bytes], name: str, records: list[dict]) -> None:
    members[name] = ("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n").encode()


def test_an_answers_code_that_is_not_its_responses_fails(forge, rebuilt_tests, shared_work, tmp_path, capsys):
    """The judge reads an answer's response (its code only where the response is empty), so a code field changed
    alone would leave the verdicts as they were while the answers a reader sees, and the board's digest of
    them (one result, one entry), change; an empty response with a right program as its code would be judged on
    that code, which no run records."""
    tasks = rebuilt_tests("single_test")
    changed, emptied = forge.members(), forge.members()
    rollouts = _rollouts(changed, f"{SINGLE}/rollouts.jsonl")
    for r in rollouts:
        r["code"] = (r["code"] or "") + "# another answer\n"
    _put(changed, f"{SINGLE}/rollouts.jsonl", rollouts)
    forge.answer(emptied, f"{LABEL}/closed/single_test",
                 lambda r: f"```python\n{tasks[r['task_id']]['reference_solution']}\n```")
    rollouts = _rollouts(emptied, f"{SINGLE}/rollouts.jsonl")
    for r in rollouts[:1]:
        r["response"] = ""  # judged on its code, a right program
    _put(emptied, f"{SINGLE}/rollouts.jsonl", rollouts)
    for name, members in (("changed", changed), ("emptied", emptied)):
        code, out, _ = verify(forge.repack(members, f"{name}.tar.gz"), shared_work, tmp_path / name, capsys)
        assert code == 1 and out == [f"mismatch: {SINGLE}/rollouts.jsonl:1: code is not the program its response "
                                     "holds; the code of an answer is extracted from its response (sebench.answers), "
                                     "which the judge reads"], (name, out)


def test_an_answers_response_that_is_not_text_fails_in_one_line(forge, shared_work, tmp_path, capsys):
    """A response the bundle gives as a number or a list is a mismatch naming the line, never a traceback."""
    for bad in (5, ["print(1)"]):
        members = forge.members()
        rollouts = _rollouts(members, f"{SINGLE}/rollouts.jsonl")
        rollouts[0]["response"] = bad
        _put(members, f"{SINGLE}/rollouts.jsonl", rollouts)
        code, out, _ = verify(forge.repack(members, "notext.tar.gz"), shared_work, tmp_path / type(bad).__name__,
                              capsys)
        assert code == 1 and out == [f"mismatch: {SINGLE}/rollouts.jsonl:1: response is not text (got "
                                     f"{type(bad).__name__})"], out


def test_a_key_given_twice_is_refused(forge, shared_work, tmp_path, capsys):
    """JSON readers differ on which of two values of one key they keep: the file could say "not eligible" to one
    reader and "eligible" to the verifier. `sebench submit` writes each key once."""
    with pytest.raises(BundleError, match=r"^m: key 'a' given twice in one object \(refused\)$"):
        parse_json('{"b": {"a": 1, "a": 2}}', "m")
    assert parse_json('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}', "m") == {"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}
    members = forge.members()
    members["method/method.json"] = members["method/method.json"].decode().replace(
        "{", '{"eligible": false,', 1).encode()  # the later "eligible" is the run's
    code, out, err = verify(forge.repack(members, "twice.tar.gz"), shared_work, tmp_path, capsys)
    assert code == 2 and out == [] and err.splitlines() == [
        "sebench verify: error: method/method.json: key 'eligible' given twice in one object (refused)"]


def test_the_data_hashes_of_another_seed_fail_at_the_data(forge, shared_work, tmp_path, capsys):
    """A bundle that names seed 1 everywhere (settings, manifest, submission, card) but holds seed 0's run: the
    instance rebuilt from seed 1 has other data hashes."""
    members = forge.members()
    forge.edit_json(members, "run/manifest.json", lambda m: (m.update(seed=1), m["config"].update(seed=1)))
    forge.edit_json(members, "submission.json", lambda s: s.update(seed=1))
    code, out, _ = verify(forge.repack(members, "seed1.tar.gz"), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1 and out[0].startswith("mismatch: run/manifest.json: data_hashes['")
    assert out[0].endswith("is not the rebuilt instance's (seed 1)")


SEPARATORS = "\u2028\u2029\x85\x1c\x0b\x0c"  # each ends a line for str.splitlines; JSON escapes the last three


def test_an_answer_holding_a_line_separator_is_read_as_one_line(forge, submitted, shared_work, tmp_path, capsys):
    """A model's answer may hold U+2028, U+2029 or U+0085, which a JSON line keeps as they are: the bundle reads
    a JSON lines member line by line at newlines alone, as the run's files are read, at submit and at verify."""
    text = json.dumps({"task_id": "t", "response": f"a{SEPARATORS}b"}, ensure_ascii=False)
    assert Bundle(Path("b"), {"m.jsonl": f"{text}\n\n{text}\n".encode()}).lines("m.jsonl") == [
        {"task_id": "t", "response": f"a{SEPARATORS}b"}] * 2
    members = forge.members()
    forge.answer(members, f"{LABEL}/closed/single_test", lambda r: f"{r['response']}{SEPARATORS}")
    rollouts = _rollouts(members, f"{SINGLE}/rollouts.jsonl")
    _put(members, f"{SINGLE}/rollouts.jsonl", rollouts)  # written as the run writes them: not escaped
    assert "\u2028".encode() in members[f"{SINGLE}/rollouts.jsonl"]
    code, out, err = verify(forge.repack(members, "separators.tar.gz"), shared_work, tmp_path / "store", capsys)
    assert code == 0 and out[0].startswith("re-judged: "), (out, err)
    run = tmp_path / "run"  # sebench submit of a run whose answers hold them
    shutil.copytree(submitted[0], run, symlinks=True)
    path = run / SINGLE / "rollouts.jsonl"
    rollouts = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    rollouts[0]["response"] += SEPARATORS
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rollouts), encoding="utf-8")
    packed = collect(run, LABEL, None)
    assert Bundle(Path("b"), packed).lines(f"{SINGLE}/rollouts.jsonl")[0]["response"].endswith(SEPARATORS)
    assert read_bundle(submitted[1]).lines(f"{SINGLE}/rollouts.jsonl")  # the honest bundle reads as before


@pytest.mark.parametrize("label", ["Closed-SFT", "closed_sft_rl", "MEMORY", "Untrained"])
def test_a_label_that_reads_as_a_built_in_is_a_mismatch(forge, shared_work, tmp_path, capsys, label):
    """The board names an entry by its label: a file method labelled Closed-SFT verified, was re-run (the re-run
    refuses only the exact regime names) and would be ranked as the built-in regime, beside the paper's row of
    that name."""
    code, out, _ = verify(forge.repack(relabelled(forge.members(), LABEL, label)), shared_work, tmp_path, capsys)
    assert code == 1 and len(out) == 1 and out[0].startswith(f"mismatch: bundle.json: label '{label}' reads as "
                                                             "sebench's own '"), out
    assert out[0].endswith("which this bundle's method (file 'reference_sft.py:ReferenceSFT') is not; a method has "
                           "a name of its own")


def test_the_built_in_name_rule_passes_sebenchs_own_bundles():
    from sebench.submit.crosscheck import Mismatch, check_own_name, spelled

    assert spelled("Closed_SFT-rl") == spelled("closed-sft-rl") == "closedsftrl"
    check_own_name("closed-sft", {"origin": "built-in", "spec": "closed-sft"})
    check_own_name("ClosedSFTPlus", {"origin": "file", "spec": "m.py:ClosedSFTPlus"})  # a name of its own
    for label, method in (("closed-sft", {"origin": "built-in", "spec": "memory"}),
                          ("Closed-SFT", {"origin": "built-in", "spec": "closed-sft"}),
                          ("closed-sft", {"origin": "file", "spec": "closed-sft"})):
        with pytest.raises(Mismatch, match="reads as sebench's own 'closed-sft'"):
            check_own_name(label, method)


def test_a_copy_whose_data_manifest_is_written_again_is_the_same_result(forge, submitted, tmp_path):
    """The bundled data manifest is compared with the rebuilt one as parsed, and its hash with the manifest's:
    the same manifest written with other spaces, its hash put in the run's manifest, verified, and made the copy's
    answers a result of their own on the board (a second entry of the same answers)."""
    import hashlib

    from sebench.submit.leaderboard import leaderboard_rows

    members = relabelled(forge.members(), LABEL, "Copy")
    text = json.dumps(json.loads(members["run/data-manifest.json"]), indent=3).encode()
    members["run/data-manifest.json"] = text
    forge.edit_json(members, "run/manifest.json",
                    lambda m: m["data_hashes"].update({"manifest.json": hashlib.sha256(text).hexdigest()}))
    first = tmp_path / "a-first.tar.gz"
    shutil.copy(submitted[1], first)
    copy = forge.repack(members, "b-copy.tar.gz")
    rows = {e.source: e for e in leaderboard_rows([first, copy], tmp_path / "store") if e.source}
    assert rows["a-first.tar.gz"].level == "re-judged"
    assert rows["b-copy.tar.gz"].level == "fails" and rows["b-copy.tar.gz"].marks["fails"] == (
        f"the same answers as a-first.tar.gz ({LABEL}): one result, one entry")


@pytest.mark.parametrize("end", ["\r\n", "\x0c", "\u2028"])
def test_a_card_whose_lines_end_otherwise_is_a_mismatch(forge, shared_work, tmp_path, capsys, end):
    """card.md was compared line by line after str.splitlines, which ends a line at a carriage return, a form
    feed or U+2028 too: a card whose items ran together on one line in a Markdown reader (or ended in CR LF)
    verified as the records' card."""
    from sebench.submit.bundle import pack

    members = forge.members()
    members.pop("bundle.json")
    lines = members["card.md"].decode().split("\n")
    members["card.md"] = (end.join(lines[:-1]) + "\n").encode()
    pack(members, LABEL, tmp_path / "card.tar.gz")
    code, out, _ = verify(tmp_path / "card.tar.gz", shared_work, tmp_path, capsys)
    assert code == 1 and out[0].startswith("mismatch: card.md:1: "), out


def test_the_board_shows_the_bytes_it_verified(forge, submitted, tmp_path, monkeypatch):
    """The board verified a bundle's file, then read the file again to draw its row: a file replaced in between
    (here once its verification is stored) showed a bundle that was never verified, all its answers "correct"."""
    from sebench.submit import leaderboard

    members = forge.members()
    verdicts = _rollouts(members, f"{SINGLE}/verdicts.jsonl")
    for v in verdicts:
        v.update(verdict="correct", tests_passed=v["tests_total"])
    _put(members, f"{SINGLE}/verdicts.jsonl", verdicts)
    forged = forge.repack(members, "forged.tar.gz")
    assert next(r for r in read_bundle(forged).rows if r["regime"] == LABEL and r["split"] == "single_test")[
        "accuracy"] == 1.0
    path = tmp_path / "entry.tar.gz"
    shutil.copy(submitted[1], path)
    stored = leaderboard.write_record

    def stored_then_replaced(verification, store):
        out = stored(verification, store)
        shutil.copy(forged, path)  # what a writer of the entries folder does meanwhile
        return out

    monkeypatch.setattr(leaderboard, "write_record", stored_then_replaced)
    entry = next(e for e in leaderboard.leaderboard_rows([path], tmp_path / "store") if e.source == path.name)
    honest = next(r for r in read_bundle(submitted[1]).rows if r["regime"] == LABEL and r["split"] == "single_test")
    assert entry.level == "re-judged" and entry.cells["single_test"].accuracy == honest["accuracy"] < 1.0

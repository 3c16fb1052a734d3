"""Signals below the pass@1 floor against a recount of hand-written verdicts."""

import json

import pytest

from sebench.metrics import accuracy_counts, paired_counts
from sebench.records import Task, Verdict, write_records
from sebench.report import build_report
from sebench.report.fmt import VERDICT_SHORT
from sebench.report.signals import FAILURES, failure_kind

MAPPING = {"numpy.mean": "pkg.kocito", "numpy.sum": "pkg.zabure"}


def _task(task_id: str, functions: list[str]) -> Task:
    return Task(task_id=task_id, split="single_test", kind="single", query="q", function_name="def solve(x):",
                entry_point="solve", example="", test_cases=[], right_exe_result="", selected_functions=functions)


def _v(task: str, k: int, verdict: str, passed: int, calls: list[str] | None, message: str = "") -> Verdict:
    detail = {"message": message} | ({} if calls is None else {"calls": calls})
    return Verdict(task, k, verdict, passed, 4, detail, mode="closed", split="single_test")


# both regimes score 0 correct: pass@1 ties at the floor, the signals do not
UNTRAINED = [_v("a", 0, "no_code", 0, []), _v("a", 1, "forbidden_import", 0, [], "import of 'numpy' is not allowed"),
             _v("b", 0, "not_using_package", 0, []), _v("b", 1, "no_code", 0, []),
             _v("c", 0, "wrong_answer", 1, ["pkg.array"]), _v("c", 1, "no_code", 0, [])]
TRAINED = [_v("a", 0, "wrong_answer", 2, ["pkg.kocito"]), _v("a", 1, "runtime_error", 0, ["pkg.kocito"],
                                                                     "TypeError: kocito() got an unexpected keyword"),
           _v("b", 0, "forbidden_access", 0, ["pkg.nosuch"], "'pkg.nosuch' is not a public name of the package"),
           _v("b", 1, "wrong_answer", 3, ["pkg.zabure", "pkg.kocito"]),
           _v("c", 0, "wrong_answer", 3, ["pkg.kocito", "pkg.zabure"]), _v("c", 1, "timeout", 0, None)]


@pytest.fixture
def report(tmp_path):
    run = tmp_path / "run"
    tasks = [_task("a", ["pkg.kocito"]), _task("b", ["pkg.zabure"]), _task("c", ["pkg.kocito", "pkg.zabure"])]
    write_records(run / "data/datasets/test/single_test.jsonl", tasks)
    (run / "data/private").mkdir(parents=True)
    (run / "data/private/mapping.json").write_text(json.dumps({"package": "pkg", "functions": MAPPING}))
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0, "data": "data"}))
    write_records(run / "evals/untrained/closed/single_test/verdicts.jsonl", UNTRAINED)
    write_records(run / "evals/closed-sft/closed/single_test/verdicts.jsonl", TRAINED)
    md = build_report([run], tmp_path / "out", plots_enabled=False).read_text()
    data = json.loads((tmp_path / "out/report.json").read_text())
    return str(run), {r["regime"]: r for r in data["signals"]}, md


def test_failure_kinds_follow_the_verdicts_and_messages():
    kinds = [failure_kind(v) for v in UNTRAINED + TRAINED]
    assert kinds == ["no code", "original used", "no pkg", "no code", "wrong value", "no code",
                     "wrong value", "wrong arguments", "wrong name", "wrong value", "wrong value", "timeout"]
    assert set(kinds) <= set(FAILURES)
    # a failure that is a whole verdict has the main table's name for it (one source: VERDICT_SHORT)
    syntax = Verdict("s", 0, "syntax_error", 0, 4, {"message": "SyntaxError: invalid syntax"})
    assert failure_kind(syntax) == VERDICT_SHORT["syntax_error"] == "syntax"
    assert {VERDICT_SHORT[v] for v in VERDICT_SHORT if v not in ("correct", "wrong_answer")} <= set(FAILURES)


def test_right_call_and_tests_passed_are_recounted_with_their_intervals(report):
    run, rows, _md = report
    trained, untrained = rows["closed-sft"], rows["untrained"]
    # right call per cluster (needed pairs, called): a 2 of 2, b 1 of 2 (b's first answer calls a wrong name),
    # c: answer 0 calls both of 2, answer 1 has no recorded calls (not counted)
    right = {(run, "a"): (2, 2), (run, "b"): (2, 1), (run, "c"): (2, 2)}
    assert trained["right_call"]["share"] == pytest.approx(5 / 6)
    assert trained["right_call"]["ci95"] == accuracy_counts(right)["ci95"]
    base = {(run, "a"): (2, 0), (run, "b"): (2, 0), (run, "c"): (4, 0)}
    assert untrained["right_call"]["share"] == 0.0
    expected = paired_counts(right, base)
    assert expected is not None
    assert trained["right_call"]["vs_untrained"]["p"] == pytest.approx(expected.p)
    assert trained["right_call"]["vs_untrained"]["ci95"] == pytest.approx(list(expected.ci95))
    # tests passed: 8 (4 a task and answer): (2 + 0) + (0 + 3) + (3 + 0) = 8 of 24 test cases
    assert trained["tests_passed"]["share"] == pytest.approx(8 / 24) and trained["tests_passed"]["trials"] == 24
    assert untrained["tests_passed"]["share"] == pytest.approx(1 / 24)
    assert trained["failures"]["wrong value"]["share"] == pytest.approx(3 / 6)
    assert untrained["failures"]["no code"]["share"] == pytest.approx(3 / 6)
    lo, hi = trained["failures"]["wrong name"]["ci95"]
    assert lo < 1 / 6 < hi


def test_the_markdown_puts_the_signals_beside_pass_at_1(report):
    _, _rows, md = report
    section = md.split("## Below the pass@1 floor")[1]
    line = next(x for x in section.splitlines() if x.startswith("| closed-sft | closed | single_test"))
    assert line.startswith("| closed-sft | closed | single_test | 0.0 (") and "| 83.3 (" in line and "; Δ +" in line
    assert "| no code % | original used % | no pkg % | wrong name % | wrong arguments % | wrong value % | timeout % |" \
        in section  # the kinds seen, each named as in the main table's columns


def test_signals_are_split_by_docs_only_group_with_that_groups_pass_at_1(tmp_path):
    """A run whose manifest lists docs-only functions: each signal is also counted over the tasks of each group
    (task b and c select the docs-only zabure), beside the group's pass@1 from the docs-only table."""
    run = tmp_path / "run"
    tasks = [_task("a", ["pkg.kocito"]), _task("b", ["pkg.zabure"]), _task("c", ["pkg.kocito", "pkg.zabure"])]
    write_records(run / "data/datasets/test/single_test.jsonl", tasks)
    (run / "data/private").mkdir(parents=True)
    (run / "data/private/mapping.json").write_text(json.dumps({"package": "pkg", "functions": MAPPING}))
    (run / "manifest.json").write_text(json.dumps({"model": "m", "seed": 0, "data": "data",
                                                   "docs_only": ["pkg.zabure"]}))
    write_records(run / "evals/untrained/closed/single_test/verdicts.jsonl", UNTRAINED)
    write_records(run / "evals/closed-sft/closed/single_test/verdicts.jsonl", TRAINED)
    md = build_report([run], tmp_path / "out", plots_enabled=False).read_text()
    rows = {(r["regime"], r["group"]): r for r in json.loads((tmp_path / "out/report.json").read_text())["signals"]}
    assert {g for _, g in rows} == {"all", "with_tasks", "docs_only"}
    assert rows[("closed-sft", "with_tasks")]["right_call"]["share"] == 1.0  # a: 2 of 2
    assert rows[("closed-sft", "docs_only")]["right_call"]["share"] == pytest.approx(3 / 4)  # b 1 of 2, c 2 of 2
    assert rows[("closed-sft", "docs_only")]["tests_passed"]["trials"] == 16
    assert rows[("closed-sft", "all")]["right_call"]["share"] == pytest.approx(5 / 6)
    line = next(x for x in md.splitlines() if x.startswith("| closed-sft | closed | single_test | docs only | 0.0 ("))
    assert "75.0 (" in line


def test_importing_another_renamed_library_is_original_used_and_numpy_there_is_not():
    other = frozenset({"more_itertools"})
    imported = Verdict("a", 0, "forbidden_import", 0, 4, {"message": "import from 'more_itertools.more' is not allowed"})
    numpy = Verdict("a", 1, "forbidden_import", 0, 4, {"message": "import of 'numpy' is not allowed"})
    assert failure_kind(imported, other) == "original used"
    assert failure_kind(numpy, other) == VERDICT_SHORT["forbidden_import"]
    assert failure_kind(imported) == VERDICT_SHORT["forbidden_import"]  # a NumPy run: more_itertools is just refused

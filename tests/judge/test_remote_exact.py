"""`judge --sandbox-url` gives the verdicts of local judging, also for NaN, infinities and complex outputs."""

import dataclasses
import math

import pytest

from sebench.cli import main
from sebench.judge import Judge
from sebench.judge.run import judge_records
from sebench.records import Rollout, Verdict, read_records, write_records

from .conftest import fenced, make_task, write_instance
from .serve_helpers import server_thread

NAN, INF = float("nan"), float("inf")
GOOD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a)")
PLUS = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) + 1")
NEG = fenced("import zwc\ndef solve(a):\n    return -zwc.kocito(a)")
CRASH = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) / 0")
RESPONSES = [GOOD, PLUS, NEG, CRASH, "no code"]

TASKS = [
    make_task("nan", inputs=("a=[nan, 1.0]",), expected=(NAN,)),
    make_task("inf", inputs=("a=[inf, 1.0]", "a=[-inf, 2.0]"), expected=(INF, -INF)),
    make_task("cplx", inputs=("a=[1+2j, 3+4j]",), expected=({"__complex__": [2.0, 3.0]},)),
    make_task("cnan", inputs=("a=[complex(nan, 1.0)]",), expected=({"__complex__": [NAN, NAN]},)),
    make_task("plain", inputs=("a=[1, 2, 3]",), expected=(2.0,), split="multiple_test", kind="multiple"),
]


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    return write_instance(tmp_path_factory.mktemp("nan-inst"), TASKS)


@pytest.fixture(scope="module")
def urls(instance):
    with server_thread(instance, timeout_s=5.0) as first, server_thread(instance, max_body=1000) as refusing:
        yield first, refusing  # `refusing` answers /health but refuses every /judge body (too large)


def _rollouts():
    return [Rollout(t.task_id, i, "closed", "fake:m", [], r, None, "stop")
            for t in TASKS for i, r in enumerate(RESPONSES)]


def _comparable(v: Verdict) -> dict:
    detail = {k: x for k, x in v.detail.items() if k not in ("seconds", "layers")}
    return {**dataclasses.asdict(v), "detail": detail}


def test_remote_verdicts_equal_local_ones_with_nan_and_infinity(instance, urls):
    local = judge_records(instance, _rollouts(), workers=2, timeout_s=5.0)
    remote = judge_records(instance, _rollouts(), sandbox_urls=list(urls), timeout_s=5.0)
    assert [_comparable(v) for v in remote] == [_comparable(v) for v in local]
    by_task = {(v.task_id, v.sample_idx): v.verdict for v in local}
    assert all(by_task[(t, 0)] == "correct" for t in ("nan", "inf", "cplx", "cnan", "plain"))
    assert by_task[("nan", 1)] == "correct" and by_task[("plain", 1)] == "wrong_answer"  # nan + 1 is nan
    assert by_task[("inf", 2)] == "wrong_answer" and by_task[("cnan", 3)] == "runtime_error"
    assert not any(v.verdict == "judge_error" for v in remote)


def test_cli_with_sandbox_url_matches_local_and_exits_zero(instance, urls, tmp_path):
    rollouts = tmp_path / "r.jsonl"
    write_records(rollouts, _rollouts())
    outs = []
    for extra in ([], ["--sandbox-url", urls[1], "--sandbox-url", urls[0]]):
        out = tmp_path / f"v{len(outs)}.jsonl"
        assert main(["judge", "--data", str(instance), "--rollouts", str(rollouts), "--out", str(out),
                     "--timeout", "5", *extra]) == 0
        outs.append([_comparable(v) for v in read_records(out, Verdict)])
    assert outs[0] == outs[1]


def test_a_failing_chunk_is_retried_item_by_item(instance, urls):
    good, bad = TASKS[4], dataclasses.replace(TASKS[4], task_id="bad", entry_point="not a name")
    items = [(good, GOOD, i) for i in range(7)] + [(bad, GOOD, 7)] + [(good, GOOD, i) for i in range(8, 20)]
    with Judge(instance, sandbox_urls=list(urls), timeout_s=5.0) as judge:
        verdicts = judge.judge_many(items)
    assert [v.sample_idx for v in verdicts] == list(range(20))
    assert [v.verdict for v in verdicts] == ["correct"] * 7 + ["judge_error"] + ["correct"] * 12
    assert "entry_point" in verdicts[7].detail["message"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "not a url", "ftp://127.0.0.1:9", "http://"])
def test_a_refused_or_malformed_url_is_one_line_not_judge_errors(instance, url, tmp_path, capsys):
    rollouts = tmp_path / "r.jsonl"
    write_records(rollouts, _rollouts()[:3])
    out = tmp_path / "v.jsonl"
    rc = main(["judge", "--data", str(instance), "--rollouts", str(rollouts), "--out", str(out),
               "--sandbox-url", url])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and not out.exists()
    assert err.count("\n") == 0 and ("--sandbox-url" in err or "no sandbox server answered" in err), err


def test_judge_errors_make_the_command_fail_with_a_count(instance, tmp_path, capsys):
    rollouts = tmp_path / "r.jsonl"
    rows = [*_rollouts()[:2], Rollout("no-such-task", 0, "closed", "fake:m", [], GOOD, None, "stop")]
    write_records(rollouts, rows)
    out = tmp_path / "v.jsonl"
    assert main(["judge", "--data", str(instance), "--rollouts", str(rollouts), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "1 of 3 samples could not be judged" in captured.err
    assert "judge_error: 1 samples could not be judged" in captured.out
    assert [v.verdict for v in read_records(out, Verdict)][2] == "judge_error"


def test_nan_expected_really_needs_the_tagged_encoding():
    # the failure this guards against: plain strict JSON cannot carry the tasks above
    import json

    with pytest.raises(ValueError):
        json.dumps(dataclasses.asdict(TASKS[0]), allow_nan=False)
    assert math.isnan(TASKS[0].expected[0])

import json
import threading

import httpx
import pytest

from sebench.cli import main
from sebench.instance import Instance
from sebench.judge.run import judge_records, read_rollouts
from sebench.judge.sandbox_server import serve
from sebench.judge.summary import format_table, summarize
from sebench.metrics import pass_at_k
from sebench.records import Rollout, Verdict, read_records, write_records
from sebench.tasks.original_format import original_answers

from .conftest import fenced, make_task, write_instance

GOOD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a)")
BAD = fenced("import zwc\ndef solve(a):\n    return zwc.kocito(a) * 2")


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    tasks = [make_task("s0"), make_task("s1", split="multiple_test", kind="multiple"),
             make_task("tr0", split="train")]
    return write_instance(tmp_path_factory.mktemp("inst"), tasks)


def _rollout(task_id, i, response, mode="closed"):
    return Rollout(task_id, i, mode, "fake:m", [], response, None, "stop")


def test_pass_at_k_and_summary():
    assert pass_at_k(5, 0, 1) == 0.0 and pass_at_k(5, 5, 5) == 1.0
    assert abs(pass_at_k(10, 3, 1) - 0.3) < 1e-12
    verdicts = [Verdict("a", i, "correct" if i < 3 else "wrong_answer", 0, 2,
                        split="single_test", kind="single", mode="closed") for i in range(10)]
    verdicts += [Verdict("b", 0, "timeout", 0, 2, split="train", kind="single", mode="open")]
    s = summarize(verdicts)
    assert s["overall"]["n"] == 11 and abs(s["overall"]["accuracy"] - 3 / 11) < 1e-12
    assert abs(s["split"]["single_test"]["pass@1"] - 0.3) < 1e-12
    assert "pass@10" in s["split"]["single_test"] and "pass@5" not in s["split"]["train"]
    assert s["mode"]["open"]["verdicts"] == {"timeout": 1.0}
    table = format_table(s)
    assert "overall" in table and "split=train" in table and "mode=open" in table


def test_judge_records_ours_and_original_format(instance, tmp_path):
    task = make_task("s0")
    ours = [_rollout("s0", 0, GOOD), _rollout("s0", 1, BAD), _rollout("nope", 0, GOOD)]
    original = [{"query": "  Compute the mean (s1).  ", "response": GOOD, "test_cases": task.test_cases,
                 "right_exe_result": task.right_exe_result},
                {"query": "Compute the mean (s1).", "response": BAD},
                {"query": "unknown", "response": GOOD}]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r if isinstance(r, dict) else r.__dict__) + "\n" for r in ours + original))
    rollouts, tasks = read_rollouts(path, Instance.open(instance))
    verdicts = judge_records(instance, rollouts, workers=2, tasks=tasks)
    assert [v.verdict for v in verdicts] == ["correct", "wrong_answer", "judge_error", "correct", "wrong_answer",
                                             "judge_error"]
    assert [v.sample_idx for v in verdicts[3:5]] == [0, 1] and verdicts[3].task_id == "s1"
    assert verdicts[0].mode == "closed" and verdicts[0].model == "fake:m"


def test_cli_judge(instance, tmp_path, capsys):
    rollouts = tmp_path / "rollouts.jsonl"
    write_records(rollouts, [_rollout("s0", i, GOOD if i % 2 == 0 else BAD) for i in range(4)])
    out, summary = tmp_path / "v.jsonl", tmp_path / "s.json"
    assert main(["judge", "--data", str(instance), "--rollouts", str(rollouts), "--out", str(out),
                 "--summary", str(summary), "--workers", "2", "--no-bwrap"]) == 0
    verdicts = read_records(out, Verdict)
    assert [v.verdict for v in verdicts] == ["correct", "wrong_answer"] * 2
    data = json.loads(summary.read_text())
    assert data["overall"]["accuracy"] == 0.5 and data["overall"]["pass@1"] == 0.5
    assert "overall" in capsys.readouterr().out


@pytest.fixture(scope="module")
def servers(instance):
    started = []
    for _ in range(2):
        ready = threading.Event()
        holder = {}

        def on_ready(server, holder=holder, ready=ready):
            holder["server"] = server
            ready.set()

        thread = threading.Thread(target=serve, args=(instance, "127.0.0.1", 0, 2, 2.0),
                                  kwargs={"ready": on_ready}, daemon=True)
        thread.start()
        assert ready.wait(60)
        started.append((holder["server"], thread))
    yield [f"http://127.0.0.1:{s.server_address[1]}" for s, _ in started]
    for server, thread in started:
        server.shutdown()
        thread.join(10)


def test_server_run_api_like_the_original(servers):
    url = servers[0]
    resp = httpx.post(f"{url}/run", json={"code": "import zwc\nprint(zwc.kocito([1, 2, 3]))"}, timeout=30)
    assert resp.status_code == 200 and resp.json() == {"stdout": "2.0\n", "stderr": ""}
    resp = httpx.post(f"{url}/run", json={"code": "raise ValueError('boom')"}, timeout=30).json()
    assert resp["stdout"] == "" and "ValueError: boom" in resp["stderr"]
    assert "raise ValueError('boom')" in resp["stderr"]  # tracebacks show the source line
    resp = httpx.post(f"{url}/run", json={"code": "import sys\nprint(1)\nsys.exit(0)"}, timeout=30).json()
    assert resp == {"stdout": "1\n", "stderr": ""}
    resp = httpx.post(f"{url}/run", json={"code": "while True: pass", "timeout": 0.5}, timeout=30).json()
    assert "time limit" in resp["stderr"]
    health = httpx.get(f"{url}/health", timeout=30).json()
    assert health["ok"] and health["package"] == "zwc" and "rlimits" in health["layers"]
    assert httpx.post(f"{url}/nope", json={"x": 1}, timeout=30).status_code == 404


def test_judge_across_servers(instance, servers, tmp_path):
    from sebench.judge import Judge

    task = make_task("s0")
    items = [(task, GOOD if i % 3 else BAD, i) for i in range(40)]
    with Judge(instance, sandbox_urls=[*servers, "http://127.0.0.1:9"]) as judge:
        verdicts = judge.judge_many(items)
    assert [v.verdict for v in verdicts] == ["wrong_answer" if i % 3 == 0 else "correct" for i in range(40)]
    assert [v.sample_idx for v in verdicts] == list(range(40))
    rollouts = tmp_path / "r.jsonl"
    write_records(rollouts, [_rollout("s0", 0, GOOD)])
    out = tmp_path / "v.jsonl"
    args = ["judge", "--data", str(instance), "--rollouts", str(rollouts), "--out", str(out)]
    for url in servers:
        args += ["--sandbox-url", url]
    assert main(args) == 0
    assert read_records(out, Verdict)[0].verdict == "correct"


def test_server_refuses_another_instance(servers, tmp_path):
    body = {"package": {"package": "other", "seed": 1}, "records": []}
    assert httpx.post(f"{servers[0]}/judge", json=body, timeout=30).status_code == 409



def test_unmatched_original_record_is_judged_on_its_own_test_cases(instance):
    # an original-format record whose query is not in the instance carries its own test cases
    cases = [{"input": "a=np.array([1, 2, 3])", "output": "2.0"}, {"input": "a=[[1.5, 2.5], [3.0, 4.0]]",
                                                                   "output": "2.75"}]
    record = {"query": "A query the instance does not have.", "test_cases": cases, "right_exe_result": "2.0#2.75"}
    rows = [dict(record, response=GOOD), dict(record, response=BAD),
            dict(record, response=GOOD, function_name="def solve(a):"), dict(record, response="no code")]
    answers = original_answers(rows, Instance.open(instance), own_tests=False)
    verdicts = judge_records(instance, [a.rollout for a in answers], workers=2, tasks=[a.task for a in answers])
    assert [v.verdict for v in verdicts] == ["correct", "wrong_answer", "correct", "no_code"]
    assert verdicts[0].task_id == verdicts[1].task_id and [v.sample_idx for v in verdicts] == [0, 1, 2, 3]

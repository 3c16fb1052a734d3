"""A method sees only what it may, under every isolation layer this machine has (each forced in turn).

The layout is the README's: `runs/quick` and `runs/mine`, two runs of the same seed side by side, a
`runs/latest` symlink, an instance built elsewhere, an HF export and a home folder. Hostile methods
(hostile_methods.py, a user's file) try to read, list, write, truncate, rename and connect by Python, by
ctypes and by a subprocess. Bubblewrap and Landlock stop every way; the audit hook alone stops Python's, and
what gets past it is caught by the study's tamper-evident records (test_a_write_that_gets_through...).
"""

import http.server
import json
import shutil
import subprocess
import sys
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.errors import SebenchError
from sebench.methods import AgentBackend, MethodJob, available_layers, resolve, run_method
from sebench.rollout import GenerationRequest

HOSTILE = Path(__file__).with_name("hostile_methods.py")
KERNEL_LAYERS = [layer for layer in ("bwrap", "landlock") if layer in available_layers()]
LAYERS = [*KERNEL_LAYERS, "audit-hook"]
WAYS = ("python", "ctypes", "subprocess")


@pytest.fixture()
def layout(tmp_path, built_instance, monkeypatch):
    """proj/runs/{quick,mine,latest}, proj/built (another instance), proj/hf (an export), proj/home."""
    proj = tmp_path / "proj"
    quick, mine = proj / "runs" / "quick", proj / "runs" / "mine"
    for run in (quick, mine):
        shutil.copytree(built_instance, run / "data")
        verdicts = run / "evals" / "untrained" / "closed" / "single_test" / "verdicts.jsonl"
        verdicts.parent.mkdir(parents=True)
        verdicts.write_text('{"task_id": "t", "verdict": "correct"}\n')
    shutil.copytree(built_instance, quick / "instance")
    (proj / "runs" / "latest").symlink_to("quick")
    shutil.copytree(built_instance, proj / "built")
    (proj / "hf").mkdir()
    (proj / "hf" / "single_test.jsonl").write_text('{"query": "a test task"}\n')
    (proj / "home").mkdir()
    (proj / "home" / "notes.txt").write_text("the user's own file\n")
    monkeypatch.setenv("HOME", str(proj / "home"))
    return proj


def job(layout: Path, name: str, **args) -> MethodJob:
    """A method of hostile_methods.py run for the study in runs/mine, hidden as `sebench run` hides it."""
    mine = layout / "runs" / "mine"
    data = mine / "data"
    return MethodJob(ref=resolve(f"{HOSTILE}:{name}"), args=args, data=data, folder=mine / "train" / name,
                     start_model="fake:", seed=0, hidden=(mine, data / "datasets" / "test", data / "private"))


def got_something(what: bool | list) -> bool:
    """Whether a read got something: a file's bytes, or a folder's names beyond the way to the method's own
    folder (bubblewrap's root has the folders on the way to what it mounts, and nothing else in them)."""
    return bool(set(what) - {"mine"}) if isinstance(what, list) else what


def got(job: MethodJob) -> dict:
    return json.loads((job.workdir / "got.json").read_text())


def snapshot(folder: Path) -> dict:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.fixture()
def escape():
    """A path in the machine's /tmp, outside every allowed folder (removed after, where a layer let it through)."""
    path = Path("/tmp") / f"sebench-escape-{uuid.uuid4().hex}"
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture()
def local_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()


def test_a_method_in_runs_mine_reads_nothing_of_a_sibling_run_another_instance_an_export_or_home(
        layout, layer, local_server):
    quick = layout / "runs" / "quick"
    holder = subprocess.Popen(["sleep", "60"], cwd=quick)  # a process whose /proc/PID/cwd is the sibling run
    targets = [
        str(quick / "data" / "datasets" / "test" / "single_test.jsonl"),  # absolute
        str(quick / "instance" / "private" / "mapping.json"),
        "../../../../quick/data/datasets/test/single_test.jsonl",  # relative to its work folder
        str(layout / "runs" / "latest" / "instance" / "private" / "mapping.json"),  # a sibling symlink
        f"/proc/{holder.pid}/cwd/data/private/mapping.json",
        str(quick / "evals"), str(layout / "runs"), str(layout / "built" / "datasets" / "test" / "single_test.jsonl"),
        str(layout / "built" / "private" / "mapping.json"), str(layout / "hf" / "single_test.jsonl"),
        str(layout / "home"), str(layout / "home" / "notes.txt"),
        str(layout / "runs" / "mine" / "data" / "datasets" / "test" / "single_test.jsonl"),  # its own study's
    ]
    try:
        peek = job(layout, "peek", targets=targets, port=local_server, link_to=str(quick))
        record = run_method(peek)
    finally:
        holder.kill()
    reads = {path: {way: got_something(what) for way, what in ways.items()} for path, ways in got(peek)["reads"].items()}
    assert len(reads) == len(targets) + 1  # and the symlink it made itself
    python_ways = {path: ways["python"] for path, ways in reads.items()}
    assert not any(python_ways.values()), python_ways
    assert record["isolation"] == layer and record["allowed"]["read"] and not record["network"]
    assert {r["access"] for r in record["refused"]} >= {"read", "network"}
    assert got(peek)["network"]["python"] is False
    if layer in KERNEL_LAYERS:
        leaked = {path: ways for path, ways in reads.items() if any(ways.values())}
        assert not leaked, leaked
        assert got(peek)["network"]["subprocess"] is False
        assert record["landlock_abi"] is not None or layer == "bwrap"


def test_a_method_cannot_truncate_append_or_rename_a_file_of_its_study_or_of_a_sibling_run(layout, layer, escape):
    mine, quick = layout / "runs" / "mine", layout / "runs" / "quick"
    study_test = str(mine / "data" / "datasets" / "test" / "single_test.jsonl")
    targets = [(study_test, "truncate"), (str(mine / "evals/untrained/closed/single_test/verdicts.jsonl"), "append"),
               (str(quick / "data" / "datasets" / "test" / "single_test.jsonl"), "rename"),
               (str(layout / "home" / "notes.txt"), "append"), (str(escape), "truncate")]
    before = {folder: snapshot(folder) for folder in (mine / "data", mine / "evals", quick, layout / "home")}
    ways = WAYS if layer in KERNEL_LAYERS else ("python",)  # ctypes gets past the audit hook: the next test
    writer = job(layout, "write", targets=targets, ways=ways)
    record = run_method(writer)
    assert not any(any(w.values()) for w in got(writer).values()), got(writer)
    assert {folder: snapshot(folder) for folder in before} == before
    assert {r["access"] for r in record["refused"]} == {"write"}
    assert not escape.exists()


@pytest.mark.timeout(300)
def test_a_write_that_gets_through_stops_the_study_and_the_report_refuses_the_run(tmp_path, built_instance,
                                                                                  monkeypatch, capsys):
    """Where only the audit hook holds, a method that truncates the study's test split through ctypes is
    caught: the study stops before evaluating it, with one line naming the file, and `sebench report`
    refuses the run."""
    monkeypatch.setenv("SEBENCH_ISOLATION", "audit-hook")
    out = tmp_path / "runs" / "mine"
    split = out / "data" / "datasets" / "test" / "single_test.jsonl"
    regime = f"{HOSTILE}:write"
    argv = ["run", "--out", str(out), "--instance", str(built_instance), "--model", "fake:", "--functions", "3",
            "--train-model", f"hf:{tmp_path / 'no-weights'}",  # the method never loads them
            "--set", "splits=[\"single_test\"]", "--set", "untrained_modes=[\"closed\"]",
            "--set", "trained_modes=[\"closed\"]", "--set", "judge.workers=1", "--regimes", regime,
            "--set", f"methods.write.targets=[[\"{split}\", \"truncate\"]]", "--set", "methods.write.ways=[\"ctypes\"]"]
    assert main(argv) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("sebench run: ") and str(split) in last and "changed after stage 'select' finished" in last
    assert not (out / "evals" / "write").exists()  # nothing the method did was evaluated
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 2
    assert str(split) in capsys.readouterr().err


def test_an_agent_at_test_time_leaves_no_file_outside_its_temporary_folder(layout, layer, escape):
    mine, quick = layout / "runs" / "mine", layout / "runs" / "quick"
    targets = [str(mine / "train" / "scribbler" / "agent" / "left.txt"), str(mine / "train" / "scribbler" / "work" / "x"),
               str(quick / "left.txt"), str(escape), str(layout / "home" / "left.txt")]
    trainer = job(layout, "scribbler", targets=targets)
    result = run_method(trainer)["result"]
    before = snapshot(layout)
    backend = AgentBackend(trainer, result)
    answers = backend.generate([GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8)])
    tmp = backend.tmp
    backend.close()
    wrote = json.loads(answers[0][0].text)
    assert wrote.pop("own temporary folder")["python"] is True
    for path, ways in wrote.items():
        assert ways["python"] is False, path
        if layer in KERNEL_LAYERS:
            assert ways["ctypes"] is False, path
    if layer in KERNEL_LAYERS:
        assert snapshot(layout) == before and not escape.exists()
    assert not tmp.exists()  # removed when the test ended


def test_a_returned_checkpoint_outside_the_methods_folder_is_refused(layout):
    other = layout / "runs" / "quick" / "data"
    method = layout / "ckpt.py"
    method.write_text("from pathlib import Path\nfrom sebench.methods import Checkpoint\n\n"
                      f"def elsewhere(ctx):\n    return Checkpoint(Path({str(other)!r}))\n")
    mine = layout / "runs" / "mine"
    outside = MethodJob(ref=resolve(f"{method}:elsewhere"), args={}, data=mine / "data",
                        folder=mine / "train" / "elsewhere", start_model="fake:", seed=0, hidden=(mine,))
    with pytest.raises(SebenchError, match="checkpoint outside its folder"):
        run_method(outside)


def test_a_forced_layer_the_machine_lacks_is_refused_with_one_line(monkeypatch):
    from sebench.methods import isolation_layer

    monkeypatch.setenv("SEBENCH_ISOLATION", "nonsense")
    with pytest.raises(SebenchError, match="not a layer"):
        isolation_layer()


@pytest.mark.skipif(sys.platform != "linux" or "landlock" not in available_layers(), reason="Landlock is Linux's")
def test_landlock_alone_refuses_what_the_audit_hook_would_not_see(tmp_path):
    """The Landlock layer without the hook: libc calls from a fresh interpreter reach only the allow-list
    (a sibling symlink on the way to a hidden folder does not open it)."""
    from sebench.methods import landlock
    from sebench.methods.isolation import Fence

    (tmp_path / "open").mkdir()
    (tmp_path / "open" / "a.txt").write_text("a")
    (tmp_path / "open" / "to-secret").symlink_to(tmp_path / "secret")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "s.txt").write_text("s")
    fence = Fence(read=(Path("/usr"), Path("/lib"), Path("/lib64"), Path("/etc"), Path(sys.prefix),
                        Path(sys.base_prefix), tmp_path), write=(tmp_path / "open",), hidden=(tmp_path / "secret",))
    code = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); from sebench.methods import landlock; "
            "from pathlib import Path; landlock.restrict([Path(p) for p in json.loads(sys.argv[2])], "
            f"[Path({str(tmp_path / 'open')!r})]); import os; "
            f"print(open({str(tmp_path / 'open' / 'a.txt')!r}).read(), end='|'); "
            f"print(os.path.exists({str(tmp_path / 'open' / 'to-secret' / 's.txt')!r}) and "
            f"open({str(tmp_path / 'open' / 'to-secret' / 's.txt')!r}).read())")
    import sebench

    paths = [str(Path(sebench.__file__).parents[1]), *sys.path]
    done = subprocess.run([sys.executable, "-c", code, json.dumps(paths),
                           json.dumps([str(p) for p in fence.read_roots()] + paths)], capture_output=True, text=True)
    assert done.stdout.startswith("a|"), done.stderr
    assert "s" not in done.stdout.split("|")[1] and ("PermissionError" in done.stderr or "False" in done.stdout)
    assert landlock.abi() >= 1


@pytest.mark.skipif(not KERNEL_LAYERS, reason="neither bubblewrap nor Landlock on this machine")
@pytest.mark.parametrize("kernel_layer", KERNEL_LAYERS)
def test_with_the_network_off_only_the_studys_own_services_are_reachable(layout, monkeypatch, kernel_layer):
    """A remote judge's port stays reachable (Landlock's TCP rules, ABI 4+); any other local server does not."""
    from sebench.methods import landlock

    if landlock.abi() < 4:
        pytest.skip("this kernel's Landlock has no TCP rules")
    monkeypatch.setenv("SEBENCH_ISOLATION", kernel_layer)
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
               for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    service, other = (s.server_address[1] for s in servers)
    try:
        peek = replace(job(layout, "peek", targets=[], port=service), sandbox_urls=[f"http://127.0.0.1:{service}"])
        record = run_method(peek)
        assert got(peek)["network"] == {"python": True, "subprocess": True}
        assert record["service_ports"] == [service] and record["network"] is False
        peek = replace(job(layout, "peek", targets=[], port=other), sandbox_urls=[f"http://127.0.0.1:{service}"])
        run_method(peek)
        assert got(peek)["network"] == {"python": False, "subprocess": False}
    finally:
        for server in servers:
            server.shutdown()


def test_gpu_devices_and_shared_memory_are_passed_through_where_the_machine_has_them(monkeypatch, tmp_path):
    """On a GPU machine the method's process needs the device files (read, write, ioctl) and /dev/shm."""
    from sebench.methods import isolation

    devices = [Path("/dev/nvidia0"), Path("/dev/nvidiactl")]
    monkeypatch.setattr(isolation, "gpu_devices", lambda: devices)
    fence = isolation.Fence(read=(Path("/usr"),), write=(tmp_path,))
    argv = isolation.command(fence, ["true"], "bwrap", tmp_path)
    for device in devices:
        at = argv.index(str(device))
        assert argv[at - 1] == "--dev-bind" and argv[at + 1] == str(device) and at > argv.index("--dev")
    assert fence.may_write("/dev/nvidia0") and not fence.may_write("/dev/sda")
    assert isolation.command(fence, ["true"], "landlock", tmp_path) == ["true"]


def test_an_honest_method_is_refused_nothing_under_any_layer(layout, layer):
    """What libraries do on their own (list /dev for GPUs, bind the loopback to test IPv6) is not a refusal:
    a method that only trains leaves `refused` empty, so its card's checklist holds."""
    method = layout / "honest.py"
    method.write_text("import os, socket\nfrom pathlib import Path\nfrom sebench.methods import Checkpoint\n\n"
                      "def honest(ctx):\n    os.listdir('/dev')\n"
                      "    with socket.socket(socket.AF_INET6) as s:\n        try:\n            s.bind(('::1', 0))\n"
                      "        except OSError:\n            pass\n"
                      "    (ctx.workdir / 'out.txt').write_text(str(len(ctx.train_tasks)))\n"
                      "    return Checkpoint(Path(ctx.start_model))\n")
    mine = layout / "runs" / "mine"
    record = run_method(MethodJob(ref=resolve(f"{method}:honest"), args={}, data=mine / "data",
                                  folder=mine / "train" / "honest", start_model="fake:", seed=0, hidden=(mine,)))
    assert record["refused"] == [] and (mine / "train" / "honest" / "work" / "out.txt").read_text() != "0"


def test_links_a_method_leaves_in_its_folder_are_not_followed_by_the_study(layout):
    """The study's process is not fenced: it writes the method's record through no link the method planted
    (the record's temporary file), and reads none of its files through a link (a file it may not read)."""
    mine = layout / "runs" / "mine"
    study_file = mine / "data" / "datasets" / "test" / "single_test.jsonl"
    before = study_file.read_bytes()
    mapping = mine / "data" / "private" / "mapping.json"
    run_method(job(layout, "plant_links", study_file=str(study_file)))
    assert study_file.read_bytes() == before
    record = json.loads((mine / "train" / "plant_links" / "method.json").read_text())
    assert record["returns"] == "checkpoint"
    with pytest.raises(SebenchError, match="not a plain file"):
        run_method(job(layout, "link_result", secret=str(mapping)))

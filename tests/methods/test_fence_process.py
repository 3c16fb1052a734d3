"""The fence's process side, under every layer this machine has (each forced in turn) and, off bubblewrap,
under both ways the keeper holds a method's processes (a PID namespace; a subreaper, forced):

- daemons (a double fork by Python and by ctypes, `setsid`, `nohup`) from a training and from an agent at test
  time are ended with the method; a second run finds nothing they kept;
- with the network off no UDP, raw, packet or netlink socket is made, and UNIX sockets outside the method's
  folder are out of reach where the layer keeps them (docs/methods.md, the layers);
- the method's environment holds no credential, other processes' environ and cmdline are invisible in a PID
  namespace, and its output reaches the study through a pipe;
- runs, instances and exports kept in the method's own folder are hidden, its helper module is not;
- a method that never returns, and an agent that never answers, are ended with one line.

Hostile methods: hostile_process.py, a user's file.
"""

import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.methods import AgentBackend, MethodJob, available_layers, resolve, run_method, seccomp
from sebench.methods.process import keeper_argv, method_env
from sebench.rollout import GenerationRequest

HOSTILE = Path(__file__).with_name("hostile_process.py")
KERNEL_LAYERS = [layer for layer in ("bwrap", "landlock") if layer in available_layers()]
LAYERS = [*KERNEL_LAYERS, "audit-hook"]


def _namespaces_here() -> bool:
    """Whether the keeper makes a PID namespace on this machine (root, or unprivileged user namespaces)."""
    done = subprocess.run(keeper_argv(["true"], 1, None, "landlock"), capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[0])["tree"] == "pid-namespace"


# (layer, how the keeper holds the tree): bubblewrap makes its own PID namespace
TREES = ("pid-namespace", "subreaper") if _namespaces_here() else ("subreaper",)
SETUPS = [(layer, tree) for layer in LAYERS for tree in (("bwrap",) if layer == "bwrap" else TREES)]
HOWS = ("double-fork", "ctypes", "setsid", "nohup")
SECRET = "sk-sebench-test-" + uuid.uuid4().hex


@pytest.fixture(params=SETUPS, ids=lambda s: "-".join(dict.fromkeys(s)))
def setup(request, monkeypatch):
    layer, tree = request.param
    monkeypatch.setenv("SEBENCH_ISOLATION", layer)
    if tree == "subreaper":
        monkeypatch.setenv("SEBENCH_PROCESS_TREE", "subreaper")
    return request.param


@pytest.fixture()
def study(tmp_path, built_instance):
    run = tmp_path / "runs" / "mine"
    (run / "data").parent.mkdir(parents=True)
    os.symlink(built_instance, run / "data")
    return run


def job(study: Path, name: str, label: str | None = None, source: Path = HOSTILE, **args) -> MethodJob:
    data = study / "data"
    return MethodJob(ref=resolve(f"{source}:{name}"), args=args, data=data, folder=study / "train" / (label or name),
                     start_model="fake:", seed=0, hidden=(study, data / "datasets" / "test", data / "private"))


def got(job: MethodJob) -> dict:
    return json.loads((job.workdir / "got.json").read_text())


def living(token: str) -> list[int]:
    """The processes of this machine whose command line holds `token`."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and token.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            continue
    return found


def test_daemons_of_a_training_end_with_it_and_a_second_run_finds_nothing_they_kept(study, setup):
    tokens = {how: f"sebench-daemon-{how}-{uuid.uuid4().hex}" for how in HOWS}
    first = job(study, "daemons", tokens=tokens)
    record = run_method(first)
    assert got(first) == dict.fromkeys(HOWS, True)  # every daemon was up when the method returned
    assert {how: living(token) for how, token in tokens.items()} == {how: [] for how in HOWS}
    assert record["process_tree"] == setup[1] and record["refused"] == []
    work = first.workdir
    beats = {how: (work / f"{token}.heartbeat").read_bytes() for how, token in tokens.items()}
    places = {}
    for how, token in tokens.items():
        places[f"{how} file"] = ["unix", str(work / f"{token}.sock")]
        places[f"{how} abstract"] = ["unix", "\0" + token]
        port = int((work / f"{token}.port").read_text())
        if port:
            places[f"{how} tcp"] = ["tcp", ["127.0.0.1", port]]
    second = job(study, "seek", label="seek", places=places)
    run_method(second)
    assert got(second) == dict.fromkeys(places, "")
    assert {how: (work / f"{token}.heartbeat").read_bytes() for how, token in tokens.items()} == beats


@pytest.mark.parametrize("how", HOWS)
def test_a_daemon_an_agent_leaves_at_test_time_ends_with_it(study, setup, how):
    token = f"sebench-agent-daemon-{uuid.uuid4().hex}"
    trainer = job(study, "lingerer", how=how, token=token)
    backend = AgentBackend(trainer, run_method(trainer)["result"])
    answers = backend.generate([GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8,
                                                  query="a test prompt")])
    said = json.loads(answers[0][0].text)
    folder = Path(said["folder"])
    port = int((folder / f"{token}.port").read_text())
    assert said["up"] and living(token)  # alive while the agent answers
    backend.close()
    assert living(token) == [] and not folder.exists()
    places = {"file": ["unix", str(folder / f"{token}.sock")], "abstract": ["unix", "\0" + token]}
    if port:
        places["tcp"] = ["tcp", ["127.0.0.1", port]]
    second = job(study, "seek", label="seek", places=places)
    run_method(second)
    assert got(second) == dict.fromkeys(places, "")


@pytest.fixture()
def listeners(tmp_path):
    """A UDP server, a UNIX socket file and an abstract UNIX socket of the test's own, outside every fence;
    yields their addresses and what the UDP server received."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.2)
    path = Path("/tmp") / f"sebench-listen-{uuid.uuid4().hex}.sock"
    name = f"sebench-listen-{uuid.uuid4().hex}"
    servers = [socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)]
    servers[0].bind(str(path))
    servers[1].bind("\0" + name)
    received: list[bytes] = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                received.append(udp.recv(100))
            except OSError:
                continue

    for server in servers:
        server.listen()
        threading.Thread(target=lambda s=server: _accept(s, stop), daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()
    yield {"udp_port": udp.getsockname()[1], "unix_path": str(path), "abstract": name}, received
    stop.set()
    for sock in (udp, *servers):
        sock.close()
    path.unlink(missing_ok=True)


def _accept(server: socket.socket, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            server.accept()[0].close()
        except OSError:
            return


def test_with_the_network_off_no_udp_raw_or_netlink_socket_and_unix_sockets_as_each_layer_keeps_them(
        study, layer, listeners):
    addresses, received = listeners
    method = job(study, "sockets", **addresses)
    record = run_method(method)
    reached = got(method)
    assert reached["udp"]["python"] is False and reached["raw or packet or netlink"]["python"] is False
    if seccomp.program(platform.machine()) is not None:  # the kernel keeps it (x86-64, AArch64)
        assert reached["udp"] == {"python": False, "ctypes": False, "subprocess": False}
        assert reached["raw or packet or netlink"] == {"python": False, "ctypes": False}
        assert reached["io_uring"] == {"ctypes": False}
        assert received == []
    assert reached["unix path"]["python"] is False  # the audit hook, on every layer
    if layer == "bwrap":  # neither the socket file nor the abstract name exists in its root and network
        assert not any(reached["unix path"].values()) and not any(reached["unix abstract"].values())
    if layer == "landlock":  # abstract sockets are scoped (ABI 6+); Landlock does not check connect on a file
        assert not any(reached["unix abstract"].values())
        assert reached["unix path"]["ctypes"] is True  # docs/methods.md says so
    refused = {(r["event"], r["access"]) for r in record["refused"]}
    assert {("socket.__new__", "network"), ("socket.connect", "network")} <= refused


@pytest.mark.skipif("bwrap" not in KERNEL_LAYERS, reason="bubblewrap is not on this machine")
def test_with_the_studys_services_bubblewrap_shares_the_network_and_landlock_scopes_abstract_sockets(
        study, monkeypatch, listeners):
    """A remote judge's port needs the machine's network (no namespace of its own): UDP stays refused by the
    seccomp filter, and abstract UNIX sockets by Landlock's scope (ABI 6+)."""
    from sebench.methods import landlock

    if landlock.abi() < 6:
        pytest.skip("this kernel's Landlock has no scopes (ABI 6+)")
    monkeypatch.setenv("SEBENCH_ISOLATION", "bwrap")
    addresses, received = listeners
    method = replace(job(study, "sockets", **addresses), sandbox_urls=["http://127.0.0.1:9"])
    run_method(method)
    reached = got(method)
    assert not any(reached["udp"].values()) and received == []
    assert not any(reached["unix abstract"].values()) and not any(reached["unix path"].values())


def test_the_method_gets_no_secret_and_sees_no_other_process(study, setup, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    monkeypatch.setenv("SEBENCH_TEST_NAMED", "given")
    holder = subprocess.Popen(["sleep", "60", SECRET], env={**os.environ, "OTHER_SECRET": SECRET})
    try:
        method = replace(job(study, "secrets", secret=SECRET), env=("SEBENCH_TEST_NAMED",))
        record = run_method(method)
    finally:
        holder.kill()
        holder.wait()
    seen = got(method)
    assert seen["found"]["own environment"] == {"python": False, "ctypes": False, "subprocess": False}
    assert seen["named"] == "given" and record["env"] == ["SEBENCH_TEST_NAMED"]
    study_outputs = {os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)}
    assert not set(seen["outputs"].values()) & study_outputs, seen["outputs"]
    assert seen["outputs"]["/proc/self/fd/1"].startswith("pipe:")
    assert "a line from the method" in capsys.readouterr().err  # the pipe reaches the study's own output
    if setup[1] != "subreaper":  # a PID namespace with its own /proc: no other process exists there
        assert seen["found"]["/proc"] == {"python": False, "ctypes": False, "subprocess": False}
        assert seen["processes"] < 10


def test_the_method_sees_no_secret_in_os_environ_built_for_it(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = method_env(tmp_path, tmp_path / "cache", network=False)
    assert SECRET not in env.values() and env["CUDA_VISIBLE_DEVICES"] == "0" and env["LC_ALL"] == "C.UTF-8"
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path) and env["HF_HUB_OFFLINE"] == "1"
    assert method_env(tmp_path, tmp_path, network=True, named=("OPENAI_API_KEY",))["OPENAI_API_KEY"] == SECRET


def test_runs_exports_and_instances_in_the_methods_folder_are_hidden_its_own_files_are_not(
        study, layer, tmp_path, built_instance):
    folder = tmp_path / "project"
    old = folder / "runs" / "old"
    old.mkdir(parents=True)
    (old / "stages").mkdir()
    (old / "stages" / "select.json").write_text("{}")
    (old / "data").symlink_to(built_instance)
    (old / "notes.txt").write_text("an earlier run's own notes\n")
    (folder / "built").mkdir()
    for name in ("manifest.json", "README.md"):
        (folder / "built" / name).write_text("{}")
    (folder / "hf" / "data").mkdir(parents=True)
    (folder / "hf" / "README.md").write_text("a dataset card\n")
    (folder / "hf" / "data" / "single_test.jsonl").write_text('{"query": "a test task"}\n')
    (folder / "hf" / "data" / "docs.jsonl").write_text('{"name": "f"}\n')
    (folder / "helper.py").write_text("VALUE = 1\n")
    (folder / "mine.txt").write_text("the method's own data\n")
    source = folder / "peek.py"
    source.write_text(HOSTILE.read_text())
    secret = [old / "notes.txt", old / "stages" / "select.json", old / "data" / "datasets" / "test" / "single_test.jsonl",
              folder / "built" / "README.md", folder / "hf" / "README.md", folder / "hf" / "data" / "docs.jsonl",
              folder / "hf" / "data" / "single_test.jsonl"]
    own = [folder / "helper.py", folder / "mine.txt"]
    method = job(study, "own_folder", source=source, targets=[str(p) for p in (*secret, *own)])
    record = run_method(method)
    reads = got(method)
    for path in own:
        assert all(reads[str(path)].values()), path
    for path in secret:
        ways = reads[str(path)] if layer in KERNEL_LAYERS else {"python": reads[str(path)]["python"]}
        assert not any(ways.values()), path
    assert str(old) in record["allowed"]["hidden"] and str(folder / "hf") in record["allowed"]["hidden"]


def test_a_method_that_never_returns_is_ended_with_its_children(study, setup):
    token = f"sebench-forever-{uuid.uuid4().hex}"
    method = replace(job(study, "forever", token=token), timeout=3.0)
    with pytest.raises(SebenchError, match="ran past its time limit of 3 s"):
        run_method(method)
    assert living(token) == []
    record = json.loads((method.folder / "method.json").read_text())
    assert record["timeout"] == 3.0 and "time limit" in record["error"]


def test_an_agent_that_never_answers_is_ended_after_its_limit_per_prompt(study, setup):
    token = f"sebench-stuck-{uuid.uuid4().hex}"
    trainer = replace(job(study, "stuck", token=token), prompt_timeout=2.0)
    backend = AgentBackend(trainer, run_method(trainer)["result"])
    with pytest.raises(SebenchError, match="longer than 2 s a prompt"):
        backend.generate([GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8)])
    assert living(token) == [] and not backend.tmp.exists()


@pytest.mark.parametrize(("settings", "field"), [({"env": ["OPENAI_API_KEY", "not a name"]}, "env"),
                                                 ({"timeout": -1}, "timeout"), ({"prompt_timeout": "soon"}, "prompt_timeout")])
def test_a_bad_process_setting_is_refused_with_one_line_naming_it(settings, field):
    from sebench.experiment.config import RunConfig

    with pytest.raises(SebenchError, match=rf"^methods\.mine\.{field}: "):
        RunConfig(methods={"mine": settings}).method_process("mine")
    assert RunConfig(methods={"mine": {"env": ["HF_TOKEN"], "timeout": 60}}).method_process("mine") == (
        ("HF_TOKEN",), 60.0, None)


def test_a_method_that_kills_what_holds_its_tree_stops_the_study_with_one_line(study, setup):
    """Only where the audit hook alone holds and no PID namespace is made can a method reach its keeper; the
    study then stops with one line, since its daemons may be left. Everywhere else the kill does not reach."""
    token = f"sebench-regicide-{uuid.uuid4().hex}"
    method = job(study, "regicide", token=token)
    try:
        if setup == ("audit-hook", "subreaper"):
            with pytest.raises(SebenchError, match="keeper was killed"):
                run_method(method)
        else:
            run_method(method)
            assert living(token) == []
    finally:
        for pid in living(token) + living(str(method.workdir)):
            os.kill(pid, 9)  # what the one weak setup leaves behind: this test's own processes


def test_the_report_marks_a_method_given_variables_of_the_studys_environment():
    from sebench.report.methods import notes

    assert notes({"env": ["HF_TOKEN", "WANDB_API_KEY"]}) == ["given HF_TOKEN, WANDB_API_KEY from the study's environment"]
    assert notes({"env": []}) == []


@pytest.mark.skipif(seccomp.program(platform.machine()) is None, reason="the seccomp filter knows x86-64 and AArch64")
def test_the_filter_keeps_netlink_route_and_no_other_netlink_or_udp_socket():
    """torch and NCCL list the network interfaces through NETLINK_ROUTE; no other netlink socket is made."""
    code = ("import socket; from sebench.methods import seccomp; seccomp.install()\n"
            "def made(*a):\n    try:\n        socket.socket(*a).close()\n        return True\n"
            "    except OSError:\n        return False\n"
            "print(made(socket.AF_NETLINK, socket.SOCK_RAW, 0), made(socket.AF_NETLINK, socket.SOCK_RAW, 9), "
            "made(socket.AF_INET, socket.SOCK_STREAM), made(socket.AF_INET, socket.SOCK_DGRAM))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["True", "False", "True", "False"], done.stderr


@pytest.mark.skipif(seccomp.program(platform.machine()) is None, reason="the seccomp filter knows x86-64 and AArch64")
def test_a_judge_sandbox_inside_a_method_keeps_bubblewrap_with_the_network_off():
    """bubblewrap brings up its own loopback through NETLINK_ROUTE: under the filter it still starts."""
    bwrap = shutil.which("bwrap")
    probe = [bwrap or "bwrap", "--unshare-net", "--ro-bind", "/", "/", "true"]
    if bwrap is None or subprocess.run(probe, capture_output=True).returncode != 0:
        pytest.skip("bubblewrap does not run here")
    code = ("import subprocess, sys; from sebench.methods import seccomp; seccomp.install(); "
            "sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode)")
    done = subprocess.run([sys.executable, "-c", code, *probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

"""What a method leaves behind does not reach what runs after it, under every isolation layer this machine has
(each forced in turn; bubblewrap's, and Landlock's and the audit hook's without it).

A method may read folders that outlive it and that the study, a baseline or a later method reads again: the
model hub's cache, its start model (a warm-up base in sebench's cache), the import path and the user's
site-packages (a `.pth` or `usercustomize` there runs in every later Python process), its own source folder
and its compiled modules. It may write none of them, nor self-play's cache (the built-in regimes'). And the study starts a method's next process (a rerun)
in the same work folder: modules left there must not be imported in place of sebench's child or the
standard library's. An agent at test time keeps nothing of one test for the next. Hostile methods:
hostile_persist.py, a user's file (copied to a folder of its own).
Daemons that would write after the study took its copy: test_fence_process.py.
"""

import contextlib
import importlib.util
import json
import os
import shutil
import site
import sysconfig
import uuid
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.files import cache_root
from sebench.methods import AgentBackend, MethodJob, isolation, resolve, run_method
from sebench.methods.fence_paths import selfplay_cache
from sebench.rollout import GenerationRequest

HOSTILE = Path(__file__).with_name("hostile_persist.py")
KERNEL_LAYERS = [layer for layer in ("bwrap", "landlock") if layer in isolation.available_layers()]


@pytest.fixture()
def study(tmp_path, built_instance):
    mine = tmp_path / "runs" / "mine"
    shutil.copytree(built_instance, mine / "data")
    return mine


def job(study: Path, source: Path, name: str, start: str = "fake:", **args) -> MethodJob:
    data = study / "data"
    readable = (Path(start),) if Path(start).is_dir() else ()
    return MethodJob(ref=resolve(f"{source}:{name}"), args=args, data=data, folder=study / "train" / name,
                     start_model=start, seed=0, hidden=(study, data / "datasets" / "test", data / "private"),
                     readable=readable)


def snapshot(folders: list[Path]) -> dict:
    """Every entry beneath `folders` with a regular file's bytes."""
    return {p: p.read_bytes() if p.is_file() else None for f in folders for p in sorted(f.rglob("*"))}


@pytest.fixture()
def shared(tmp_path, monkeypatch):
    """Folders a method reads that outlive it, each with a file; returns (the method's source, targets, the
    folders to compare). The machine's site-packages gets a uniquely named `.pth` target, removed after."""
    hub = tmp_path / "hub" / "models--org--tiny" / "snapshots" / "abc"
    user_site, project, methods = tmp_path / "user-site", tmp_path / "project", tmp_path / "methods"
    warm = cache_root() / f"warmup-{uuid.uuid4().hex}"
    for folder in (hub, user_site, project, methods, warm):
        folder.mkdir(parents=True)
    (hub / "config.json").write_text('{"model_type": "llama"}')
    (user_site / "kept.pth").write_text("")
    (project / "helpers.py").write_text("X = 1\n")
    (warm / "config.json").write_text('{"model_type": "llama"}')
    source = methods / HOSTILE.name
    shutil.copy(HOSTILE, source)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(user_site))
    monkeypatch.syspath_prepend(str(project))
    selfplay = selfplay_cache()  # shared by the built-in self-play regimes, which alone write it
    machine_pth = Path(sysconfig.get_paths()["purelib"]) / f"sebench-poison-{uuid.uuid4().hex}.pth"
    targets = [(hub / "config.json", "append"), (hub / "tokenizer_config.json", "create"),
               (user_site / "kept.pth", "append"), (user_site / "usercustomize.py", "create"),
               (project / "helpers.py", "append"), (project / "sitecustomize.py", "create"),
               (source, "append"), (Path(importlib.util.cache_from_source(str(source))), "create"),
               (methods / "helper.py", "create"), (warm / "config.json", "append"), (warm / "poison.bin", "create"),
               (selfplay / "poison.jsonl", "create"), (machine_pth, "create")]
    if not isolation.shared_memory():  # /dev/shm is a method's where GPUs are (NCCL and torch share memory there)
        targets.append((Path("/dev/shm") / f"sebench-poison-{uuid.uuid4().hex}", "create"))
    yield source, warm, targets, [tmp_path / "hub", user_site, project, methods, warm, selfplay]
    for path, _ in targets:
        if path.parent in (machine_pth.parent, Path("/dev/shm")):
            path.unlink(missing_ok=True)
    shutil.rmtree(warm, ignore_errors=True)


def test_a_method_writes_no_folder_that_outlives_it_and_is_read_again(study, layer, shared):
    source, warm, targets, folders = shared
    ways = ["python", "ctypes", "subprocess"] if layer in KERNEL_LAYERS else ["python"]  # ctypes: test_fence.py
    before = snapshot(folders)
    outside = [path for path, _ in targets if path.parent == Path("/dev/shm")]
    method = job(study, source, "leave", start=str(warm), targets=[[str(p), how] for p, how in targets], ways=ways)
    record = run_method(method)
    got = json.loads((method.workdir / "got.json").read_text())
    assert snapshot(folders) == before, got
    assert not any(path.exists() for path, how in targets if how == "create"), got
    assert not any(ways["python"] for ways in got.values()), got
    assert record["refused"] and {r["access"] for r in record["refused"]} == {"write"}
    if layer in KERNEL_LAYERS:  # bubblewrap's /dev is the method's own: a file made in its /dev/shm ends with it
        written = {path: ways for path, ways in got.items() if any(ways.values())}
        assert list(written) == ([str(p) for p in outside] if layer == "bwrap" else []), written


PLANTED = {"sebench": "sebench/methods/child.py", "json": "json.py", "sitecustomize": "sitecustomize.py",
           "pythonpath": "lib/json.py"}


@pytest.mark.parametrize("shadow", list(PLANTED))
def test_modules_a_method_leaves_in_its_work_folder_are_not_imported_by_its_rerun(study, layer, shadow, tmp_path,
                                                                                  monkeypatch):
    """Its rerun starts in the same work folder: a package `sebench`, a module `json` or `sitecustomize` left
    there (or beneath it, where the study's PYTHONPATH has a relative entry) would run before its fence,
    unfenced under Landlock and the audit hook (it read the test split); it is never imported."""
    if shadow == "pythonpath":
        monkeypatch.chdir(tmp_path)  # the study's `lib`, which does not exist
        monkeypatch.setenv("PYTHONPATH", "lib")
    secret = study / "data" / "datasets" / "test" / "single_test.jsonl"
    method = job(study, HOSTILE, "plant_modules", shadow=shadow, secret=str(secret),
                 marker=str(study / "train" / "plant_modules" / "work" / "planted-ran.txt"))
    with pytest.raises(SebenchError, match="rerun me"):
        run_method(method)
    assert (method.workdir / PLANTED[shadow]).is_file()
    with contextlib.suppress(SebenchError):
        run_method(method)  # the rerun: the method fails again, as itself
    marker = method.workdir / "planted-ran.txt"
    assert not marker.exists(), marker.read_text()[:80]


def test_a_shared_files_permissions_are_kept_where_the_layer_keeps_them(study, layer, shared):
    """A start model made unreadable fails the baseline and every method after it. bubblewrap mounts it
    read-only; the audit hook refuses Python's chmod; Landlock does not check a file's permissions, owner,
    times or attributes (docs/methods.md, the layers): ctypes and subprocesses change them."""
    source, warm, _, _ = shared
    model = warm / "config.json"
    mode = model.stat().st_mode
    ways = ["python", "ctypes", "subprocess"] if layer in KERNEL_LAYERS else ["python"]
    method = job(study, source, "leave", start=str(warm), targets=[[str(model), "chmod"]], ways=ways)
    try:
        record = run_method(method)
        after = model.stat().st_mode
    finally:
        model.chmod(mode)
    got = json.loads((method.workdir / "got.json").read_text())[str(model)]
    assert got["python"] is False and {r["event"] for r in record["refused"]} == {"os.chmod"}
    if layer == "bwrap":
        assert after == mode and not any(got.values())
    if layer == "landlock":
        assert got["ctypes"] and got["subprocess"] and after != mode  # docs/methods.md says so


def test_an_agent_keeps_nothing_of_one_test_for_the_next(study, layer, shared):
    """An agent sees the test prompts; it may keep them in memory while it answers, but nothing it writes then
    reaches the next test's agent (another split, a rerun): not its state (the study's copy), not its training
    folder, not a shared folder."""
    source = shared[0]
    hub = Path(os.environ["HF_HUB_CACHE"]) / "models--org--tiny" / "snapshots" / "abc"
    places = ["STATE", str(study / "train" / "hoarder" / "work"), str(study / "train" / "hoarder" / "agent"),
              str(hub), str(source.parent)]
    ways = ["python", "ctypes", "subprocess"] if layer in KERNEL_LAYERS else ["python"]
    trainer = job(study, source, "hoarder", places=places, ways=ways)
    result = run_method(trainer)["result"]
    prompt = GenerationRequest(messages=[{"role": "user", "content": "q"}], max_tokens=8, query="a test prompt")
    said = []
    for _ in range(2):
        backend = AgentBackend(trainer, result)
        try:
            said.append(json.loads(backend.generate([prompt])[0][0].text))
        finally:
            backend.close()
    assert not any(any(ways.values()) for ways in said[0]["wrote"].values()), said[0]["wrote"]
    assert not any(said[1]["seen"].values()), said[1]["seen"]
    assert not list(study.rglob("hoard.txt")) and not list(hub.parent.rglob("hoard.txt"))

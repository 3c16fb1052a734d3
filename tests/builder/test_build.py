import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sebench.builder.run import build_instance
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.records import ApiDoc, read_records
from sebench.tasks.generate import TaskSizes

OFFICIAL = Path(__file__).resolve().parents[3] / "shared/reference/official_api_doc.jsonl"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _quick(out, seed, **kw):
    return build_instance(out, seed, docs=False, audit=False, **kw)


def test_same_seed_gives_byte_identical_instances(tmp_path):
    a = _files(_quick(tmp_path / "a", 5))
    b = _files(_quick(tmp_path / "b", 5))
    assert a == b
    c = _files(_quick(tmp_path / "c", 6))
    assert a["manifest.json"] != c["manifest.json"]


def test_instance_layout_mapping_and_manifest(tmp_path):
    root = _quick(tmp_path / "inst", 1)
    inst = Instance.open(root)
    mapping = inst.mapping()
    assert set(mapping) >= {"package", "linalg", "array_type", "constructor", "functions"}
    assert len(mapping["functions"]) == 278
    assert mapping["constructor"] == mapping["functions"]["numpy.array"]
    assert all(v.startswith(mapping["package"] + "." + mapping["linalg"] + ".")
               for k, v in mapping["functions"].items() if k.startswith("numpy.linalg."))
    docs = read_records(inst.api_doc_path, ApiDoc)
    assert [d.name for d in docs] == list(mapping["functions"].values())
    manifest = inst.manifest()
    assert manifest["package"] == mapping["package"] and manifest["seed"] == 1
    assert manifest["counts"]["functions"] == 278
    for rel, digest in manifest["hashes"].items():
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == digest
    listed = set(manifest["hashes"])
    assert listed == {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"manifest.json"}
    pkg_files = {p.name for p in (inst.package_dir / mapping["package"]).iterdir()}
    assert not any("mapping" in f for f in pkg_files) and "__pycache__" not in pkg_files
    assert not (root.parent / "inst.partial").exists()


def test_docstrings_reach_the_package(tmp_path):
    root = _quick(tmp_path / "inst", 2)
    inst = Instance.open(root)
    docs = {d.name: d.doc for d in inst.api_docs()}
    code = ("import json, sys, importlib\n"
            "m = json.loads(sys.argv[1])\n"
            "out = {}\n"
            "for pub in m:\n"
            "    mod, name = pub.rsplit('.', 1)\n"
            "    out[pub] = getattr(importlib.import_module(mod), name).__doc__\n"
            "print(json.dumps(out))\n")
    res = subprocess.run([sys.executable, "-c", code, json.dumps(list(docs))], capture_output=True, text=True,
                         env={"PYTHONPATH": str(inst.package_dir)}, check=True)
    assert json.loads(res.stdout) == docs


def _tree(root: Path) -> dict[str, str]:
    """Every file and folder under root: the sha256 of a file, "dir" for a folder."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def test_build_over_an_instance_is_refused_and_changes_nothing(tmp_path, capsys):
    from sebench.cli import main

    root = _quick(tmp_path / "inst", 3, task_sizes=TaskSizes(train=3, single=2, multiple=1))
    run = tmp_path / "runs" / "quick"  # a study made on it with --instance
    (run / "stages").mkdir(parents=True)
    (run / "stages" / "instance.json").write_text(json.dumps({"stage": "instance", "config": {"path": str(root)}}))
    before = _tree(tmp_path)
    assert main(["build", "--out", str(root), "--seed", "4", "--no-tasks"]) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1
    counts = Instance.open(root).manifest()["counts"]
    tasks = ", ".join(f"{counts[s]} {s}" for s in ("train", "single_test", "multiple_test") if counts[s])
    for lost in (f"tasks: {tasks}", "package ", "private/mapping.json", str(run), "--overwrite"):
        assert lost in message
    assert _tree(tmp_path) == before  # not a byte changed, and nothing written beside it


def test_overwrite_swaps_in_a_complete_instance(tmp_path):
    root = _quick(tmp_path / "inst", 3)
    (root / "stale.txt").write_text("x")
    _quick(root, 6, overwrite=True)
    assert _files(root) == _files(_quick(tmp_path / "fresh", 6))  # the new instance, whole, nothing old in it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "inst"]  # no .partial or .old left
    other = tmp_path / "notes"
    other.mkdir()
    (other / "a.txt").write_text("keep")
    with pytest.raises(SebenchError, match="not an instance directory"):
        _quick(other, 3, overwrite=True)


def test_a_build_that_fails_midway_leaves_the_old_instance(tmp_path, monkeypatch):
    from sebench.builder import run as build_run

    root = _quick(tmp_path / "inst", 3)
    before = _tree(root)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the package and docs of the new instance are written by now

    monkeypatch.setattr(build_run, "write_task_files", killed)
    with pytest.raises(KeyboardInterrupt):
        _quick(root, 4, task_sizes=TaskSizes(train=3, single=2, multiple=1), overwrite=True)
    assert _tree(root) == before
    assert Instance(tmp_path / "inst.partial").mapping()["functions"]  # the new one stopped beside it


def test_package_name_option(tmp_path):
    root = _quick(tmp_path / "inst", 0, package_name="tovelak")
    assert Instance.open(root).mapping()["package"] == "tovelak"
    assert (root / "package/tovelak/__init__.py").is_file()


@pytest.mark.skipif(not OFFICIAL.is_file(), reason="shared/reference is not beside the repository")
def test_mapping_from_official_builds_zwc(tmp_path):
    root = _quick(tmp_path / "zwc", 0, mapping_from=OFFICIAL)
    mapping = Instance.open(root).mapping()
    assert mapping["package"] == "zwc" and mapping["linalg"] == "rfx" and mapping["constructor"] == "zwc.yitaf"
    code = ("import zwc\n"
            "a = zwc.yitaf([[2.0, 0.0], [0.0, 4.0]])\n"
            "print(repr(zwc.rfx.quvohe(a)), zwc.falekef(-3))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(root / "package")}, check=True)
    assert res.stdout.split("\n")[0] == "yitaf([[0.5 , 0.  ],"
    assert res.stdout.strip().endswith("3")


def test_cli_build_and_flags(tmp_path):
    import argparse

    from sebench.builder import cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["build", "--out", str(tmp_path / "x"), "--seed", "4", "--no-tasks"])
    assert cli.task_sizes(args) is None
    args = parser.parse_args(["build", "--out", "x", "--no-tasks", "--n-train", "3"])
    with pytest.raises(SebenchError, match="--no-tasks cannot be combined"):
        cli.task_sizes(args)
    args = parser.parse_args(["build", "--out", "x", "--n-train", "-1"])
    with pytest.raises(SebenchError, match="--n-train: must be 0 or more"):
        cli.task_sizes(args)
    args = parser.parse_args(["build", "--out", "x", "--n-train", "7"])
    sizes = cli.task_sizes(args)
    assert sizes.train == 7 and sizes.single > 0


def test_build_runs_the_audit_and_fails_on_a_leak(tmp_path, monkeypatch):
    from sebench.obfuscate import write as write_mod

    build_instance(tmp_path / "clean", 8, docs=False)  # minimal docs: the audit finds nothing
    assert (tmp_path / "clean/manifest.json").is_file()
    real = write_mod._minimal_docs

    def leaky(names):
        docs = real(names)
        return [docs[0].__class__(docs[0].name, docs[0].signature, docs[0].doc + "\nSame as numpy.mean."), *docs[1:]]

    monkeypatch.setattr(write_mod, "_minimal_docs", leaky)
    with pytest.raises(SebenchError, match=r"(?s)leak audit found .*numpy-word"):
        build_instance(tmp_path / "leaky", 8, docs=False)
    assert not (tmp_path / "leaky").exists() and (tmp_path / "leaky.partial").is_dir()


def test_cli_audit_prints_findings_and_exit_code(tmp_path, capsys):
    import argparse

    from sebench.builder import cli

    root = build_instance(tmp_path / "inst", 9, docs=False)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["audit", str(root)])
    assert args.func(args) == 0
    assert "0 finding(s)" in capsys.readouterr().out
    with (root / "datasets/train/api_doc.jsonl").open("a") as fh:
        fh.write(json.dumps({"name": "x", "signature": "x()", "doc": "Like np.mean."}) + "\n")
    assert args.func(args) == 1
    out = capsys.readouterr().out
    assert "datasets/train/api_doc.jsonl:279:" in out and "1 finding(s)" not in out.split("\n")[0]


def test_full_build_is_byte_identical(built_instance, tmp_path):
    """The session's real instance (docs and tasks) rebuilt with the same arguments."""
    again = build_instance(tmp_path / "again", 0, task_sizes=_small_sizes(), audit=False)
    assert _files(again) == _files(built_instance)


def _small_sizes():
    from sebench.tasks.generate import TaskSizes

    return TaskSizes(train=60, single=30, multiple=20)

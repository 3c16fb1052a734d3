"""A method's source in a bundle: a module method's package is packed by its import paths, loads again from the
extracted folder, and a changed file fails the method check naming it; a file that changed since the run is
refused at submit."""

import hashlib
import json
import re
import textwrap

import pytest

from sebench.errors import SebenchError
from sebench.submit import Bundle
from sebench.submit.bundle import source_members
from sebench.submit.rerun import extract_sources
from sebench.submit.verify import Mismatch, check_method

CODE = textwrap.dedent("""
    from pathlib import Path
    from sebench.methods import Checkpoint

    def keep_start(ctx, note="none"):
        return Checkpoint(Path(ctx.start_model))
""")


@pytest.fixture()
def module_method(tmp_path, monkeypatch):
    """A package `mine_pkg` with the method in mine_pkg/methods.py, importable; its method.json."""
    package = tmp_path / "lib" / "mine_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "methods.py").write_text(CODE)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    return {"label": "keep_start", "spec": "mine_pkg.methods:keep_start", "origin": "module", "args": {"note": "x"},
            "source_sha256": hashlib.sha256(CODE.encode()).hexdigest()}


def _bundle(tmp_path, method: dict, sources: dict, entry: str) -> Bundle:
    sub = {"label": method["label"], "spec": method["spec"], "origin": method["origin"], "args": method["args"],
           "entry": entry, "sources": sorted(sources)}
    members = {"method/method.json": json.dumps(method).encode(), "submission.json": json.dumps(sub).encode(),
               **sources}
    return Bundle(tmp_path / "b.tar.gz", members)


def test_a_module_methods_package_is_bundled_loaded_again_and_checked(tmp_path, module_method, monkeypatch):
    sources, entry = source_members(module_method)
    assert entry == "mine_pkg.methods:keep_start"
    assert sorted(sources) == ["method/source/mine_pkg/__init__.py", "method/source/mine_pkg/methods.py"]
    bundle = _bundle(tmp_path, module_method, sources, entry)
    check_method(bundle)
    monkeypatch.setenv("PYTHONPATH", "")
    folder = extract_sources(bundle, tmp_path / "extracted")
    assert (folder / "mine_pkg/methods.py").read_text() == CODE
    changed = {**sources, "method/source/mine_pkg/methods.py": CODE.encode() + b"# changed\n"}
    with pytest.raises(Mismatch, match=re.escape("method/source/mine_pkg/methods.py: its sha256 is not method/method.json's")):
        check_method(_bundle(tmp_path, module_method, changed, entry))
    with pytest.raises(Mismatch, match=re.escape("submission.json: args")):
        check_method(Bundle(bundle.path, {**bundle.members, "method/method.json": json.dumps(
            {**module_method, "args": {"note": "y"}}).encode()}))


def test_a_method_file_changed_since_the_run_is_refused(tmp_path):
    method_file = tmp_path / "m.py"
    method_file.write_text(CODE)
    method = {"spec": f"{method_file}:keep_start", "origin": "file", "source_sha256": "0" * 64}
    with pytest.raises(SebenchError, match="changed since the run"):
        source_members(method)
    sources, entry = source_members({**method, "source_sha256": hashlib.sha256(CODE.encode()).hexdigest()})
    assert sources == {"method/source/m.py": CODE.encode()} and entry == "m.py:keep_start"


def test_the_cards_checklist_counts_every_refused_access_not_only_reads():
    from sebench.submit.card import refused_reads

    wrote = refused_reads({"refused": [{"access": "write"}, {"access": "network"}], "refused_reads": []})
    assert wrote.state == "no" and "2 refused (network, write)" in wrote.detail
    assert refused_reads({"refused": [], "refused_reads": []}).state == "yes"
    assert refused_reads({"refused_reads": [{"path": "x"}]}).state == "no"  # a record from before `refused`

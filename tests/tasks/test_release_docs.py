"""`sebench build --mapping-from api_doc.jsonl --docs original`: the release's rewritten docs, as they are."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from released import SHARED_API_DOC, write_api_doc, write_jsonl

from sebench.builder.run import build_instance
from sebench.cli import main
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.obfuscate.names import generate_names


def _doc(numpy_key: str, short: str) -> str:
    return f"\n{short}(a, axis=None)\n\nThe released text for {short}; see `{short}` in the package.\n"


def test_docs_original_uses_the_rewritten_docs(tmp_path, capsys):
    mapping = generate_names(11).mapping()
    api_doc = write_api_doc(tmp_path / "api_doc.jsonl", mapping, doc_of=_doc)
    out = tmp_path / "inst"
    assert main(["build", "--out", str(out), "--mapping-from", str(api_doc), "--docs", "original", "--no-tasks"]) == 0
    inst = Instance.open(out)
    docs = {d.name: d for d in inst.api_docs()}
    assert list(docs) == list(mapping["functions"].values())
    mean = mapping["functions"]["numpy.mean"]
    short = mean.rsplit(".", 1)[1]
    assert docs[mean].doc == _doc("numpy.mean", short).strip("\n")
    assert docs[mean].signature.startswith(f"{short}(")  # the package's own signature line
    assert inst.manifest()["docs"] == "original"
    code = f"import importlib; m = importlib.import_module('{mean.rsplit('.', 1)[0]}'); print(m.{short}.__doc__)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(inst.package_dir)})
    assert res.stdout.strip() == docs[mean].doc.strip()


def test_sebench_docs_stay_the_default(tmp_path):
    mapping = generate_names(12).mapping()
    api_doc = write_api_doc(tmp_path / "api_doc.jsonl", mapping, doc_of=_doc)
    root = build_instance(tmp_path / "inst", 0, mapping_from=api_doc, docs=False, audit=False)
    inst = Instance.open(root)
    assert inst.manifest()["docs"] == "sebench"
    assert not any("The released text" in d.doc for d in inst.api_docs())


def test_docs_original_needs_the_release_and_every_doc(tmp_path):
    with pytest.raises(SebenchError, match=r"--docs original .* --mapping-from"):
        build_instance(tmp_path / "a", 0, docs_from="original", audit=False)
    mapping = generate_names(13).mapping()
    path = write_api_doc(tmp_path / "api_doc.jsonl", mapping, doc_of=_doc)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    del rows[5]["rewritten_doc"]
    write_jsonl(path, rows)
    with pytest.raises(SebenchError, match=r"api_doc\.jsonl:6: field 'rewritten_doc': missing"):
        build_instance(tmp_path / "b", 0, mapping_from=path, docs_from="original", audit=False)
    write_jsonl(path, rows[:5] + rows[6:])
    with pytest.raises(SebenchError, match=r"field 'rewritten_doc': no row documents"):
        build_instance(tmp_path / "c", 0, mapping_from=path, docs_from="original", audit=False)
    assert not list(tmp_path.glob("[bc]*"))  # nothing written, not even a partial folder


@pytest.mark.skipif(not SHARED_API_DOC.is_file(), reason="shared/reference is not beside the repository")
def test_the_released_docs_build_with_the_audit_as_a_warning(tmp_path, caplog):
    rows = {json.loads(line)["curr_name"]: json.loads(line) for line in SHARED_API_DOC.read_text().splitlines()}
    root = build_instance(tmp_path / "orig", 0, mapping_from=SHARED_API_DOC, docs_from="original")
    assert any("leak audit finds" in r.getMessage() for r in caplog.records)
    docs = {d.name: d.doc for d in Instance.open(root).api_docs()}
    assert len(docs) == 278
    assert docs["zwc.rfx.quvohe"] == rows["quvohe"]["rewritten_doc"].strip("\n")

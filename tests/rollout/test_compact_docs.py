"""Compact docs keep each function's name and signature, are shorter, and make a usable instance copy."""

from __future__ import annotations

from sebench.instance import Instance
from sebench.records import ApiDoc
from sebench.rollout.compact_docs import compact_doc, write_compact_instance
from sebench.rollout.prompts import PromptBuilder, format_doc

DOC = ApiDoc(
    name="pkg.tolu",
    signature="tolu(a, axis=None)",
    doc="tolu(a, axis=None)\n\nSum of the elements along an axis.\n\nParameters\n----------\na : array_like\n"
        "    Input.\n\nExamples\n--------\n>>> import pkg\n>>> x = pkg.mek([1, 2])\n>>> pkg.tolu(x)\n3\n"
        ">>> pkg.tolu([[1], [2]], axis=0)\nmek([3])\n",
)


def test_compact_doc_keeps_name_signature_summary_and_first_example():
    short = compact_doc(DOC)
    assert (short.name, short.signature) == (DOC.name, DOC.signature)
    assert short.doc == "Sum of the elements along an axis.\n\nExample:\n>>> x = pkg.mek([1, 2])\n>>> pkg.tolu(x)\n3"
    assert "`pkg.tolu(a, axis=None)`" in format_doc(short)


def test_compact_instance_is_shorter_and_idempotent(built_instance, tmp_path):
    source = Instance.open(built_instance)
    out = write_compact_instance(source, tmp_path / "compact")
    compact = Instance.open(out)
    assert compact.manifest()["docs_form"] == "compact"
    full_docs, short_docs = source.api_docs(), compact.api_docs()
    assert [(d.name, d.signature) for d in full_docs] == [(d.name, d.signature) for d in short_docs]
    assert all(len(format_doc(s)) <= len(format_doc(f)) for f, s in zip(full_docs, short_docs))
    assert sum(map(len, map(format_doc, short_docs))) < sum(map(len, map(format_doc, full_docs))) / 3
    task = compact.tasks("single_test")[0]
    assert len(PromptBuilder(compact, "open").messages(task)[1]["content"]) < \
        len(PromptBuilder(source, "open").messages(task)[1]["content"])
    stamp = compact.api_doc_path.stat().st_mtime_ns
    write_compact_instance(source, out)
    assert compact.api_doc_path.stat().st_mtime_ns == stamp

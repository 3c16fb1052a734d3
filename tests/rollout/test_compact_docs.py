"""Compact docs keep each function's name and signature, are shorter, and make a usable instance copy."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("paragraph, summary", [
    ("Return a new array with sub-arrays along an axis deleted. For a one dimensional array, this\n"
     "returns those entries not returned by `arr[obj]`.", "Return a new array with sub-arrays along an axis deleted."),
    ("Perform an indirect partition along the given axis using the algorithm specified by the `kind`\n"
     "keyword. It returns an array of indices.",
     "Perform an indirect partition along the given axis using the algorithm specified by the `kind` keyword."),
    ("Flatten an iterable with multiple levels of nesting (e.g. a list of lists of tuples) into\nnon-iterable types.",
     "Flatten an iterable with multiple levels of nesting (e.g. a list of lists of tuples) into non-iterable types."),
    ("Batch data into tuples of length *n*. If *strict*, the last batch raises.", "Batch data into tuples of length *n*."),
    ("Replace NaN with zero. If *copy*, a copy.", "Replace NaN with zero."),
    ('Flatten in the "C" order. "F" is the other.', 'Flatten in the "C" order.'),
    ("Compare two arrays, cf. Foo and vs. Bar, element-wise. Then more.",
     "Compare two arrays, cf. Foo and vs. Bar, element-wise."),
    ("Returns the greatest common divisor of ``|x1|`` and ``|x2|``", "Returns the greatest common divisor of ``|x1|`` "
     "and ``|x2|``"),
])
def test_the_summary_is_the_first_sentence_whole_where_it_wraps(paragraph, summary):
    doc = ApiDoc(name="pkg.tolu", signature="tolu(a)", doc=f"tolu(a)\n\n{paragraph}\n\nParameters\n----------\n")
    assert compact_doc(doc).doc == summary


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

"""build_docs: the rewriting rules on a tiny mapping, then the real docs of a built instance."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from sebench.obfuscate.audit import LeakChecker, Surface
from sebench.obfuscate.docs_examples import CodeRewriter, parse_examples, prepare
from sebench.obfuscate.docs_text import Namer, rewrite_block

MAPPING = {
    "package": "zwc", "linalg": "rfx", "array_type": "Qoravet", "constructor": "zwc.yitaf",
    "functions": {
        "numpy.mean": "zwc.kocito", "numpy.array": "zwc.yitaf", "numpy.average": "zwc.bavuto",
        "numpy.sum": "zwc.sumeto", "numpy.sin": "zwc.sinabu", "numpy.arange": "zwc.raroge",
        "numpy.absolute": "zwc.bosal", "numpy.reshape": "zwc.reshim", "numpy.transpose": "zwc.tiloz",
        "numpy.linalg.inv": "zwc.rfx.quvohe", "numpy.linalg.det": "zwc.rfx.dekami", "numpy.linspace": "zwc.linaro",
    },
}
CHECKER = LeakChecker(Surface.from_mapping(MAPPING, array_attrs={"shape", "ndim"}))


def rewrite(text: str, linalg: bool = False, params=()) -> str:
    namer = Namer(MAPPING, in_linalg=linalg, params=frozenset(params))
    return "\n".join(rewrite_block(namer, text.split("\n"), CHECKER))


def examples(text: str) -> list:
    chunks = parse_examples(text.split("\n"))
    prepare(chunks, CodeRewriter(Namer(MAPPING), CHECKER))
    return [s for c in chunks if c.kind == "code" for s in c.stmts]


def test_dotted_numpy_names_become_public_names():
    out = rewrite("Use `np.mean` or :func:`numpy.average`; see also `numpy.linalg.inv`.")
    assert out == "Use `zwc.kocito` or `zwc.bavuto`; see also `zwc.rfx.quvohe`."


def test_bare_backticked_names_resolve_in_the_documented_namespace():
    assert rewrite("The `mean` of the values.") == "The `zwc.kocito` of the values."
    assert rewrite("Like `inv` but cheaper.", linalg=True) == "Like `zwc.rfx.quvohe` but cheaper."


def test_parameters_named_like_numpy_functions_stay():
    assert rewrite("Only where `where` is True; `a` is the input.", params={"where", "a"}) == (
        "Only where `where` is True; `a` is the input.")


def test_sentence_naming_a_missing_function_is_dropped():
    assert rewrite("First sentence. See `nanmean` for NaNs. Last one.") == "First sentence. Last one."


def test_numpy_names_used_as_words_in_running_text():
    assert rewrite("Use linspace for ranges. The mean is fine. Or nanmean for NaNs.") == (
        "Use ``zwc.linaro`` for ranges. The mean is fine.")


def test_urls_versions_and_citations_are_dropped():
    out = rewrite("Fast [1]_. Added in NumPy 1.20.0. See https://example.org for more.")
    assert out == "Fast."


def test_other_libraries_are_dropped():
    assert rewrite("Keep this. For plots use matplotlib. The SciPy version is faster.") == "Keep this."


def test_numpy_words_become_the_package_and_array_type():
    assert rewrite("Returns an ndarray of NumPy values.") == "Returns a Qoravet of zwc values."


def test_version_directives_are_dropped():
    text = "Text.\n\n.. versionadded:: 1.20.0\n    The where argument.\n\nMore text."
    assert rewrite(text) == "Text.\n\nMore text."


def test_example_code_is_renamed_and_imports_vanish():
    stmts = examples(">>> import numpy as np\n>>> x = np.array([1, 2])\n>>> np.mean(x)\n1.5")
    assert [s.drop for s in stmts] == ["import", "", ""]
    assert [s.source for s in stmts[1:]] == ["x = zwc.yitaf([1, 2])", "zwc.kocito(x)"]


def test_example_lines_outside_the_package_go_with_their_dependents():
    stmts = examples(
        ">>> import numpy as np\n>>> import matplotlib.pyplot as plt\n>>> x = np.array([1, 2])\n"
        ">>> plt.plot(x)\n>>> f = np.fft.fft(x)\n>>> f\n>>> np.mean(x)"
    )
    assert [s.drop for s in stmts] == ["import", "outside the package", "", "outside the package",
                                       "numpy-only name", "depends on a dropped statement", ""]


def test_array_methods_become_package_calls():
    stmts = examples(">>> import numpy as np\n>>> a = np.array([[1, 2], [3, 4]])\n>>> a.sum(axis=0)\n>>> a.T\n"
                     ">>> a.shape")
    assert [s.source for s in stmts[2:]] == ["zwc.sumeto(a, axis=0)", "zwc.tiloz(a)", "a.shape"]


def test_random_data_becomes_deterministic_package_data():
    stmts = examples(">>> import numpy as np\n>>> rng = np.random.default_rng()\n>>> a = rng.normal(size=(2, 3))")
    assert stmts[1].drop == "import"
    assert stmts[2].source == "a = zwc.reshim(zwc.sinabu(zwc.raroge(1.0, 7.0)), (2, 3))"


def test_linalg_alias_imports():
    stmts = examples(">>> from numpy import linalg as LA\n>>> LA.inv([[1.0, 0.0], [0.0, 2.0]])")
    assert stmts[1].source == "zwc.rfx.quvohe([[1.0, 0.0], [0.0, 2.0]])"


# ---- the real thing --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def instance(built_instance):
    mapping = json.loads((built_instance / "private/mapping.json").read_text())
    docs = [json.loads(line) for line in (built_instance / "datasets/train/api_doc.jsonl").read_text().splitlines()]
    return built_instance, mapping, docs


def test_every_function_has_one_doc(instance):
    _, mapping, docs = instance
    assert [d["name"] for d in docs] == list(mapping["functions"].values())
    for d in docs:
        short = d["name"].rsplit(".", 1)[1]
        assert d["signature"].startswith(short + "(")
        assert d["doc"].startswith(d["signature"] + "\n")


def test_every_doc_has_examples(instance):
    _, mapping, docs = instance
    missing = [d["name"] for d in docs if f"Examples\n--------\n>>> import {mapping['package']}\n" not in d["doc"]]
    assert missing == []


_DOCTEST = r'''
import doctest, importlib, io, json, math, sys
root = sys.argv[1]
sys.path.insert(0, root + "/package")
mapping = json.load(open(root + "/private/mapping.json"))
pkg = importlib.import_module(mapping["package"])
parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
failed, count = [], 0
for line in open(root + "/datasets/train/api_doc.jsonl"):
    d = json.loads(line)
    test = parser.get_doctest(d["doc"], {mapping["package"]: pkg, "math": math}, d["name"], None, 0)
    count += len(test.examples)
    out = io.StringIO()
    if runner.run(test, out=out.write).failed:
        failed.append(out.getvalue()[:2000])
print(json.dumps({"count": count, "failed": failed}))
'''


def test_examples_run_and_show_their_real_outputs(instance):
    """Every example of every doc, rerun in a fresh process with doctest, gives exactly what it shows."""
    root, _, _ = instance
    proc = subprocess.run([sys.executable, "-c", _DOCTEST, str(root)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["count"] > 1500
    assert result["failed"] == []


def test_docs_are_deterministic_and_quick(instance):
    from sebench.obfuscate.docs import LAST_STATS, build_docs

    root, mapping, docs = instance
    start = time.perf_counter()
    again = build_docs(root / "package", mapping)
    seconds = time.perf_counter() - start
    assert [{"name": d.name, "signature": d.signature, "doc": d.doc} for d in again] == docs
    assert LAST_STATS["with_examples"] == len(docs)
    assert seconds < 60  # target: well under 20 s on 2 cores; generous here for loaded CI machines

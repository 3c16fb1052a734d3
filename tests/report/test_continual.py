"""The lifelong measures on hand-made verdicts with known answers, and the mix-up detector on answers that
call another library's names."""

from __future__ import annotations

import pytest

from sebench.records import Verdict
from sebench.report import continual

ROWS = ("base", "after L1", "after L2", "after L3")
LIBRARIES = ("L1", "L2", "L3")
# correct answers of 4 per cell: R = [[0, 0, .25], [1, 0, .25], [.5, .75, .5], [.25, 1, .75]]
CORRECT = ((0, 0, 1), (4, 0, 1), (2, 3, 2), (1, 4, 3))


def _verdicts(correct: int, n: int, prefix: str = "t") -> list[Verdict]:
    return [Verdict(task_id=f"{prefix}{i}", sample_idx=0, verdict="correct" if i < correct else "wrong_answer",
                    tests_passed=0, tests_total=1, mode="closed") for i in range(n)]


def _cells(correct=CORRECT, n: int = 4) -> dict:
    return {(row, lib): _verdicts(correct[s][j], n) for s, row in enumerate(ROWS) for j, lib in enumerate(LIBRARIES)}


def test_the_matrix_counts_each_cells_verdicts():
    m = continual.accuracy_matrix(ROWS, LIBRARIES, _cells())
    assert m.values() == [[0.0, 0.0, 0.25], [1.0, 0.0, 0.25], [0.5, 0.75, 0.5], [0.25, 1.0, 0.75]]
    assert m.n == ((4, 4, 4),) * 4


def test_measures_of_a_hand_made_matrix():
    got = continual.measures(continual.accuracy_matrix(ROWS, LIBRARIES, _cells()))
    assert got["average_accuracy"] == pytest.approx((0.25 + 1.0 + 0.75) / 3)
    # BWT: ((R31 - R11) + (R32 - R22)) / 2 = ((.25 - 1) + (1 - .75)) / 2
    assert got["backward_transfer"] == pytest.approx(-0.25)
    # FWT: ((R12 - b2) + (R23 - b3)) / 2 = ((0 - 0) + (.5 - .25)) / 2
    assert got["forward_transfer"] == pytest.approx(0.125)
    # forgetting: f1 = max(1, .5) - .25, f2 = max(0, .75) - 1 (a library can end above its best: negative)
    assert got["forgetting"] == pytest.approx([0.75, -0.25])
    assert got["mean_forgetting"] == pytest.approx(0.25)


def test_pooled_runs_are_pooled_as_samples():
    """Two runs with different accuracies on a cell: the pooled cell is their samples together, not the
    mean of the two accuracies."""
    cells = _cells()
    cells[("after L3", "L1")] = _verdicts(1, 4, "a") + _verdicts(8, 8, "b")  # 9/12, not (.25 + 1) / 2
    m = continual.accuracy_matrix(ROWS, LIBRARIES, cells)
    assert m.accuracy(3, 0) == pytest.approx(0.75)
    assert continual.forgetting(m)[0] == pytest.approx(0.25)


def test_a_measure_that_needs_an_empty_cell_is_none():
    cells = _cells()
    del cells[("base", "L3")]
    got = continual.measures(continual.accuracy_matrix(ROWS, LIBRARIES, cells))
    assert got["forward_transfer"] is None  # needs b_3
    assert got["backward_transfer"] == pytest.approx(-0.25)


def test_the_at_once_reference_has_only_acc_and_sequential_measures_need_k_plus_one_rows():
    m = continual.accuracy_matrix(("base", "all at once"), LIBRARIES, {("all at once", "L2"): _verdicts(2, 4)})
    assert continual.measures(m, sequential=False) == {"average_accuracy": None}  # L1 and L3 have no samples
    with pytest.raises(ValueError):
        continual.backward_transfer(m)


# ---- mix-ups ----------------------------------------------------------------------------------------

OWN = continual.api_identifiers("duvi", ["duvi.sapen", "duvi.rizu.gelom"], ["Tavok"])
OTHER = continual.api_identifiers("kafo", ["kafo.mulep", "kafo.rizu.tobak"], ["Bemus"])
BASE = continual.api_identifiers("zote", ["zote.wekin"])
OTHERS = {"L1": OTHER, "warm-up library": BASE}


@pytest.mark.parametrize("code, expected", [
    ("import duvi\ndef f(x):\n    return duvi.sapen(x)", []),  # its own library only
    ("import duvi\ndef f(x):\n    return duvi.mulep(x)", ["L1"]),  # another library's function, own package
    ("import kafo\ndef f(x):\n    return kafo.sapen(x)", ["L1"]),  # another library's package
    ("from kafo import mulep\ndef f(x):\n    return mulep(x)", ["L1"]),
    ("import duvi\ndef f(x):\n    return duvi.rizu.gelom(x)", []),  # a name both libraries have is no mix-up
    ("import duvi\ndef f(x):\n    return duvi.wekin(duvi.mulep(x, [1, 2", ["L1", "warm-up library"]),  # cut code
    ("def f(x):\n    return x.Bemus()", ["L1"]),  # the array type is part of the API
    ("import numpy as np\ndef f(x):\n    return np.mean(x)", []),  # NumPy names belong to no library
    (None, []),
])
def test_mixed_up_finds_another_librarys_names(code, expected):
    assert continual.mixed_up(code, OWN, OTHERS) == expected


def test_mixup_counts_and_pooling():
    codes = ["import duvi\nduvi.sapen(1)", "import duvi\nduvi.mulep(1)", "zote.wekin(kafo.mulep(1))", None]
    counts = continual.mixup_counts(codes, OWN, OTHERS)
    assert counts == {"n": 4, "any": 2, "package": 1, "by": {"L1": 2, "warm-up library": 1}}
    assert continual.add_counts(counts, counts) == {"n": 8, "any": 4, "package": 2,
                                                    "by": {"L1": 4, "warm-up library": 2}}


def test_library_api_reads_the_public_names_never_numpys(built_instance):
    from sebench.instance import Instance

    inst = Instance.open(built_instance)
    api = continual.library_api(built_instance)
    mapping = inst.mapping()
    public = mapping["functions"]["numpy.mean"]
    assert api.package == inst.package_name and public.split(".")[-1] in api.identifiers
    assert mapping["linalg"] in api.identifiers and mapping["array_type"] in api.identifiers
    assert not {"numpy", "mean", "linalg", "sum", "array"} & api.identifiers


def test_a_measure_zero_but_for_rounding_prints_as_zero():
    # accuracies 0.3, 0.2, 0.1, 0.2: their differences cancel to -1.4e-17, which printed "-0.0"
    from sebench.report.continual_report import measures_markdown

    bwt = ((0.3 - 0.2) + (0.1 - 0.2)) / 2
    assert bwt < 0
    track = {"name": "seq", "libraries": ["L1"], "mixup": {},
             "measures": {"average_accuracy": 0.2, "backward_transfer": bwt, "forgetting": [bwt], "mean_forgetting": bwt}}
    text = measures_markdown([track])
    assert "-0.0" not in text and "| +0.0 |" in text

"""Model-written tasks of another library's package: a proposal naming the original library (its module or a
leak word of its mapping) is a leak; NumPy's check is unchanged."""

from __future__ import annotations

from other_library import MAPPING

from sebench.train.modelgen import Proposal, _leak_checker


def _proposal(query: str, signature: str = "def split_items(values, n):") -> Proposal:
    return Proposal(query=query, function_name=signature, entry_point="split_items", inputs=[], solution="")


def test_a_proposal_naming_the_original_is_a_leak():
    leaks = _leak_checker({**MAPPING, "leak_words": ["peekable", "islice_extended"]})
    assert not leaks(_proposal("Split `values` into lists of `n` items each."))
    assert leaks(_proposal("Use more_itertools to split `values` into lists of `n` items."))
    assert leaks(_proposal("Wrap `values` in a peekable and return its first item."))
    assert leaks(_proposal("Take `n` items.", "def islice_extended(values, n):"))
    assert not leaks(_proposal("Return the items of a non-peekable_like thing."))  # a leak word inside another word


def test_numpys_mapping_has_no_extra_words():
    numpy_mapping = {"package": "zwc", "functions": {"numpy.mean": "zwc.kocito"}}
    leaks = _leak_checker(numpy_mapping)
    assert not leaks(_proposal("Split `values` into lists; more_itertools is fine to mention here."))
    assert leaks(_proposal("Use numpy to average `values`."))

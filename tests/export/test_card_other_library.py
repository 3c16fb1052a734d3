"""The dataset card of another library's instance names that library where NumPy's card names NumPy, and
its rebuild command builds that library; NumPy's card keeps its text."""

from sebench.export.hf import dataset_card


def test_the_card_of_another_library_names_it_and_rebuilds_it():
    manifest = {"seed": 3, "package": "qel", "library": "more-itertools", "library_version": "10.8.0"}
    card = dataset_card(manifest, {"single_test": 2}, "sebench")
    assert "sebench build --library more-itertools --seed 3 --no-tasks --out DIR" in card
    assert '  library: "more-itertools"' in card and '  library_version: "10.8.0"' in card
    assert "NumPy" not in card and "numpy_version" not in card


def test_numpys_card_names_numpy():
    card = dataset_card({"seed": 3, "package": "zwc", "numpy_version": "2.0"}, {"single_test": 2}, "sebench")
    assert "sebench build --seed 3 --no-tasks --out DIR" in card and "(NumPy under new names" in card
    assert '  numpy_version: "2.0"' in card and "library:" not in card

"""The library registry: built-in names, a user's module:attr, unknown names answered with the closest one."""

import json
import sys

import pytest

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.libraries import ApiFunction, Library, library_names, load_library


def test_known_names_start_with_the_builtins():
    assert library_names()[:2] == ["numpy", "more-itertools"]


def test_an_unknown_name_is_one_line_with_the_closest_known_one():
    with pytest.raises(SebenchError) as err:
        load_library("more-itertool")
    assert "did you mean 'more-itertools'?" in str(err.value) and "\n" not in str(err.value)


def test_a_users_module_attr_resolves_and_must_be_a_library(tmp_path, monkeypatch):
    (tmp_path / "reg_probe_lib.py").write_text(
        "from sebench.libraries import ApiFunction, Library\n"
        "LIBRARY = Library(name='probe', module='json', surface=lambda: (ApiFunction('json.dumps'),),\n"
        "                  templates=lambda: (), doc=lambda key: '', version=lambda: '1')\n"
        "OTHER = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    lib = load_library("reg_probe_lib:LIBRARY")
    assert isinstance(lib, Library) and lib.surface() == (ApiFunction("json.dumps"),)
    with pytest.raises(SebenchError, match=r"is int, not a sebench\.libraries\.Library"):
        load_library("reg_probe_lib:OTHER")
    with pytest.raises(SebenchError, match="has no attribute 'MISSING'"):
        load_library("reg_probe_lib:MISSING")
    with pytest.raises(SebenchError, match="cannot import"):
        load_library("no_such_module_here:LIBRARY")
    sys.modules.pop("reg_probe_lib", None)


def test_an_instance_without_a_library_field_is_numpy(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"package": "zwc"}))
    assert Instance.open(tmp_path).library == "numpy"
    (tmp_path / "manifest.json").write_text(json.dumps({"package": "zwc", "library": "more-itertools"}))
    assert Instance.open(tmp_path).library == "more-itertools"

"""The library registry: built-in names, a user's module:attr, unknown names answered with the closest one."""

import json
import sys

import pytest
from cli_fixtures import cli, error_line

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.libraries import ApiFunction, Library, library_names, load_library


def test_known_names_start_with_the_builtins():
    assert library_names()[:2] == ["numpy", "more-itertools"]


def test_an_unknown_name_is_one_line_with_the_closest_known_one():
    with pytest.raises(SebenchError) as err:
        load_library("more-itertool")
    assert "did you mean 'more-itertools'?" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(SebenchError, match="did you mean 'more-itertools'"):
        load_library("MORE-ITERTOOLS")


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


BROKEN = {
    "surface key outside the module": ("surface=lambda: (ApiFunction('os.getcwd'),)", "field 'surface'"),
    "template of another library": ("templates=lambda: (T('x', library='numpy'),)", "field 'templates': 'x'"),
    "template calling an unlisted name": ("templates=lambda: (T('y', body='return {loads}(s)'),)",
                                          "template 'y' calls json.loads"),
    "leak words not a frozenset": ("leak_words=['a']", "field 'leak_words'"),
    "surface without its tuple's comma": ("surface=lambda: (ApiFunction('json.dumps'))",
                                          "field 'surface': expected a callable returning a tuple, got ApiFunction"),
    "surface not a callable": ("surface=(ApiFunction('json.dumps'),)", "field 'surface': expected a callable"),
    "template calling no surface name": ("templates=lambda: (T('z', body='return s'),)",
                                         "template 'z' calls no surface name"),
    "forbidden imports a string": ("forbidden_imports='cjson'", "field 'forbidden_imports'"),
    "version not text": ("version=lambda: 3", "field 'version': expected a callable returning the version as text"),
    "version failing": ("version=lambda: 1 / 0", "importing or listing it failed: ZeroDivisionError"),
    "a built-in's name": ("name='more-itertools'", "field 'name': 'more-itertools' is a built-in library's name"),
    "surface name the module lacks": ("surface=lambda: (ApiFunction('json.dumpz'),)",
                                      "field 'surface': 'json.dumpz' cannot be imported (module 'json' has no attribute"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_library_breaking_the_contract_is_one_line_naming_the_field(case, tmp_path, monkeypatch):
    override, expected = BROKEN[case]
    module = f"reg_broken_{sorted(BROKEN).index(case)}"
    fields = {"surface": "lambda: (ApiFunction('json.dumps'),)", "templates": "lambda: ()", "leak_words": "frozenset()",
              "version": "lambda: '1'", "name": "'broken'"}
    key, _, value = override.partition("=")
    assert key in fields or key == "forbidden_imports"
    fields[key] = value
    (tmp_path / f"{module}.py").write_text(
        "from sebench.libraries import ApiFunction, Library\nfrom sebench.tasks import Template\n"
        "def T(key, body='return {dumps}(s)', library='json'):\n"
        "    return Template(key=key, entry='f', params=('s',), body=body, texts=('t',), gen=None, library=library)\n"
        "LIBRARY = Library(module='json', doc=lambda key: '', "
        + ", ".join(f"{k}={v}" for k, v in fields.items()) + ")\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SebenchError) as err:
        load_library(f"{module}:LIBRARY")
    assert expected in str(err.value) and "\n" not in str(err.value)
    sys.modules.pop(module, None)


def test_a_module_failing_at_import_is_one_line_naming_its_file_and_line(tmp_path, monkeypatch):
    (tmp_path / "reg_missing_field.py").write_text(
        "from sebench.libraries import ApiFunction, Library\n"
        "LIBRARY = Library(name='m', module='json', surface=lambda: (ApiFunction('json.dumps'),),\n"
        "                  templates=lambda: (), doc=lambda key: '')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SebenchError) as err:
        load_library("reg_missing_field:LIBRARY")
    message = str(err.value)
    assert "\n" not in message and message.startswith("--library reg_missing_field:LIBRARY: importing")
    assert f"{tmp_path / 'reg_missing_field.py'}:2: TypeError" in message and "'version'" in message
    sys.modules.pop("reg_missing_field", None)


def test_an_installed_entry_point_is_a_known_name(tmp_path, monkeypatch):
    (tmp_path / "reg_entry_lib.py").write_text(
        "from sebench.libraries import ApiFunction, Library\n"
        "LIBRARY = Library(name='entry', module='json', surface=lambda: (ApiFunction('json.dumps'),),\n"
        "                  templates=lambda: (), doc=lambda key: '', version=lambda: '1')\n")
    dist = tmp_path / "reg_entry_dist-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: reg-entry-dist\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sebench.libraries]\nentry-lib = reg_entry_lib:LIBRARY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "entry-lib" in library_names()
    assert load_library("entry-lib").name == "entry"
    sys.modules.pop("reg_entry_lib", None)


def test_sebench_build_refuses_an_unknown_library_or_numpys_flags_with_one_line(tmp_path):
    rc, err = cli("build", "--library", "more-itertool", "--out", tmp_path / "a", "--no-tasks")
    assert rc == 2 and "did you mean 'more-itertools'?" in error_line(err)
    rc, err = cli("build", "--library", "more-itertools", "--out", tmp_path / "b", "--docs", "original",
                  "--mapping-from", tmp_path / "none.jsonl")
    assert rc == 2 and "NumPy's only" in error_line(err)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_refused_package_name_leaves_nothing_behind(tmp_path):
    rc, err = cli("build", "--library", "more-itertools", "--package-name", "more_itertools", "--out",
                  tmp_path / "inst", "--no-tasks")
    assert rc == 2 and "package name 'more_itertools'" in error_line(err)
    assert list(tmp_path.iterdir()) == []

"""A library added through the contract alone: a tiny module and its Library object written into tmp_path,
built with `sebench build --library tinylib_contract:LIBRARY` (a fresh process, as a user runs it), with
no change to sebench's own modules."""

import json
import re
import subprocess
import sys

import pytest
from cli_fixtures import SRC, error_line, sebench

MODULE = '''"""A tiny library."""


def _helper_norm(values):
    return [v for v in values if v is not None]


def sum_clean(values):
    """Add up the numbers in *values*, skipping None.{planted}

    >>> sum_clean([1, 2, None, 3])
    6
    """
    return sum(_helper_norm(values))


def spread_of(values):
    """The largest minus the smallest number; see also :func:`sum_clean`.

    >>> spread_of([4, 1, 9])
    8
    """
    vals = _helper_norm(values)
    return max(vals) - min(vals)


def pairs_of(values):
    """Consecutive pairs of *values* as tuples.

    >>> pairs_of([1, 2, 3])
    [(1, 2), (2, 3)]
    """
    return list(zip(values, values[1:]))


def repeat_each(values, n):
    """Each item of *values* *n* times in a row.

    >>> repeat_each([1, 2], 2)
    [1, 1, 2, 2]
    """
    return [v for v in values for _ in range(n)]


def only_one(values):
    """The single item of *values*; a ValueError when there are more or none.

    >>> only_one([5])
    5
    """
    if len(values) != 1:
        raise ValueError(f"only_one() expected one item in {{values!r}}, got {{len(values)}}")
    return values[0]


def running_sums(values):
    """Yield the running totals of *values*.

    >>> list(running_sums([1, 2, 3]))
    [1, 3, 6]
    """
    acc = 0
    for v in values:
        acc += v
        yield acc


def make_scaler(k):
    """A function that multiplies by *k*.

    >>> make_scaler(2)(3)
    6
    """
    def scale_by(x):
        return k * x
    return scale_by


def apply_each(fn, items):
    """*fn* applied to each item.

    >>> apply_each(abs, [-1, 2])
    [1, 2]
    """
    return [fn(item) for item in items]


class _Window:
    def __init__(self, values):
        self.values = list(values)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i]

    def __repr__(self):
        return f"_Window({{self.values!r}})"


def count_kind(items, kind):
    """How many of *items* are instances of *kind*.

    >>> count_kind([1, 'a', 2], int)
    2
    """
    return sum(isinstance(item, kind) for item in items)


def window_of(values):
    """A read-only view of *values*.

    >>> len(window_of([1, 2]))
    2
    """
    return _Window(values)


class Tally:
    """Counts how often each item was added.

    >>> t = Tally([1, 1, 2])
    >>> t.count(1)
    2
    """

    def __init__(self, items=()):
        self.counts = {{}}
        for item in items:
            self.counts[item] = self.counts.get(item, 0) + 1

    def count(self, item):
        return self.counts.get(item, 0)
'''

LIBRARY = '''import tinymod_contract as tm
from sebench.libraries import ApiFunction, Library
from sebench.tasks import Template

NAMES = ("sum_clean", "spread_of", "pairs_of", "repeat_each", "only_one", "running_sums", "make_scaler", "apply_each",
         "window_of", "count_kind", "Tally")


def values(rng, i):
    return {"values": [rng.randint(-9, 9) for _ in range(rng.randint(2, 7))]}


def texts(*lines):
    return tuple(lines)


def templates():
    t = lambda key, entry, body, *lines: Template(key=key, entry=entry, params=("values",), body=body,
                                                  texts=lines, gen=values, library="tinymod_contract")
    return (
        t("sum.plain", "add_all", "return {sum_clean}(values)", "Return the sum of the integers in `values`.",
          "Add up every number of the list `values`.", "Compute the total of the integer list `values`."),
        t("spread.plain", "width", "return {spread_of}(values)",
          "Return the largest number of `values` minus its smallest.",
          "How far apart are the extremes of the list `values`?", "Give max minus min of the list `values`."),
        t("running.plain", "prefix", "return list({running_sums}(values))",
          "Return the list of running totals of `values`.", "Prefix sums of the list `values`, as a list.",
          "Cumulative sums of `values`, returned as a list."),
        t("tally.first", "first_count", "return {Tally}(values).count(values[0])",
          "How often does the first number of `values` occur in it?",
          "Count the occurrences of values[0] in the list `values`.", "Return how many items equal the first."),
        t("pipe.pair_sums", "pair_sums", "return [{sum_clean}(list(p)) for p in {pairs_of}(values)]",
          "Return the sums of neighbouring pairs of `values`."),
    )


LIBRARY = Library(
    name="tinylib", module="tinymod_contract",
    surface=lambda: tuple(ApiFunction(f"tinymod_contract.{n}") for n in NAMES),
    templates=templates,
    doc=lambda key: getattr(tm, key.rpartition(".")[2]).__doc__ or "",
    version=lambda: "1.0",
    leak_words=frozenset({"_helper_norm"}),
)
'''
ORIGINALS = ("tinymod_contract", "sum_clean", "spread_of", "pairs_of", "repeat_each", "only_one", "running_sums",
             "make_scaler", "apply_each", "scale_by", "window_of", "count_kind", "_Window", "Tally",
             "_helper_norm")
SIZES = ("--n-train", "12", "--n-single", "4", "--n-multiple", "1")


def write_library(folder, planted=""):
    folder.mkdir()
    (folder / "tinymod_contract.py").write_text(MODULE.format(planted=planted))
    (folder / "tinylib_contract.py").write_text(LIBRARY)
    return {"PYTHONPATH": f"{SRC}:{folder}"}


def run_in_package(out, env, code):
    """stdout of `code` run with the built package importable (and the original, as the package needs it)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": f"{out / 'package'}:{env['PYTHONPATH']}"})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("contract")
    env = write_library(root / "lib")
    out = root / "inst"
    done = sebench("build", "--library", "tinylib_contract:LIBRARY", "--seed", "3", "--out", out, *SIZES, env=env)
    assert done.returncode == 0, done.stderr
    return out, env


def test_the_built_instance_passes_the_audit(built):
    out, env = built
    done = sebench("audit", out, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["library"], manifest["library_version"]) == ("tinylib", "1.0")
    mapping = json.loads((out / "private/mapping.json").read_text())
    assert set(mapping["types"]) == {"tinymod_contract.Tally"} and len(mapping["functions"]) == 10


def test_the_same_seed_gives_the_same_bytes(built, tmp_path):
    out, env = built
    again = tmp_path / "again"
    done = sebench("build", "--library", "tinylib_contract:LIBRARY", "--seed", "3", "--out", again, *SIZES, env=env)
    assert done.returncode == 0, done.stderr
    files = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert files == {p.relative_to(again): p.read_bytes() for p in sorted(again.rglob("*")) if p.is_file()}


def test_no_file_under_datasets_names_the_original(built):
    out, _ = built
    files = sorted(p for p in (out / "datasets").rglob("*") if p.is_file())
    assert files
    for path in files:
        text = path.read_text()
        assert [w for w in ORIGINALS if re.search(rf"\b{re.escape(w)}\b", text)] == [], path


def test_every_reference_runs_against_the_package_and_agrees(built):
    out, env = built
    tasks = [json.loads(line) for split in ("train/train", "test/single_test", "test/multiple_test")
             for line in (out / f"datasets/{split}.jsonl").read_text().splitlines()]
    assert len(tasks) >= 12
    code = ("import json, sys\nfrom sebench.values import printed, to_task_data\n"
            f"tasks = json.loads({json.dumps(json.dumps(tasks))})\npackage = __import__({json.dumps(tasks[0]['selected_functions'][0].split('.')[0])})\n"
            "for t in tasks:\n    ns = {}\n    exec(t['reference_solution'], ns)\n"
            "    for case in t['test_cases']:\n"
            "        got = printed(to_task_data(package._plain(eval(t['entry_point'] + '(' + case['input'] + ')', ns))))\n"
            "        print(got == case['output'])\n")
    verdicts = run_in_package(out, env, code).split()
    assert verdicts and set(verdicts) == {"True"}


def test_a_template_calls_a_surface_class_by_its_capitalised_name(built):
    out, _ = built
    tally = json.loads((out / "private/mapping.json").read_text())["types"]["tinymod_contract.Tally"]
    tasks = [json.loads(line) for split in ("train/train", "test/single_test")
             for line in (out / f"datasets/{split}.jsonl").read_text().splitlines()]
    using = [t for t in tasks if t["selected_functions"] == [tally]]
    assert using and all(f"{tally}(values)" in t["reference_solution"] for t in using)


def test_a_generators_repr_and_an_error_name_nothing_original(built):
    out, env = built
    mapping = json.loads((out / "private/mapping.json").read_text())
    running, only = mapping["functions"]["tinymod_contract.running_sums"], mapping["functions"]["tinymod_contract.only_one"]
    code = (f"import {mapping['package']}, traceback\ng = {running}([1, 2])\nprint(repr(g), str(g))\n"
            f"try:\n    {only}([1, 2])\nexcept Exception as e:\n    print(type(e).__module__, type(e).__name__, e)\n"
            "    print(''.join(traceback.format_exception(e)))\n")
    shown = run_in_package(out, env, code)
    assert "builtins ValueError" in shown and only.rpartition(".")[2] + "() expected one item" in shown
    assert [w for w in ORIGINALS if w in shown] == []


def test_callables_and_the_librarys_objects_cross_the_surface_wrapped(built):
    out, env = built
    mapping = json.loads((out / "private/mapping.json").read_text())
    public = {key.rpartition(".")[2]: name for key, name in {**mapping["functions"], **mapping["types"]}.items()}
    code = (f"import {mapping['package']}\nscale = {public['make_scaler']}(3)\nprint(repr(scale), scale(2))\n"
            f"tallies = [{public['Tally']}([1]), {public['Tally']}([2, 2])]\n"
            f"print({public['apply_each']}(lambda t: (type(t).__name__, t.count(2)), tallies))\n")
    code += f"view = {public['window_of']}([4, 5, 6])\nprint(repr(view), len(view), view[1], list(view))\n"
    code += f"print('kinds', {public['count_kind']}(tallies + [1], {public['Tally']}))\n"
    shown = run_in_package(out, env, code)
    assert " 3 5 [4, 5, 6]" in shown and "kinds 2" in shown
    tally = public["Tally"].rpartition(".")[2]
    assert " 6\n" in shown and f"[('{tally}', 0), ('{tally}', 2)]" in shown
    assert [w for w in ORIGINALS if w in shown] == []


def test_a_leak_planted_in_a_docstring_fails_the_build_with_one_line(tmp_path):
    env = write_library(tmp_path / "lib", planted="\n\n    It relies on _helper_norm to drop the None values.")
    done = sebench("build", "--library", "tinylib_contract:LIBRARY", "--seed", "3", "--out", tmp_path / "inst",
                   "--no-tasks", env=env)
    assert done.returncode == 2
    line = error_line(done.stderr)
    assert "datasets/train/api_doc.jsonl:1: leak-word: field 'doc': _helper_norm" in line, line
    assert not (tmp_path / "inst").exists()


BROKEN_TEMPLATES = {
    "a surface name no template calls": (
        "(ApiFunction('tinymod_contract.sum_clean'), ApiFunction('tinymod_contract.spread_of'))",
        "return {sum_clean}(values)",
        "field 'templates': no single-function template calls tinymod_contract.spread_of"),
    "a reference that never runs": (
        "(ApiFunction('tinymod_contract.sum_clean'),)", "return {sum_clean}(values, 3)",
        "field 'templates': template 'sum.broken' (tinymod_contract.sum_clean): no draft verified: 0 of"),
    "a generator naming another parameter": (
        "(ApiFunction('tinymod_contract.sum_clean'),)", "return {sum_clean}(values)",
        "field 'templates': template 'sum.broken' (tinymod_contract.sum_clean): no draft verified: 0 distinct inputs, 8 needed; 16 "
        "cases lost, e.g. case 0: generator gave KeyError: 'values' (parameters values)"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_TEMPLATES))
def test_a_function_left_without_a_train_task_is_one_line_naming_the_template(case, tmp_path):
    surface, body, expected = BROKEN_TEMPLATES[case]
    given = "valuez" if "another parameter" in case else "values"
    env = write_library(tmp_path / "lib")
    (tmp_path / "lib" / "tinylib_broken.py").write_text(
        "from sebench.libraries import ApiFunction, Library\nfrom sebench.tasks import Template\n"
        f"def values(rng, i):\n    return {{{given!r}: [rng.randint(-9, 9) for _ in range(rng.randint(2, 7))]}}\n"
        f"T = Template(key='sum.broken', entry='f', params=('values',), body={body!r}, texts=('a', 'b'), gen=values,\n"
        "             library='tinymod_contract')\n"
        f"LIBRARY = Library(name='broken', module='tinymod_contract', surface=lambda: {surface},\n"
        "                  templates=lambda: (T,), doc=lambda key: '', version=lambda: '1')\n")
    done = sebench("build", "--library", "tinylib_broken:LIBRARY", "--seed", "0", "--out", tmp_path / "inst",
                   "--n-train", "8", "--n-single", "1", "--n-multiple", "0", env=env)
    assert done.returncode == 2, done.stderr
    line = error_line(done.stderr)
    assert f"library broken: {expected}" in line, line
    assert not (tmp_path / "inst").exists()


def test_the_judge_refuses_with_one_line_an_original_outside_site_packages(built, tmp_path):
    out, env = built  # the original is on PYTHONPATH only: the sandbox, which mounts site-packages, cannot import it
    task = json.loads((out / "datasets/test/single_test.jsonl").read_text().splitlines()[0])
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(json.dumps({"task_id": task["task_id"], "sample_idx": 0, "mode": "closed", "model": "ref",
                                    "prompt": "", "response": f"```python\n{task['reference_solution']}```",
                                    "code": task["reference_solution"], "finish_reason": "stop"}) + "\n")
    done = sebench("judge", "--data", out, "--rollouts", rollouts, "--out", tmp_path / "v.jsonl", env=env)
    assert done.returncode == 2, done.stderr
    line = error_line(done.stderr)
    assert "'tinymod_contract' is imported from" in line and "outside site-packages" in line, line
    assert not (tmp_path / "v.jsonl").exists()


def test_a_module_attr_librarys_templates_resolve_by_the_runs_library(built):
    out, env = built  # the manifest names "tinylib", which is no built-in and no entry point: a run passes its --library
    code = ("from sebench.experiment.select import choose_functions, library_templates\n"
            "from sebench.instance import Instance\n"
            f"inst = Instance.open({str(out)!r})\n"
            "templates = library_templates(inst, 'tinylib_contract:LIBRARY')\n"
            "print(sorted(t.key for t in templates), choose_functions(templates, inst.mapping()['functions'], 2, 0))\n"
            "try:\n    library_templates(inst, 'more-itertools')\nexcept Exception as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    keys, refused = done.stdout.splitlines()
    assert "'sum.plain'" in keys and "tinymod_contract." in keys
    assert refused.endswith("the instance renames 'tinylib', not --library more-itertools ('more-itertools')")

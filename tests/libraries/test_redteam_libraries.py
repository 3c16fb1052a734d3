"""What a program sees of a built more-itertools package shows no original name: the attributes a wrapped
value delegates, the iterators the original builds from builtins (zip, map), and a generator's send."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import traceback
from pathlib import Path

import more_itertools
import pytest

from sebench.libraries.audit import LibraryChecker

HOME = str(Path(more_itertools.__file__).parent)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(package module, its runtime, original name -> public function, the audit's checker)."""
    from sebench.builder import build_instance
    from sebench.instance import Instance
    from sebench.tasks import TaskSizes

    out = tmp_path_factory.mktemp("redteam-libraries") / "instance"
    inst = Instance.open(build_instance(out, seed=3, task_sizes=TaskSizes(train=20, single=20, multiple=10),
                                        library="more-itertools"))
    mapping = inst.mapping()
    sys.path.insert(0, str(inst.package_dir))
    try:
        pkg = importlib.import_module(inst.package_name)
        core = sys.modules[f"{inst.package_name}._core"]
    finally:
        sys.path.remove(str(inst.package_dir))
    functions = {key.rpartition(".")[2]: getattr(pkg, public.rpartition(".")[2])
                 for key, public in mapping["functions"].items()}
    yield pkg, core, functions, LibraryChecker(mapping)
    for name in [m for m in sys.modules if m == inst.package_name or m.startswith(inst.package_name + ".")]:
        del sys.modules[name]


def _wrapped(core, value) -> bool:
    return type(value) in core._S["proxies"] or type(value) is core._S["iter"]


@pytest.mark.parametrize("attribute", ["__name__", "__qualname__", "gi_code", "gi_frame", "gi_yieldfrom"])
def test_a_returned_generator_hides_its_name_code_and_frame(built, attribute):
    _pkg, core, fn, _checker = built
    value = fn["substrings"]("abc")
    assert _wrapped(core, value)
    with pytest.raises(AttributeError) as caught:
        getattr(value, attribute)
    assert "substrings" not in str(caught.value)


def test_no_wrapped_value_of_any_function_shows_an_original_name_through_its_attributes(built):
    _pkg, core, fn, checker = built
    arguments = (([3, 1, 2],), ([3, 1, 2], 2), ("abc",), ([[1, 2], [3]],), (lambda x: x > 1, [3, 1, 2]))
    seen = []
    for original, function in fn.items():
        for args in arguments:
            try:
                value = function(*args)
            except Exception:  # noqa: BLE001 - bad arguments are expected here
                continue
            for item in [value, *(value if type(value) in (list, tuple) else ())]:
                if not _wrapped(core, item):
                    continue
                for attribute in ("__name__", "__qualname__", "__module__", "gi_code"):
                    shown = getattr(item, attribute, "")
                    seen.append((original, attribute, str(shown)))
    assert seen
    leaks = [(o, a, s) for o, a, s in seen if checker.runtime(f"<{s}>") or s.split(".")[0] in fn]
    assert leaks == []


@pytest.mark.parametrize("original, args", [
    ("adjacent", (2, [3, 1, 2])),  # a zip over the original's windowed generator
    ("chunked", ([3, 1, 2], "x")),  # a callable_iterator over the original's take
])
def test_a_builtin_iterator_over_the_original_is_wrapped_and_its_errors_are_translated(built, original, args):
    pkg, core, fn, checker = built
    value = fn[original](*args)
    assert _wrapped(core, value) and repr(value) == f"<{pkg.__name__}.{core._S['iname']} object>"
    with pytest.raises(Exception) as caught:
        list(value)
    assert type(caught.value).__module__ == "builtins"
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert [f.filename for f in frames if f.filename.startswith(HOME)] == []
    assert [f.name for f in frames if f.name == original] == []
    assert checker.runtime(str(caught.value)) == []


def test_a_generators_send_gives_package_values(built):
    _pkg, core, fn, _checker = built
    chunks = fn["ichunked"]([1, 2, 3, 4], 2)  # yields the original's islice objects
    first = chunks.send(None)
    assert _wrapped(core, first) and list(first) == [1, 2]


def test_the_librarys_warnings_never_reach_stderr_and_name_nothing_where_shown(built):
    pkg, _core, fn, checker = built
    public = fn["sort_together"].__name__  # its strict=True goes through zip_equal's DeprecationWarning
    code = f"import {pkg.__name__} as p\nprint(p.{public}([[2, 1], [3, 4]], strict=True))"
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(pkg.__file__).parent.parent)}, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "[(1, 2), (4, 3)]", done.stderr
    assert done.stderr == ""
    # a program may show every warning
    shown = code.replace("\nprint", "\nimport warnings\nwarnings.simplefilter('always')\nprint")
    done = subprocess.run([sys.executable, "-c", shown], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(pkg.__file__).parent.parent)}, check=False)
    assert done.returncode == 0 and "DeprecationWarning" in done.stderr
    assert checker.runtime(done.stderr) == [] and HOME not in done.stderr, done.stderr


def test_the_audit_flags_another_modules_function_of_an_original_name_in_prose():
    checker = LibraryChecker({"library": "more-itertools", "module": "more_itertools", "package": "zwc",
                              "functions": {"more_itertools.pairwise": "zwc.kocito", "more_itertools.strip": "zwc.tefi"}})
    assert checker.prose("This is an alias for `itertools.pairwise`.") == [("original-name", "itertools.pairwise")]
    assert checker.prose("It is analogous to `str.strip`.") == [("original-name", "str.strip")]
    assert checker.prose("See `zwc.kocito` and `itertools.chain`.") == []


def test_no_doc_tells_an_original_name_through_another_modules_function(built):
    _pkg, _core, fn, _checker = built
    docs = {original: function.__doc__ for original, function in fn.items()}
    told = {original: doc for original, doc in docs.items()
            if any(f"{head}.{original}`" in doc for head in ("itertools", "str"))}
    assert told == {}


def test_a_wrapped_value_keeps_its_class_and_copies_as_a_wrapped_value(built):
    """copy's reconstruction sets attributes by name: `__class__` set to a class of the same layout (a slot
    `_v`, say a slotted dataclass) would show the original object in its repr and fields."""
    import copy
    import dataclasses

    _pkg, core, fn, checker = built
    value = fn["substrings"]("abc")
    same_layout = dataclasses.make_dataclass("Same", [("_v", object)], slots=True)

    class Trick:
        def __reduce_ex__(self, protocol):
            return (lambda: value, (), (None, {"__class__": same_layout}))

    with pytest.raises(AttributeError):
        copy.copy(Trick())
    assert _wrapped(core, value) and checker.runtime(repr(value)) == []
    twin = copy.copy(value)
    assert _wrapped(core, twin) and next(twin) == ("a",) and next(value) == ("b",)


@pytest.mark.parametrize("original, make", [
    ("windowed", lambda fn: fn["windowed"]([1, 2, 3], 2)),  # its generator's repr in one()'s message
    ("iter_suppress", lambda fn: fn["unzip"]([(1, 2), (3, 4)])[0]),  # a generator the original made itself
])
def test_a_message_showing_the_originals_generators_names_none(built, original, make):
    _pkg, _core, fn, checker = built
    with pytest.raises(ValueError, match="Expected exactly one item") as caught:
        fn["one"]([make(fn), make(fn)])
    assert original not in str(caught.value) and checker.runtime(str(caught.value)) == []


def test_a_keyboard_interrupt_from_a_callback_shows_no_frame_of_the_original(built):
    _pkg, _core, fn, checker = built

    def stop(item):
        raise KeyboardInterrupt("stop")

    with pytest.raises(KeyboardInterrupt) as caught:
        fn["map_reduce"]([1, 2], stop)
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert [(f.filename, f.name) for f in frames if f.filename.startswith(HOME) or f.name == "map_reduce"] == []
    assert checker.runtime(str(caught.value)) == []


def test_a_defaultdict_of_package_values_holds_package_values(built):
    """map_reduce stores what a program's value function returns (unwrapped on its way in) in a defaultdict."""
    _pkg, core, fn, checker = built
    grouped = fn["map_reduce"]([1, 2], lambda x: x % 2, lambda x: fn["windowed"]([1, 2, 3], 2))
    assert type(grouped).__name__ == "defaultdict" and sorted(grouped) == [0, 1]
    assert all(_wrapped(core, item) for items in grouped.values() for item in items)
    assert checker.runtime(repr(grouped)) == [] and list(grouped[1][0]) == [(1, 2), (2, 3)]

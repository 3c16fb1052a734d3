"""A method's spec and arguments are checked before anything runs, through the command line as a user types
them: labels keep their spelling, a missing file, module or attribute and an unknown or wrong-typed argument
are refused with one line that lists the method's arguments, and no code of a method file runs to read them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from cli_fixtures import sebench

from sebench.methods import MethodError, resolve
from sebench.methods.signature import accepts, method_signature

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REFERENCE_SFT = f"{EXAMPLES}/reference_sft.py:ReferenceSFT"


def _one_line_error(done, *words: str) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _show(tmp_path: Path, *flags: str):
    return sebench("run", "--preset", "quick", "--out", tmp_path / "run", *flags, "--show-config", cwd=tmp_path)


def test_a_label_with_a_dash_keeps_its_spelling(tmp_path):
    done = sebench("run", "--preset", "inject", "--out", tmp_path / "run", "--set",
                   'methods.aug-k8={"method": "docs-cpt-augmented", "k": 8}', "--regimes", "docs-cpt-augmented",
                   "aug-k8", "-M", "aug-k8.forms=[\"snippet\"]", "--show-config", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    assert config["regimes"] == ["docs-cpt-augmented", "aug-k8"]
    assert config["methods"]["aug-k8"] == {"method": "docs-cpt-augmented", "k": 8, "forms": ["snippet"]}


def test_a_wrong_typed_or_unknown_argument_is_refused_with_the_methods_arguments(tmp_path):
    line = _one_line_error(_show(tmp_path, "--regimes", "closed-sft", REFERENCE_SFT, "-M", "ReferenceSFT.steps=abc"),
                           "methods.ReferenceSFT.steps", "'abc' is not int", "steps: int = 8", "lr: float")
    assert line.startswith("sebench run: error:")
    _one_line_error(_show(tmp_path, "--regimes", REFERENCE_SFT, "-M", "bogus=1"),
                    "unknown argument 'bogus'", "steps: int = 8, lr: float = 0.0001")
    _one_line_error(_show(tmp_path, "--regimes", "closed-sft", REFERENCE_SFT, "--set", "methods.ReferenceSFT.setps=2"),
                    "did you mean 'steps'?")
    ok = _show(tmp_path, "--regimes", REFERENCE_SFT, "-M", "steps=4", "-M", "lr=1")  # an int is a float
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["methods"] == {"ReferenceSFT": {"steps": 4, "lr": 1}}


def test_a_built_in_methods_arguments_are_checked_too(tmp_path):
    _one_line_error(sebench("run", "--preset", "inject", "--out", tmp_path / "run", "-M", "context-distill-kl.kl=abc",
                            "--show-config", cwd=tmp_path), "methods.context-distill-kl.kl", "kl: float = 0.0")


def test_a_method_that_does_not_exist_fails_before_anything_runs(tmp_path):
    _one_line_error(_show(tmp_path, "--regimes", f"{EXAMPLES}/reference_sft.py:Nope"),
                    "has no attribute 'Nope'", "it defines: ReferenceSFT")
    assert not (tmp_path / "run").exists()
    _one_line_error(_show(tmp_path, "--regimes", "./missing.py:X"), "no file")
    _one_line_error(_show(tmp_path, "--regimes", "no_such_module.sub:X"), "no module 'no_such_module.sub'")


def test_sebench_methods_answers_a_wrong_spec_in_one_line(tmp_path):
    (tmp_path / "README.md").write_text("# not python\n")
    _one_line_error(sebench("methods", "./README.md:X", cwd=tmp_path), "'./README.md' is a file that is not Python")
    _one_line_error(sebench("methods", f"{EXAMPLES}/reference_sft.py:Nope", cwd=tmp_path), "no attribute 'Nope'")
    (tmp_path / "broken.py").write_text("def f(ctx:\n")
    _one_line_error(sebench("methods", "./broken.py:f", cwd=tmp_path), "broken.py:1")
    done = sebench("methods", REFERENCE_SFT, cwd=tmp_path)
    assert done.returncode == 0 and "arguments: steps: int = 8, lr: float = 0.0001" in done.stdout


def test_a_method_files_arguments_are_read_without_running_it(tmp_path):
    (tmp_path / "m.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from pathlib import Path
        from sebench.methods import Method
        Path(__file__).with_name("ran").write_text("the file ran")

        @dataclass
        class Base(Method):
            epochs: float = 1.0
            tags: list[str] | None = None

            def run(self, ctx):
                pass

        @dataclass
        class Child(Base):
            k: int = 4
            name: str = "x"

        def fn(ctx, note: str = "none", *, n: int = 2, **rest):
            pass

        class NoRun(Method):
            steps: int = 1
    """))
    child = method_signature(resolve(f"{tmp_path}/m.py:Child"))
    assert str(child) == "epochs: float = 1.0, tags: list[str] | None = None, k: int = 4, name: str = 'x'"
    function = method_signature(resolve(f"{tmp_path}/m.py:fn"))
    assert str(function) == "note: str = 'none', n: int = 2, **kwargs" and function.open
    assert method_signature(resolve(f"{tmp_path}/m.py:Path")) is None  # imported: not readable without running
    assert not (tmp_path / "ran").exists()
    with pytest.raises(MethodError, match="did you mean 'Child'"):
        method_signature(resolve(f"{tmp_path}/m.py:Chld"))
    with pytest.raises(MethodError, match=r"m\.py:23: class NoRun does not define run\(self, ctx\)"):
        method_signature(resolve(f"{tmp_path}/m.py:NoRun"))  # read from its source: the file does not run
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("annotation,value,ok", [
    ("int", 3, True), ("int", "abc", False), ("int", True, False), ("int", 2.5, False), ("float", 2, True),
    ("float", "1e-4", False), ("int | None", None, True), ("Optional[int]", "x", False), ("str", 3, False),
    ("list[str] | None", ["a"], True), ("list[str]", "a", False), ("bool", 1, False), ("dict", {}, True),
    ("Path", "a/b", True), ("MyType", object(), True), ("Literal['a']", "b", True),
])
def test_values_are_checked_against_plain_annotations(annotation, value, ok):
    assert accepts(annotation, value) is ok

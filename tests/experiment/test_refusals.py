"""A refused `sebench run` leaves its run directory byte-identical and runs nothing: settings that differ from
the run's own (a preset, --instance, the studied functions), a method class without `run`, a misspelt
model, --protocol original without its repository. Each is refused in one line, exit 2, before any build or
evaluation (no stage record, no manifest, nothing in the folder changes)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cli_fixtures import cli, error_line

FAST = ["--model", "fake:", "--regimes", "--functions", "3", "--max-single", "4", "--max-multiple", "2",
        "--max-train", "4", "--set", 'splits=["single_test"]', "--set", 'untrained_modes=["closed"]',
        "--set", "judge.workers=1"]


def tree(folder: Path) -> dict[str, str]:
    """Every file and folder under `folder`: its path and its bytes' hash ("dir" for a folder)."""
    return {p.relative_to(folder).as_posix(): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def made_run(tmp_path_factory, built_instance) -> Path:
    """A finished run made with --instance (the fake model: no training)."""
    out = tmp_path_factory.mktemp("refusals") / "run"
    rc, err = cli("run", "--out", out, "--instance", built_instance, *FAST)
    assert rc == 0, err
    return out


def _refused(run: Path, *args: object) -> str:
    """The one error line of `sebench run --out RUN ARGS`, checked to have changed nothing in RUN."""
    before = tree(run) if run.exists() else None
    rc, err = cli("run", "--out", run, *args)
    assert rc == 2, err
    assert (tree(run) if run.exists() else None) == before
    return error_line(err)


def test_another_preset_on_a_run_is_refused_before_anything_is_written(made_run):
    """The quick/inject presets on a run of other settings: nothing is built into it, its manifest stays."""
    line = _refused(made_run, "--preset", "inject")
    assert "--overwrite" in line and ("stage 'build'" in line or "stage 'select'" in line), line
    assert not (made_run / "instance").exists()


def test_a_run_made_with_an_instance_is_not_given_a_built_one(made_run):
    line = _refused(made_run, *FAST)  # the same settings without --instance: the study would build its own
    assert "stage 'select'" in line and "made anew by this command" in line, line


def test_changed_studied_functions_or_decoding_are_refused_before_anything_is_written(made_run, built_instance):
    line = _refused(made_run, "--instance", built_instance, *FAST, "--functions", "2")
    assert "stage 'select'" in line and "functions: 3 -> 2" in line, line
    line = _refused(made_run, "--instance", built_instance, *FAST, "--max-tokens", "99")
    assert "rollout:untrained:closed:single_test" in line and "max_tokens" in line, line


def test_a_method_class_without_run_is_refused_before_anything_runs(tmp_path, built_instance):
    (tmp_path / "norun.py").write_text("from sebench.methods import Method\n\n\nclass NoRun(Method):\n"
                                       "    def __init__(self, steps: int = 1):\n        self.steps = steps\n")
    line = _refused(tmp_path / "run", "--instance", built_instance, *FAST, "--regimes", f"{tmp_path}/norun.py:NoRun")
    assert "norun.py:4" in line and "does not define run(self, ctx)" in line, line
    assert not (tmp_path / "run").exists()


def test_a_misspelt_model_is_named_before_its_decoding_is_asked_about(tmp_path, built_instance):
    line = _refused(tmp_path / "run", "--instance", built_instance, *FAST, "--model", "smollm2-135")
    assert "unknown model spec 'smollm2-135'" in line and "did you mean 'smollm2-135m'?" in line, line
    assert not (tmp_path / "run").exists()


def test_the_original_protocol_without_its_repository_is_refused_before_the_build(tmp_path):
    line = _refused(tmp_path / "run", "--model", "fake:", "--regimes", "--protocol", "original")
    assert "--original-repo" in line, line
    assert not (tmp_path / "run").exists()


def test_a_study_the_disk_cannot_hold_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """The plan's disk check (a checkpoint of the model's size a regime), made before the study starts: a
    disk with 1 MB free cannot hold the embedded model's Closed-SFT checkpoint."""
    import collections
    import shutil

    free = collections.namedtuple("usage", "total used free")(10**12, 10**12 - 10**6, 10**6)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: free)
    line = _refused(tmp_path / "run", "--preset", "quick", "--regimes", "closed-sft")
    assert "not enough disk" in line and "1 checkpoints of 0.3 GB" in line and "0 GB free" in line, line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("preset", ["quick", "inject"])
def test_an_unknown_regime_is_answered_with_the_names_sebench_methods_lists(tmp_path, preset):
    """The names the refusal offers are those `sebench methods` prints (a regime's former names, still read,
    are in neither), and each is one this preset runs."""
    import contextlib
    import io

    from sebench.cli import main
    from sebench.experiment.config import resolve
    from sebench.train import REGIME_ALIASES

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["methods"]) == 0
    listed = {line.split()[0] for line in printed.getvalue().splitlines() if line.strip()}
    line = _refused(tmp_path / "run", "--preset", preset, "--regimes", "clsed-sft", "--show-config")
    assert "did you mean 'closed-sft'?" in line and "`sebench methods` lists them" in line, line
    offered = line.split("(choose from ", 1)[1].split(", or a method")[0].split(", ")
    assert set(offered) <= listed and not set(offered) & set(REGIME_ALIASES)
    for name in offered:  # each offered name runs under this preset
        assert resolve(preset, {"regimes": [name]}).regimes == [name]

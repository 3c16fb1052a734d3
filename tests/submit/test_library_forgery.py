"""`sebench verify` rebuilds the library a run's settings name: a bundle whose data names another library
than its settings build fails with one line, before anything is rebuilt."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.submit.bundle import DATA_MANIFEST


def test_data_of_another_library_than_the_settings_build_is_a_mismatch(forge, shared_work, tmp_path, capsys):
    members = forge.members()
    forge.edit_json(members, DATA_MANIFEST, lambda m: m.update(library="more-itertools"))
    code = main(["verify", str(forge.repack(members)), "--work", str(tmp_path / "w"), "--store", str(tmp_path / "s")])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 1 and out[0] == (f"mismatch: {DATA_MANIFEST}: library 'more-itertools' is not the library the "
                                    "run's settings build ('numpy')"), out
    assert not (tmp_path / "w").exists() or not any((tmp_path / "w").glob("rebuilt-*/instance"))


@pytest.mark.parametrize("setting", ["library", "lifelong.cross"])
def test_a_library_the_bundle_names_by_module_is_never_imported(setting, forge, tmp_path, monkeypatch, capsys):
    """A self-consistent bundle whose settings name a module:ATTR library: verify refuses it at the records
    step, and the module (which would write a file when imported) is never imported."""
    marker = tmp_path / "imported"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/forger_library.py").write_text(f"open({str(marker)!r}, 'w').close()\nLIBRARY = None\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    members, name = forge.members(), "forger_library:LIBRARY"

    def named(config: dict) -> None:
        if setting == "library":
            config["config"]["library"] = name
        else:
            config["config"]["lifelong"] = {**(config["config"].get("lifelong") or {}), "cross": name}

    forge.edit_json(members, "run/manifest.json", named)
    if setting == "library":
        forge.edit_json(members, DATA_MANIFEST, lambda m: m.update(library=name))
    code = main(["verify", str(forge.repack(members)), "--work", str(tmp_path / "w"), "--store", str(tmp_path / "s")])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 1 and out[0].startswith(f"mismatch: run/manifest.json: {setting} '{name}' is not a registered "
                                           "library"), out
    from sebench.errors import SebenchError
    from sebench.submit.rerun import rerun_bundle

    with pytest.raises(SebenchError, match=f"{setting} '{name}' is not a registered library"):
        rerun_bundle(forge.repack(members, "again.tar.gz"), tmp_path / "rerun")
    assert not marker.exists()


@pytest.mark.slow  # about 90 s: a tiny-model study of more-itertools, its bundle and its verification
def test_a_bundle_of_another_library_is_re_judged(tmp_path, capsys):
    pytest.importorskip("transformers")
    from sebench.models import create_tiny_model

    model, run, bundle = create_tiny_model(tmp_path / "tiny"), tmp_path / "run", tmp_path / "mi.tar.gz"
    method = Path(__file__).resolve().parents[2] / "examples/reference_sft.py:ReferenceSFT"
    assert main(["run", "--library", "more-itertools", "--out", str(run), "--model", f"hf:{model}", "--functions", "4",
                 "--set", "max_train=8", "--set", "max_single=8", "--set", "max_multiple=2", "--max-tokens", "12",
                 "--set", "rollout.concurrency=2", "--set", "judge.workers=1", "--regimes", str(method),
                 "-M", "ReferenceSFT.steps=2"]) == 0
    assert main(["submit", str(run), "--method", "ReferenceSFT", "--out", str(bundle)]) == 0
    capsys.readouterr()
    code = main(["verify", str(bundle), "--work", str(tmp_path / "w"), "--store", str(tmp_path / "s")])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0 and out[-1].startswith("re-judged:"), out


def test_another_library_is_a_changed_setting_and_older_runs_are_numpys():
    from types import SimpleNamespace

    from sebench.experiment import resolve
    from sebench.submit.crosscheck import changed_settings

    config = dataclasses.asdict(resolve("quick", {}))
    assert changed_settings(SimpleNamespace(manifest={"config": config})) == []
    older = {k: v for k, v in config.items() if k != "library"}  # a run recorded before the setting
    assert changed_settings(SimpleNamespace(manifest={"config": older})) == []
    other = {**config, "library": "more-itertools"}
    assert changed_settings(SimpleNamespace(manifest={"config": other})) == ["library"]

"""`sebench verify --rerun` of self-consistent forgeries whose records name something on the verifier's machine:
a fence setting in the method's arguments (a path to read, the network, a variable, a time limit), a method or a
regime other than the bundled one, a model folder or file, a folder the original protocol or the launcher reads.
Each is refused in one line before the re-run's study starts; settings the verifier decides for itself (the
warm-up cache, the judge's bubblewrap) are the verifier's, whatever the bundle recorded."""

from pathlib import Path

import pytest

from sebench.errors import SebenchError

LABEL = "ReferenceSFT"


@pytest.fixture()
def no_study(monkeypatch):
    """The re-run's study fails loudly if it starts: each forgery here must be refused before it."""
    from sebench.experiment import Study

    def started(self) -> None:
        raise AssertionError("the re-run's study started")
    monkeypatch.setattr(Study, "run", started)


def rerun(bundle: Path, tmp_path: Path, model: str | None) -> None:
    from sebench.submit.rerun import rerun_bundle

    rerun_bundle(bundle, tmp_path / "work", model=model)


def both(forge, members: dict, change) -> None:
    """The same change to submission.json and method/method.json (verify's method step compares them)."""
    for name in ("submission.json", "method/method.json"):
        forge.edit_json(members, name, change)


def config_change(forge, members: dict, change) -> None:
    forge.edit_json(members, "run/manifest.json", lambda m: change(m["config"]))


FENCE = {"read": ["/home"], "network": True, "env": ["HF_TOKEN"], "timeout": 1e9, "prompt_timeout": 1e9,
         "max_output_gib": 1e6}


@pytest.mark.parametrize("key", list(FENCE))
def test_method_arguments_grant_no_path_network_variable_or_time(forge, tmp_path, tiny_model, no_study, key):
    """`methods.LABEL.read/network/env/timeout/...` are the fence's settings, never a method's arguments: in the
    arguments a bundle records, the re-run gave them to the bundled method's process."""
    members = forge.members()
    both(forge, members, lambda r: r["args"].update({key: FENCE[key]}))
    with pytest.raises(SebenchError, match=rf"^submission.json: args.{key}: .* the re-run's fence is the verifier's"):
        rerun(forge.repack(members), tmp_path, tiny_model)

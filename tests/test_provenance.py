from importlib import metadata

import pytest

import sebench
from sebench import provenance


def test_versions_name_sebench_from_its_source_and_a_missing_engine_as_none(monkeypatch):
    monkeypatch.setattr(provenance, "ENGINES", ("torch", "no-such-engine-sebench"))
    found = provenance.versions()
    assert found["sebench"] == sebench.__version__  # also from a source tree with no installed metadata
    assert found["torch"] == metadata.version("torch")
    assert found["no-such-engine-sebench"] is None
    assert found["python"].count(".") == 2


def test_the_installed_version_is_read_from_the_package():
    try:
        metadata.version("sebench")
    except metadata.PackageNotFoundError:
        pytest.skip("sebench runs from a source tree here, not installed")
    assert metadata.version("sebench") == sebench.__version__  # pyproject's version is sebench.__version__

"""`sebench verify` rebuilds the library a run's settings name: a bundle whose data names another library
than its settings build fails with one line, before anything is rebuilt."""

from __future__ import annotations

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

"""Tamper-evident runs (sebench.seal): a finished stage's files are sealed, and a change, an addition or a
removal afterwards stops the study with one line naming the file; links are sealed as links."""

import json

import pytest

from sebench.experiment.state import StageBook
from sebench.seal import Tampered, check_run


def _finished(tmp_path):
    book = StageBook(tmp_path / "run")
    out = tmp_path / "run" / "train" / "x"

    def write():
        out.mkdir(parents=True)
        (out / "model.safetensors").write_bytes(b"weights")
        (out / "elsewhere").symlink_to("/proc/kcore")  # a link a method left: sealed, never read

    book.run("train:x", {}, [out], write)
    return book, out


def test_a_change_an_addition_a_removal_or_a_relinking_stops_the_study_naming_the_file(tmp_path):
    for act in ("change", "add", "remove", "relink"):
        book, out = _finished(tmp_path / act)
        book.check()  # as the stage left it
        if act == "change":
            (out / "model.safetensors").write_bytes(b"other weights")
        elif act == "add":
            (out / "extra.json").write_text("{}")
        elif act == "remove":
            (out / "model.safetensors").unlink()
        else:
            (out / "elsewhere").unlink()
            (out / "elsewhere").symlink_to("/etc/hostname")
        with pytest.raises(Tampered) as stopped:
            book.check()
        assert "\n" not in str(stopped.value) and str(out) in str(stopped.value)
        with pytest.raises(Tampered):
            check_run(tmp_path / act / "run")  # `sebench report` too, from the records alone


def test_rewriting_the_record_with_the_change_does_not_hide_it_from_the_study(tmp_path):
    book, out = _finished(tmp_path)
    (out / "model.safetensors").write_bytes(b"other weights")
    record = json.loads(book.path("train:x").read_text())
    record["files"]["train/x/model.safetensors"] = "0" * 64
    book.path("train:x").write_text(json.dumps(record))
    with pytest.raises(Tampered, match="record of stage 'train:x' was rewritten"):
        book.check()


@pytest.mark.parametrize("what", ["fifo", "socket", "empty folder", "folder with a fifo"])
def test_a_fifo_a_socket_or_an_empty_folder_left_in_a_sealed_folder_stops_the_study(tmp_path, what):
    import os
    import socket

    book, out = _finished(tmp_path)
    at = out / "left"
    if what == "fifo":
        os.mkfifo(at)
    elif what == "socket":
        cwd = os.getcwd()
        os.chdir(out)  # a socket's path has at most 107 bytes
        try:
            socket.socket(socket.AF_UNIX).bind("left")
        finally:
            os.chdir(cwd)
    elif what == "empty folder":
        at.mkdir()
    else:
        at.mkdir()
        os.mkfifo(at / "inner")
        at = at / "inner"
    with pytest.raises(Tampered, match=f"{at} appeared after stage 'train:x' finished"):
        book.check()
    with pytest.raises(Tampered, match="appeared"):
        check_run(tmp_path / "run")


def test_special_files_and_empty_folders_are_sealed_by_type_and_never_opened(tmp_path):
    """A FIFO a stage left is recorded as "fifo" (opening it would wait for a writer for ever); replacing it by
    a file, or removing an empty folder, is a change."""
    import os

    book = StageBook(tmp_path / "run")
    out = tmp_path / "run" / "train" / "y"

    def write():
        (out / "empty").mkdir(parents=True)
        os.mkfifo(out / "pipe")

    record = book.run("train:y", {}, [out], write)
    assert record["files"] == {"train/y/empty": "folder", "train/y/pipe": "fifo"}
    book.check()
    (out / "pipe").unlink()
    (out / "pipe").write_text("now a file")
    with pytest.raises(Tampered, match="pipe changed"):
        book.check()
    (out / "pipe").unlink()
    os.mkfifo(out / "pipe")
    book.check()
    (out / "empty").rmdir()
    with pytest.raises(Tampered, match="empty was removed"):
        book.check()

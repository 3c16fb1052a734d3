"""Hostile bundles: a decompression bomb, deeply nested JSON, member names that reach outside after
normalisation, links and devices as members, and a module bundle whose import writes a file. Each gives one line
and exit 2; nothing is written outside the work folder, and the bundle's code runs only inside the fence."""

import gzip
import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

from sebench.cli import main
from sebench.submit import read_bundle
from sebench.submit.bundle import pack
from sebench.submit.safe import MAX_DEPTH, MAX_MEMBER, BundleError, inside

LABEL = "ReferenceSFT"


def raw_tar(out: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], level: int = 6) -> Path:
    """A tar.gz of exactly these headers and data (what a hostile sender can write, past any packer)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=level) as zipped, \
            tarfile.open(fileobj=zipped, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    out.write_bytes(buffer.getvalue())
    return out


def member(name: str, data: bytes = b"{}", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


class Zeros(io.RawIOBase):
    """`size` zero bytes, made as they are read."""

    def __init__(self, size: int):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def one_line_exit_2(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and not captured.out, err
    return err


def test_a_decompression_bomb_is_refused_within_the_cap(tmp_path, capsys):
    big = tarfile.TarInfo("evals/x/closed/single_test/rollouts.jsonl")
    big.size = MAX_MEMBER + 1  # a member over the cap: refused from its header, before its data is read
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=1) as zipped, \
            tarfile.open(fileobj=zipped, mode="w") as tar:
        tar.addfile(big, io.BufferedReader(Zeros(big.size)))
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(buffer.getvalue())
    assert bomb.stat().st_size < MAX_MEMBER // 100  # small on disk, 64 MiB once decompressed
    err = one_line_exit_2(["verify", str(bomb), "--store", str(tmp_path / "s")], capsys)
    assert "over the 64 MiB cap" in err
    many = [(tarfile.TarInfo(f"m{i}"), None) for i in range(5)]  # 5 x 60 MiB: each under the cap, not together
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=1) as zipped, \
            tarfile.open(fileobj=zipped, mode="w") as tar:
        for info, _ in many:
            info.size = 60 * 2**20
            tar.addfile(info, io.BufferedReader(Zeros(info.size)))
    bomb.write_bytes(buffer.getvalue())
    err = one_line_exit_2(["verify", str(bomb), "--store", str(tmp_path / "s")], capsys)
    assert "cap" in err or "MiB" in err


def test_deeply_nested_json_is_one_line(submitted, tmp_path, capsys):
    members = dict(read_bundle(submitted[1]).members)
    members.pop("bundle.json")
    for depth, why in ((MAX_DEPTH + 1, f"deeper than {MAX_DEPTH} levels"), (200_000, "too deep to read")):
        members["submission.json"] = ("[" * depth + "]" * depth).encode()  # past the limit; past Python's stack
        pack(members, LABEL, tmp_path / "nested.tar.gz")
        err = one_line_exit_2(["verify", str(tmp_path / "nested.tar.gz"), "--store", str(tmp_path / "s")], capsys)
        assert f"submission.json: JSON nested {why}" in err


def test_a_number_too_long_to_read_is_one_line(submitted, tmp_path, capsys):
    members = dict(read_bundle(submitted[1]).members)
    members.pop("bundle.json")
    members["submission.json"] = b'{"seed": ' + b"9" * 100_000 + b"}"
    pack(members, LABEL, tmp_path / "long.tar.gz")
    err = one_line_exit_2(["verify", str(tmp_path / "long.tar.gz"), "--store", str(tmp_path / "s")], capsys)
    assert "submission.json: not valid JSON" in err


ESCAPES = ["method/source//{outside}/escaped.py", "method/source/../../{name}", "/{outside}/escaped.py",
           "method\\source\\..\\..\\{name}", "method/source/./{name}", "method/source/a/../../../{name}"]


@pytest.mark.parametrize("pattern", ESCAPES)
def test_a_member_name_that_leaves_the_folder_is_refused(tmp_path, capsys, pattern):
    outside = tmp_path / "outside"
    outside.mkdir()
    name = pattern.format(outside=str(outside).lstrip("/"), name="escaped.py")
    bundle = raw_tar(tmp_path / "escape.tar.gz", [member("bundle.json"), member(name, b"print('x')\n")])
    err = one_line_exit_2(["verify", str(bundle), "--rerun", "--work", str(tmp_path / "work"),
                           "--store", str(tmp_path / "s")], capsys)
    assert "not a plain relative name (refused)" in err
    assert not list(outside.iterdir()) and not (tmp_path / "escaped.py").exists()


def test_inside_refuses_every_path_that_normalises_outside(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "link").symlink_to(tmp_path)  # a link already there does not carry a name out either
    assert inside(folder, "pkg/mod.py") == folder.resolve() / "pkg/mod.py"
    for name in ("/etc/passwd", "../x", "a/../../x", "a//b", "./x", "a\\..\\x", "link/x", "", "."):
        with pytest.raises(BundleError):
            inside(folder, name)


KINDS = {"symbolic link": (tarfile.SYMTYPE, "/etc/passwd"), "hard link": (tarfile.LNKTYPE, "bundle.json"),
         "character device": (tarfile.CHRTYPE, ""), "block device": (tarfile.BLKTYPE, ""),
         "fifo": (tarfile.FIFOTYPE, ""), "folder": (tarfile.DIRTYPE, "")}


@pytest.mark.parametrize("kind", list(KINDS))
def test_links_and_devices_are_refused(tmp_path, capsys, kind):
    typ, link = KINDS[kind]
    bundle = raw_tar(tmp_path / "link.tar.gz", [member("bundle.json"), member("method/source/x.py", kind=typ,
                                                                                   link=link)])
    err = one_line_exit_2(["verify", str(bundle), "--store", str(tmp_path / "s")], capsys)
    assert "a link, device or folder, not a plain file (refused)" in err
    assert not (tmp_path / "x.py").exists()


def test_a_member_given_twice_or_a_truncated_bundle_is_one_line(tmp_path, capsys):
    twice = raw_tar(tmp_path / "twice.tar.gz", [member("bundle.json"), member("bundle.json")])
    assert "given twice" in one_line_exit_2(["verify", str(twice), "--store", str(tmp_path / "s")], capsys)
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(twice.read_bytes()[:40])
    assert "not a bundle" in one_line_exit_2(["verify", str(cut), "--store", str(tmp_path / "s")], capsys)


EVIL_INIT = '''
import pathlib
try:
    pathlib.Path({outside!r}).write_text("written by the bundle's import")
    outcome = "written"
except OSError as exc:
    outcome = "refused: " + type(exc).__name__
pathlib.Path("imported-here.txt").write_text(outcome)  # the method's own folder, inside the fence
raise RuntimeError("the bundle's import stops here")
'''


def module_bundle(submitted, tmp_path: Path, outside: Path) -> Path:
    """The honest bundle turned into a module bundle (package evil_pkg) whose import writes `outside`."""
    from bundle_packing import repack

    members = dict(read_bundle(submitted[1]).members)
    code = members.pop("method/source/reference_sft.py")
    spec = f"evil_pkg.methods:{LABEL}"
    members["method/source/evil_pkg/__init__.py"] = EVIL_INIT.format(outside=str(outside)).encode()
    members["method/source/evil_pkg/methods.py"] = code
    method = json.loads(members["method/method.json"])
    method.update(spec=spec, origin="module", source_sha256=hashlib.sha256(code).hexdigest())
    sub = json.loads(members["submission.json"])
    sub.update(spec=spec, origin="module", entry=spec,
               sources=["method/source/evil_pkg/__init__.py", "method/source/evil_pkg/methods.py"])
    members["method/method.json"], members["submission.json"] = json.dumps(method).encode(), json.dumps(sub).encode()
    return repack(members, tmp_path / "module.tar.gz")


def test_a_module_bundle_is_consistent_and_re_judged(submitted, shared_work, tmp_path, capsys):
    bundle = module_bundle(submitted, tmp_path, tmp_path / "outside.txt")
    assert main(["verify", str(bundle), "--work", str(shared_work), "--store", str(tmp_path / "s")]) == 0
    assert capsys.readouterr().out.startswith("re-judged: ")
    assert "evil_pkg" not in sys.modules and not (tmp_path / "outside.txt").exists()


def test_a_module_bundles_import_runs_only_inside_the_fence(submitted, tmp_path, tiny_model):
    from sebench.errors import SebenchError
    from sebench.submit.rerun import ENTRY_FILE, rerun_bundle

    outside = tmp_path / "outside.txt"
    bundle = module_bundle(submitted, tmp_path, outside)
    with pytest.raises(SebenchError) as failed:
        rerun_bundle(bundle, tmp_path / "work", model=tiny_model)
    assert len(str(failed.value).splitlines()) == 1 and "the bundle's import stops here" in str(failed.value)
    assert "evil_pkg" not in sys.modules and not outside.exists()  # never imported here; refused there
    ran = list((tmp_path / "work").rglob("imported-here.txt"))
    assert len(ran) == 1 and ran[0].read_text().startswith("refused: ")  # it did run, in the method's folder
    assert (tmp_path / "work/source" / ENTRY_FILE).is_file()


def test_a_second_archive_after_the_end_is_refused(tmp_path, capsys):
    """`tar --ignore-zeros` reads past the end-of-archive blocks: a second archive appended there replaced the
    verified source on extraction, and the verifier, which stops at the end, never read it."""
    first = raw_tar(tmp_path / "first.tar.gz", [member("bundle.json"), member("x.py", b"print('verified')\n")])
    second = raw_tar(tmp_path / "second.tar.gz", [member("x.py", b"print('hidden')\n")])
    both = tmp_path / "both.tar.gz"
    both.write_bytes(gzip.compress(gzip.decompress(first.read_bytes()) + gzip.decompress(second.read_bytes())))
    with tarfile.open(both, "r:gz", ignore_zeros=True) as tar:  # as `tar --ignore-zeros` reads it
        last = [tar.extractfile(info).read() for info in tar if info.name == "x.py"][-1]
    assert last == b"print('hidden')\n"  # what a reader who extracts it sees last
    assert "data after the archive's end" in one_line_exit_2(["verify", str(both), "--store", str(tmp_path / "s")],
                                                              capsys)
    padded = tmp_path / "padded.tar.gz"  # zeros alone after the end: the padding any tar writer may add
    padded.write_bytes(gzip.compress(gzip.decompress(first.read_bytes()) + bytes(10240)))
    from sebench.submit.safe import read_members

    assert read_members(padded) == {"bundle.json": b"{}", "x.py": b"print('verified')\n"}

"""A submission bundle: one tar.gz file that holds one method's run, and nothing of the test split.

    bundle.json                                  the index: format, label, sha256 of every other member
    card.md                                      what was run, and the checklist (card.py)
    submission.json                              label, origin, entry, arguments, base model, preset, seed,
                                                 decoding, checkpoint (hub id and sha256), source files
    method/method.json                           the method's record (sebench.methods.run)
    method/source/...                            its source: the file; a module's or an entry point's package
    run/manifest.json                            the run's manifest: seed, preset, settings, versions, data hashes
    run/data-manifest.json                       the studied data's manifest: names, counts, file hashes
    evals/<regime>/<mode>/<split>/rollouts.jsonl the method's and the untrained model's answers, prompts left out
    evals/<regime>/<mode>/<split>/verdicts.jsonl their verdicts, the judge's messages left out
    report/rows.json                             the report's rows of the method and the untrained model
    lock.txt                                     every installed distribution, name==version

Prompts and the judge's messages quote the test tasks, so they stay out; `sebench verify` rebuilds the tasks
from the seed and judges the answers again.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import logging
import re
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.files import read_json_object, tree_sha256
from sebench.output_files import write_text_atomic
from sebench.submit.safe import BundleError, parse_json, read_file, read_members

log = logging.getLogger(__name__)

FORMAT = 1
INDEX = "bundle.json"
BASELINE = "untrained"
SOURCE_DIR = "method/source/"
DATA_MANIFEST = "run/data-manifest.json"
ROLLOUT_DROPS = ("prompt",)  # the rendered test task
ROW_DROPS = ("runs", "settings")  # where the run lay on disk; the training settings are in the manifest


@dataclass(frozen=True)
class Bundle:
    """A bundle's members (name -> bytes), read whole: bundles are small; and the sha256 of the bytes they were
    read from (the bundle's identity in the verifier's store)."""

    path: Path
    members: Mapping[str, bytes]
    sha256: str = ""

    def json(self, name: str) -> Any:
        return parse_json(self.text(name), name)

    def record(self, name: str) -> dict:
        """A member that holds one JSON object."""
        value = self.json(name)
        if not isinstance(value, dict):
            raise BundleError(f"{name}: not a JSON object")
        return value

    def text(self, name: str) -> str:
        if name not in self.members:
            raise BundleError(f"{self.path}: no member {name}")
        try:
            return self.members[name].decode("utf-8")
        except UnicodeDecodeError:
            raise BundleError(f"{name}: not UTF-8 text") from None

    def lines(self, name: str) -> list[dict]:
        """A JSON lines member's objects. Lines end at a newline alone, as the run's own files are read
        (records.iter_lines): a U+2028 or U+0085 is text inside an answer, never a line's end."""
        out = []
        for number, line in enumerate(self.text(name).split("\n"), 1):
            if line.strip():
                value = parse_json(line, f"{name}:{number}")
                if not isinstance(value, dict):
                    raise BundleError(f"{name}:{number}: not a JSON object")
                out.append(value)
        return out

    @property
    def submission(self) -> dict:
        return self.record("submission.json")

    @property
    def manifest(self) -> dict:
        return self.record("run/manifest.json")

    @property
    def method(self) -> dict:
        return self.record("method/method.json")

    @property
    def rows(self) -> list[dict]:
        """report/rows.json: a list of row objects."""
        value = self.json("report/rows.json")
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            raise BundleError("report/rows.json: not a list of rows")
        return value

    def eval_files(self, kind: str) -> list[str]:
        """The members evals/<regime>/<mode>/<split>/<kind>.jsonl, sorted."""
        return sorted(n for n in self.members if n.startswith("evals/") and n.endswith(f"/{kind}.jsonl"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---- writing ---------------------------------------------------------------------------------------------


def write_bundle(run_dir: Path, label: str, out: Path, checkpoint_hub: str | None = None) -> Path:
    """Packs `label`'s run in `run_dir` into the bundle `out` (tar.gz); returns `out`."""
    from sebench.submit.card import card_markdown

    members = collect(Path(run_dir), label, checkpoint_hub)
    members["card.md"] = card_markdown(json.loads(members["submission.json"]), json.loads(members["method/method.json"]),
                                       json.loads(members["run/manifest.json"])).encode()
    pack(members, label, Path(out))
    log.info("bundle of %s written to %s (%d files)", label, out, len(members) + 1)
    return Path(out)


def collect(run_dir: Path, label: str, checkpoint_hub: str | None) -> dict[str, bytes]:
    """Every member but the card and the index; no folder of this machine is named in them (placeless)."""
    manifest = _read_json(run_dir / "manifest.json")
    method = _read_method(run_dir / "train" / label / "method.json")
    if (manifest.get("config") or {}).get("instance"):
        log.warning("%s studied an instance it did not build (--instance): its bundle cannot be verified from the "
                    "seed; run without --instance to submit", run_dir)
    sources, entry = source_members(method)
    data = data_manifest(run_dir, manifest)
    manifest = {**manifest, "commands": [{k: v for k, v in c.items() if k != "argv"} for c in manifest.get("commands") or []],
                "data_hashes": {**(manifest.get("data_hashes") or {}), "manifest.json": sha256(data)}}
    sub = submission(placeless(manifest), placeless(method), label, entry, sorted(sources), checkpoint_hub)
    sub["checkpoint"] = checkpoint(method, checkpoint_hub)
    sub["base_model_sha256"] = model_sha256(str(manifest.get("model") or ""))
    members: dict[str, bytes] = {"run/manifest.json": _dump(placeless(manifest)),
                                 "method/method.json": _dump(placeless(method)),
                                 DATA_MANIFEST: data, **eval_members(run_dir, label),
                                 **sources, "submission.json": _dump(sub), "lock.txt": lock().encode()}
    members["report/rows.json"] = _dump(rows_of(members))
    return members


LOCAL_PATH = re.compile(r"(?P<scheme>[A-Za-z][\w+.-]*:)?(?P<path>~?/[^:\s]*)(?P<rest>:[A-Za-z_]\w*)?")


def placeless(value: Any) -> Any:
    """`value` with every string that is a local path (or a spec of one: hf:/path, /path/file.py:Attr) cut to its
    last part: a bundle names no folder of the submitter's machine; models go by spec and hash."""
    if isinstance(value, dict):
        return {k: placeless(v) for k, v in value.items()}
    if isinstance(value, list):
        return [placeless(v) for v in value]
    if isinstance(value, str) and (match := LOCAL_PATH.fullmatch(value)):
        return f"{match['scheme'] or ''}{Path(match['path']).name}{match['rest'] or ''}"
    return value


def model_sha256(spec: str) -> str | None:
    """The sha256 of a base model's local folder (hf:/path or /path), else None (a hub or embedded name)."""
    path = Path(spec.removeprefix("hf:")).expanduser()
    return tree_sha256(path) if path.is_absolute() and path.is_dir() else None


def _read_json(path: Path) -> dict:
    if not path.is_file():
        raise SebenchError(f"{path}: missing; submit a run directory of `sebench run` and a label it trained "
                           f"(RUN_DIR/train/LABEL/method.json)")
    return read_json_object(path)


def _read_method(path: Path) -> dict:
    """The method's record, its fields of their types (the report's rule), naming the method it ran."""
    from sebench.report import read_method

    method = _read_json(path)
    read_method(path)  # each field the report reads, of its type
    if not method.get("spec"):
        raise SebenchError(f"{path}: field 'spec': missing; the record `sebench run` wrote names the method it ran")
    return method


def data_manifest(run_dir: Path, manifest: dict) -> bytes:
    """The studied data's manifest.json without the folder it was selected from (the bundled run manifest's
    data hash of manifest.json is this copy's; the other data hashes are the run's)."""
    data = Path(manifest.get("data") or "data")
    text = ((run_dir / data) if not data.is_absolute() else data).joinpath("manifest.json").read_text(encoding="utf-8")
    return _dump(placeless(json.loads(text)))


def _dump(data: object) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()


def eval_members(run_dir: Path, label: str) -> dict[str, bytes]:
    """The rollouts and verdicts of `label` and of the untrained model, stripped of the test split's text."""
    members = {}
    for regime in (label, BASELINE):
        folders = sorted(p.parent for p in (run_dir / "evals" / regime).glob("*/*/verdicts.jsonl")
                         if p.parent.name != "train")  # the base's training answers are no result
        if not folders:
            raise SebenchError(f"{run_dir / 'evals' / regime}: no verdicts; was '{regime}' evaluated in this run?")
        for folder in folders:
            rel = folder.relative_to(run_dir).as_posix()
            members[f"{rel}/rollouts.jsonl"] = _strip(folder / "rollouts.jsonl",
                                                      lambda r: placeless(_drop(r, ROLLOUT_DROPS)))
            members[f"{rel}/verdicts.jsonl"] = _strip(folder / "verdicts.jsonl",
                                                      lambda v: placeless({**v, "detail": {}}))
    return members


def _drop(record: dict, names: tuple[str, ...]) -> dict:
    return {k: v for k, v in record.items() if k not in names}


def _strip(path: Path, fn: Callable[[dict], dict]) -> bytes:
    lines = [json.dumps(fn(json.loads(line)), ensure_ascii=False)
             for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]  # as Bundle.lines
    return ("\n".join(lines) + "\n").encode()


def source_members(method: dict) -> tuple[dict[str, bytes], str]:
    """The method's source files (under method/source/) and the spec that loads them from that folder."""
    origin, spec = method.get("origin"), str(method.get("spec") or "")
    if origin == "built-in":
        return {}, spec  # sebench's own code, at the version the lock names
    from sebench.methods import resolve

    ref = resolve(spec)
    if origin != "file":
        return package_sources(ref.target.partition(":")[0].split(".")[0]), ref.target
    path = Path(ref.target.rpartition(":")[0])
    if method.get("source_sha256") and sha256(path.read_bytes()) != method["source_sha256"]:
        raise SebenchError(f"{path}: changed since the run (its sha256 is not method.json's source_sha256); "
                           "submit with the file the run used")
    return {SOURCE_DIR + path.name: path.read_bytes()}, Path(ref.target).name


def package_sources(top: str) -> dict[str, bytes]:
    """The .py files of the top-level module or package `top`, by their import paths."""
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.origin:
        raise SebenchError(f"module {top}: not found; install the method's package before submitting")
    origin = Path(spec.origin)
    if origin.name != "__init__.py":
        return {SOURCE_DIR + origin.name: origin.read_bytes()}
    root = origin.parent
    return {SOURCE_DIR + f"{top}/{p.relative_to(root).as_posix()}": p.read_bytes() for p in sorted(root.rglob("*.py"))}


def submission(manifest: dict, method: dict, label: str, entry: str, sources: list[str],
               checkpoint_hub: str | None) -> dict:
    """What the bundle holds, in one place: the method, its base model, the study's settings that rank it."""
    config = manifest.get("config") or {}
    rollout = config.get("rollout") or {}
    return {"format": FORMAT, "label": label, "origin": method.get("origin"), "spec": method.get("spec"),
            "entry": entry, "args": method.get("args") or {}, "sources": sources,
            "base_model": manifest.get("model"), "preset": manifest.get("preset"), "seed": manifest.get("seed"),
            "protocol": config.get("protocol", "sebench"),
            "decoding": {"n": rollout.get("n"), "temperature": rollout.get("temperature"),
                         "max_tokens": rollout.get("max_tokens")},
            "checkpoint": checkpoint(method, checkpoint_hub)}


def checkpoint(method: dict, hub: str | None) -> dict | None:
    """The trained checkpoint's hub id (given) and the sha256 of its folder (when it is here)."""
    path = Path(((method.get("result") or {}).get("path")) or "")
    digest = tree_sha256(path) if str(path) not in ("", ".") and path.is_dir() else None
    return None if hub is None and digest is None else {"hub": hub, "sha256": digest}


def lock() -> str:
    """Every installed distribution, name==version, sorted."""
    found = {f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions() if d.metadata["Name"]}
    return "\n".join(sorted(found, key=str.lower)) + "\n"


def rows_of(members: Mapping[str, bytes]) -> list[dict]:
    """The report's main-table rows of the bundle's verdicts (sebench.report.build_report), without where the
    run lay: the one computation of the bundle's numbers, at submit and at verify."""
    from sebench.report import build_report

    with tempfile.TemporaryDirectory(prefix="sebench-bundle-") as tmp:
        root = Path(tmp) / "run"
        manifest = json.loads(members["run/manifest.json"])
        files = {"manifest.json": _dump({"model": manifest.get("model"), "seed": manifest.get("seed")}),
                 **{n: b for n, b in members.items() if n.startswith("evals/") and n.endswith("/verdicts.jsonl")}}
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        build_report([root], Path(tmp) / "report", plots_enabled=False)
        rows = json.loads((Path(tmp) / "report" / "report.json").read_text(encoding="utf-8"))["main_table"]
    return [_drop(row, ROW_DROPS) for row in rows]


def pack(members: dict[str, bytes], label: str, out: Path) -> None:
    """Writes the members and their index as a reproducible tar.gz (sorted, no times or owners)."""
    index = {"format": FORMAT, "label": label, "files": {n: sha256(b) for n, b in sorted(members.items())}}
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        for name, data in [(INDEX, _dump(index)), *sorted(members.items())]:
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    out.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out, buffer.getvalue())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


# ---- reading ---------------------------------------------------------------------------------------------


def read_bundle(path: Path) -> Bundle:
    """The bundle's members, read within safe.py's caps from the file's bytes read once (safe.read_file); a file
    that is not a bundle, or a member that is not a plain relative file, is a BundleError naming it."""
    path = Path(path)
    data = read_file(path)  # once: the members and the digest are of the same bytes
    members = read_members(path, data)
    if INDEX not in members:
        raise BundleError(f"{path}: no {INDEX}; not a bundle from `sebench submit`")
    return Bundle(path, members, sha256(data))


def write_text(path: Path, text: str) -> None:
    """Writes a text output atomically (the leaderboard's files)."""
    write_text_atomic(Path(path), text)

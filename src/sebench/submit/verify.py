"""`sebench verify BUNDLE`: a bundle checked from its contents alone, in order, stopping at the first mismatch.
Passing every step is the level "re-judged" (LEVELS; docs/leaderboard.md says what each level proves):

1. the index: every member's sha256 is the one bundle.json lists, and nothing is unlisted;
2. the method: its source is Python source files alone, its sha256 is method.json's, and submission.json names
   the same method and arguments;
3. the records: every field the board shows is read from the run's records and agrees with submission.json
   and card.md (crosscheck.py);
4. the data: the seed's instance of the library the run's settings name (the bundled data manifest must name the
   same) is rebuilt with the run's settings (a fresh study's build and select stages),
   the manifest's data folder is the rebuilt one (steps 5 and 6 read the tasks there), and every data hash of
   the run's manifest is the rebuilt one's;
5. the answers: every test task of each evaluated split and mode has exactly the run's samples, for the method
   and for the untrained model, each in its folder's mode and with the code its response holds (the judge reads
   the response), and nothing else is there (no other folder or file under evals/, whose answers step 6 would
   judge too);
6. the verdicts: every answer is judged again against the rebuilt tasks, and each verdict is the recorded one;
7. the numbers: the report's rows are computed again from the verdicts (sebench.report) and equal the bundle's,
   each given once.

A bundle that cannot be read (safe.py) is a BundleError (exit 2), not a mismatch.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.answers import extract_code
from sebench.errors import SebenchError
from sebench.files import file_sha256
from sebench.records import Rollout, from_dict
from sebench.submit.bundle import BASELINE, DATA_MANIFEST, INDEX, SOURCE_DIR, Bundle, read_bundle, rows_of, sha256
from sebench.submit.crosscheck import Mismatch, check_records
from sebench.submit.safe import BundleError, parse_json

log = logging.getLogger(__name__)

VERDICT_FIELDS = ("verdict", "tests_passed", "tests_total", "split", "kind", "protocol", "outcome")
ROW_KEY = ("regime", "mode", "split", "protocol")
MANIFEST = "manifest.json"
EVAL_FILES = ("rollouts.jsonl", "verdicts.jsonl")  # what a bundle holds under evals/<regime>/<mode>/<split>/
STEPS = ("index", "method", "records", "data", "answers", "verdicts", "rows")
REJUDGED, REPRODUCED, HELD_OUT, FAILS = "re-judged", "reproduced", "held-out", "fails"
LEVELS = (REJUDGED, REPRODUCED, HELD_OUT)  # each includes the one before
LEVEL_TEXT = {REJUDGED: "every answer was judged again and every number recomputed; the answers themselves "
                        "rest on the submitter",
              REPRODUCED: "the method was trained again from its source inside the fence and it and the untrained "
                          "model gave the bundle's results",
              HELD_OUT: "reproduced, and re-run on seeds the verifier chose",
              FAILS: "fails verification"}


@dataclass(frozen=True)
class Verification:
    """The outcome of `sebench verify`: verified, or the first mismatch; and the re-runs, when asked."""

    bundle: str
    bundle_sha256: str
    label: str
    verified: bool
    mismatch: str | None = None
    checked: tuple[str, ...] = ()
    rerun: dict | None = None  # rerun.compare_rerun's result
    held_out: dict | None = None  # rerun.held_out's result
    answers: int = 0  # answers judged again, the method's and the untrained model's

    @property
    def level(self) -> str:
        return level_of(self.to_json())

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def level_of(record: dict) -> str:
    """The highest level a verification record reached (LEVELS), or "fails"."""
    if not record.get("verified"):
        return FAILS
    if not (record.get("rerun") or {}).get("reproduced"):
        return REJUDGED
    return HELD_OUT if (record.get("held_out") or {}).get("seeds") else REPRODUCED


def verify_bundle(path: Path, workers: int | None = None, work: Path | None = None,
                  bundle: Bundle | None = None) -> Verification:
    """Checks the bundle at `path` (the module docstring's steps); a mismatch is the result, not an error. A
    bundle that cannot be read safely raises BundleError. `work`: where the instance is rebuilt (default: a
    temporary folder); one rebuilt there is reused for the same settings. `bundle`: the bundle already read
    from `path` (read_bundle), whose bytes a caller goes on with (a re-run, the board): the file is not read
    again."""
    bundle = bundle or read_bundle(path)
    label = str(bundle.record(INDEX).get("label") or "")
    digest = bundle.sha256
    done: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="sebench-verify-") as tmp:
            for step in STEPS:
                _STEPS[step](bundle, Path(work or tmp), workers)
                done.append(step)
    except Mismatch as exc:
        return Verification(str(path), digest, label, False, str(exc), tuple(done))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # a field of the wrong shape
        raise BundleError(f"{path}: malformed bundle (step {STEPS[len(done)]}): {type(exc).__name__}: "
                          f"{str(exc)[:200]}") from None
    return Verification(str(path), digest, label, True, None, tuple(done), answers=count_answers(bundle))


def count_answers(bundle: Bundle) -> int:
    return sum(len(bundle.lines(name)) for name in bundle.eval_files("rollouts"))


# ---- 1. the index ----------------------------------------------------------------------------------------


def check_index(bundle: Bundle, *_: object) -> None:
    listed = bundle.record(INDEX).get("files") or {}
    for name in sorted(set(listed) | set(bundle.members) - {INDEX}):
        if name not in bundle.members:
            raise Mismatch(f"{INDEX}: lists {name}, which the bundle lacks")
        if name not in listed:
            raise Mismatch(f"{name}: not listed in {INDEX}")
        if sha256(bundle.members[name]) != listed[name]:
            raise Mismatch(f"{name}: its sha256 is not the one {INDEX} lists (the file was changed)")


# ---- 2. the method ---------------------------------------------------------------------------------------


def check_method(bundle: Bundle, *_: object) -> None:
    check_source_files(bundle)
    method, sub = bundle.method, bundle.submission
    for name in ("spec", "origin", "args"):
        if (sub.get(name) or None) != (method.get(name) or None):
            raise Mismatch(f"submission.json: {name} {sub.get(name)!r} is not method/method.json's {method.get(name)!r}")
    member = source_file(sub)
    if member is None or not method.get("source_sha256"):
        return
    if member not in bundle.members:
        raise Mismatch(f"{member}: missing; method/method.json's source_sha256 names it")
    if sha256(bundle.members[member]) != method["source_sha256"]:
        raise Mismatch(f"{member}: its sha256 is not method/method.json's source_sha256 (the source was changed)")


def check_source_files(bundle: Bundle) -> None:
    """Every file under method/source/ is Python source (.py), as `sebench submit` packs it: a compiled file
    beside the source (a __pycache__ .pyc of unchecked hash, an extension module .so) is what Python runs in the
    source's place, and no reader of the source would see it."""
    for name in sorted(n for n in bundle.members if n.startswith(SOURCE_DIR)):
        if not name.endswith(".py"):
            raise Mismatch(f"{name}: not Python source (.py); a compiled or other file beside the method's source "
                           "would be run or read in its place")


def source_file(sub: dict) -> str | None:
    """The bundled file whose sha256 method.json records: a file method's file, a module's file."""
    origin, entry = sub.get("origin"), str(sub.get("entry") or "")
    if origin == "file":
        return SOURCE_DIR + entry.rpartition(":")[0]
    if origin in ("module", "entry point"):
        module = entry.partition(":")[0].replace(".", "/")
        names = [SOURCE_DIR + module + ".py", SOURCE_DIR + module + "/__init__.py"]
        return next((n for n in names if n in (sub.get("sources") or [])), names[0])
    return None


# ---- 4. the data -----------------------------------------------------------------------------------------


def run_config(bundle: Bundle, **changes: object):
    """The run's RunConfig, from its manifest's settings (with `changes`); a setting this sebench does not
    know is a mismatch naming it."""
    from sebench.experiment import RunConfig

    config = dict(bundle.manifest.get("config") or {})
    known = {f.name for f in dataclasses.fields(RunConfig)}
    unknown = sorted(set(config) - known)
    if unknown:
        raise Mismatch(f"run/manifest.json: setting '{unknown[0]}' is unknown to this sebench (see lock.txt)")
    if config.get("instance") and "instance" not in changes:
        raise Mismatch("run/manifest.json: the run studied an instance it did not build (--instance); only a "
                       "run that built its instance from the seed can be verified")
    return RunConfig(**{**config, **changes})


def rebuild(bundle: Bundle, work: Path) -> Path:
    """The run's data rebuilt from its seed and settings by a fresh study's own stages (build, select, and the
    compact docs of a warm-up that reads them); returns its folder."""
    from sebench.experiment import Study

    cfg = run_config(bundle, regimes=[], methods={})  # the data alone: no method need resolve here
    study = Study(cfg, rebuilt_dir(bundle, work))
    study.root.mkdir(parents=True, exist_ok=True)
    study.data = study.prepare_data()
    if (cfg.warmup or {}).get("docs") == "compact":
        study.data = study.compact_data()
    return study.data


def data_hashes(data: Path) -> dict:
    """A data folder's hashes as a run manifest records them: its manifest.json's and those the manifest lists."""
    manifest = json.loads((data / MANIFEST).read_text(encoding="utf-8"))
    return {MANIFEST: file_sha256(data / MANIFEST), **manifest.get("hashes", {})}


def rebuilt_dir(bundle: Bundle, work: Path) -> Path:
    """The folder of the study that rebuilds this bundle's data: one per seed and settings."""
    config = json.dumps(bundle.manifest.get("config") or {}, sort_keys=True)
    return Path(work) / f"rebuilt-{sha256(config.encode())[:12]}"


def check_data(bundle: Bundle, work: Path, _workers: object) -> None:
    """The manifest's data folder is the rebuilt one's, and every data hash the rebuilt data's; the data's
    manifest.json, which names the folder it was selected from, against the bundled copy (its hash) and the
    rebuilt one less that folder."""
    expected = bundle.manifest.get("data_hashes") or {}
    named = bundle.record(DATA_MANIFEST).get("library", "numpy")  # NumPy's data names no library
    built = (bundle.manifest.get("config") or {}).get("library", "numpy")
    if named != built:
        raise Mismatch(f"{DATA_MANIFEST}: library {named!r} is not the library the run's settings build ({built!r})")
    data = rebuild(bundle, work)
    folder = data.relative_to(rebuilt_dir(bundle, work)).as_posix()
    if bundle.manifest.get("data", "data") != folder:  # steps 5 and 6 read the answers' tasks there
        raise Mismatch(f"run/manifest.json: data {bundle.manifest.get('data')!r} is not the rebuilt instance's "
                       f"folder {folder!r}")
    actual = {**data_hashes(data), MANIFEST: expected.get(MANIFEST)}
    seed = bundle.manifest.get("seed")
    for name in sorted(set(expected) | set(actual)):
        if expected.get(name) != actual.get(name):
            raise Mismatch(f"run/manifest.json: data_hashes['{name}'] is not the rebuilt instance's (seed {seed})")
    if sha256(bundle.members[DATA_MANIFEST]) != expected.get(MANIFEST):
        raise Mismatch(f"run/manifest.json: data_hashes['{MANIFEST}'] is not the sha256 of {DATA_MANIFEST}")
    again = json.loads((data / MANIFEST).read_text(encoding="utf-8"))
    field = first_difference(_placeless(bundle.record(DATA_MANIFEST)), _placeless(again))
    if field is not None:
        raise Mismatch(f"{DATA_MANIFEST}: {field} is not the rebuilt instance's (seed {seed})")


def _placeless(manifest: dict) -> dict:
    """A data manifest without the folder its subset was selected from."""
    subset = {k: v for k, v in (manifest.get("subset") or {}).items() if k != "of"}
    return {**manifest, **({"subset": subset} if subset else {})}


# ---- 5. the answers -------------------------------------------------------------------------------------


def expected_folders(bundle: Bundle) -> set[tuple[str, str, str]]:
    """(regime, mode, split) the run's settings evaluate: the method in its trained modes (open-book alone when
    it keeps the docs at test time, closed-book for an agent), the untrained model in its modes."""
    config, sub, method = bundle.manifest.get("config") or {}, bundle.submission, bundle.method
    result = method.get("result") or {}
    modes = (["open"] if result.get("docs_at_test_time") else ["closed"] if result.get("kind") == "agent"
             else list(config.get("trained_modes") or ["closed"]))
    splits = list(config.get("splits") or ["single_test", "multiple_test"])
    return ({(str(sub["label"]), m, s) for m in modes for s in splits}
            | {(BASELINE, m, s) for m in config.get("untrained_modes") or ["closed"] for s in splits})


def check_answers(bundle: Bundle, work: Path, _workers: object) -> None:
    """Every test task of each evaluated (regime, mode, split) has exactly samples 0..n-1, and nothing more."""
    data = rebuilt_dir(bundle, work) / bundle.manifest.get("data", "data")
    n = int(((bundle.manifest.get("config") or {}).get("rollout") or {}).get("n") or 1)
    expected = expected_folders(bundle)
    for member in sorted(m for m in bundle.members if m.startswith("evals/")):  # step 6 judges what is counted here
        if len(member.split("/")) != 5 or member.rpartition("/")[2] not in EVAL_FILES:
            raise Mismatch(f"{member}: not an evaluation's file (evals/<regime>/<mode>/<split>/rollouts.jsonl or "
                           "verdicts.jsonl)")
    present = {tuple(member.split("/")[1:4]) for member in bundle.members if member.startswith("evals/")}
    for folder in sorted(expected | present):
        name = f"evals/{'/'.join(folder)}/rollouts.jsonl"
        if folder not in expected:
            raise Mismatch(f"{name}: the run's settings evaluate no such regime, mode and split")
        for file in EVAL_FILES:
            if f"evals/{'/'.join(folder)}/{file}" not in bundle.members:
                raise Mismatch(f"evals/{'/'.join(folder)}/{file}: missing; the run's settings evaluate "
                               f"{' '.join(folder)}")
        tasks = test_task_ids(data, folder[2])
        seen: dict[str, list[Any]] = {}
        for number, rollout in enumerate(bundle.lines(name), 1):
            if rollout.get("task_id") not in tasks:
                raise Mismatch(f"{name}:{number}: task {rollout.get('task_id')!r} is not a task of the rebuilt "
                               f"{folder[2]}")
            if rollout.get("mode") != folder[1]:  # the judge's library follows it (numpy: real NumPy)
                raise Mismatch(f"{name}:{number}: mode {rollout.get('mode')!r} is not its folder's {folder[1]!r}")
            if not isinstance(rollout.get("response"), (str, type(None))):
                raise Mismatch(f"{name}:{number}: response is not text (got {type(rollout.get('response')).__name__})")
            if rollout.get("code") != extract_code(rollout.get("response")):  # what a reader takes for the answer
                raise Mismatch(f"{name}:{number}: code is not the program its response holds; the code of an answer "
                               "is extracted from its response (sebench.answers), which the judge reads")
            seen.setdefault(rollout["task_id"], []).append(rollout.get("sample_idx"))
        for task in tasks:
            got = sorted(seen.get(task, []), key=repr)
            if got != sorted(range(n), key=repr):  # exactly the integers 0..n-1, each once
                raise Mismatch(f"{name}: task {task}: samples {got}, but the run's "
                               f"decoding calls for {n} (0..{n - 1})")


def test_task_ids(data: Path, split: str) -> list[str]:
    """The task ids of the rebuilt test split `split`."""
    path = data / "datasets" / "test" / f"{split}.jsonl"
    if not path.is_file():
        raise Mismatch(f"run/manifest.json: split {split!r} is not a test split of the rebuilt instance")
    return [json.loads(line)["task_id"] for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


# ---- 6. the verdicts -------------------------------------------------------------------------------------


def check_verdicts(bundle: Bundle, work: Path, workers: int | None) -> None:
    from sebench.judge import judge_records

    data = rebuilt_dir(bundle, work) / bundle.manifest.get("data", "data")
    protocol = bundle.submission.get("protocol") or "sebench"
    limits = bundle.manifest.get("config", {}).get("judge") or {}  # the run's judge limits
    for verdicts_name in bundle.eval_files("verdicts"):
        rollouts_name = verdicts_name.replace("/verdicts.jsonl", "/rollouts.jsonl")
        rollouts = [from_dict(Rollout, {**r, "prompt": None}, f"{rollouts_name}:{i}")
                    for i, r in enumerate(bundle.lines(rollouts_name), 1)]
        recorded = bundle.lines(verdicts_name)
        if len(recorded) != len(rollouts):
            raise Mismatch(f"{verdicts_name}: {len(recorded)} verdicts for {len(rollouts)} rollouts in {rollouts_name}")
        memory_mb = limits.get("memory_mb") or 1024
        judged = judge_records(data, rollouts, judge_workers(workers, memory_mb), protocol=protocol,
                               timeout_s=limits.get("timeout", 3.0), memory_mb=memory_mb)
        for rollout, old, new in zip(rollouts, recorded, judged):
            compare_verdict(rollouts_name, verdicts_name, rollout, old, dataclasses.asdict(new))


def judge_workers(requested: int | None, memory_mb: float, total_mib: float | None = None) -> int:
    """Programs judged at once: the verifier's (`requested`, else its CPUs), no more than three quarters of its
    memory (`total_mib`, else this machine's) holds at the bundle's per-program memory limit, at least one."""
    if total_mib is None:
        total_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    return max(1, min(requested or os.cpu_count() or 1, int(0.75 * total_mib // max(float(memory_mb), 1.0))))


def compare_verdict(rollouts_name: str, verdicts_name: str, rollout: Rollout, old: dict, new: dict) -> None:
    where = f"task {rollout.task_id} sample {rollout.sample_idx}"
    if (old.get("task_id"), old.get("sample_idx")) != (rollout.task_id, rollout.sample_idx):
        raise Mismatch(f"{verdicts_name}: {where}: its verdict is for task {old.get('task_id')} sample "
                       f"{old.get('sample_idx')}")
    for name in VERDICT_FIELDS:
        if (old.get(name) or "") != (new.get(name) or ""):
            raise Mismatch(f"{rollouts_name}: {where}: re-judged {name} {new.get(name)!r}, but {verdicts_name} "
                           f"records {old.get(name)!r}")


# ---- 7. the numbers --------------------------------------------------------------------------------------


def check_rows(bundle: Bundle, *_: object) -> None:
    rows = bundle.rows
    keys = [tuple(r.get(k) for k in ROW_KEY) for r in rows]
    twice = next((key for i, key in enumerate(keys) if key in keys[:i]), None)
    if twice is not None:  # only the last of the two would be compared
        raise Mismatch(f"report/rows.json: row {' '.join(map(str, twice))}: given twice")
    recorded = dict(zip(keys, rows))
    again = {tuple(r.get(k) for k in ROW_KEY): r for r in rows_of(bundle.members)}
    for key in sorted(set(recorded) | set(again), key=str):
        where = f"report/rows.json: row {' '.join(map(str, key))}"
        if key not in again or key not in recorded:
            raise Mismatch(f"{where}: {'not in the recomputed table' if key not in again else 'missing'}")
        field = first_difference(recorded[key], again[key])
        if field is not None:
            raise Mismatch(f"{where}: {field} is {_at(recorded[key], field)!r}, recomputed "
                           f"{_at(again[key], field)!r}")


def first_difference(a: object, b: object, path: str = "") -> str | None:
    """The dotted path of the first value that differs (numbers within 1e-9), else None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next((f for i, (x, y) in enumerate(zip(a, b)) if (f := first_difference(x, y, f"{path}[{i}]"))), None)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return None if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) else path or "value"
    return None if a == b else path or "value"


def _at(row: dict, path: str) -> Any:
    value: Any = row
    for part in path.replace("[", ".").replace("]", "").split("."):
        value = value[int(part)] if isinstance(value, list) else (value or {}).get(part)
    return value


_STEPS: dict[str, Callable[[Bundle, Path, int | None], None]] = {
    "index": check_index, "method": check_method, "records": check_records, "data": check_data,
    "answers": check_answers, "verdicts": check_verdicts, "rows": check_rows}


@functools.cache
def rules() -> str:
    """The rules a verification was made under: the digest of sebench's version and of every source file of
    the installed sebench package (a verification made by other code is made again, not trusted)."""
    import sebench

    package = Path(sebench.__file__).parent
    digest = hashlib.sha256(sebench.__version__.encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def write_record(verification: Verification, store: Path) -> Path:
    """The verification in the verifier's own store (STORE/<bundle sha256>.json; never beside the bundle, where
    anyone can put a file), which `sebench leaderboard` reads, with the rules it was made under. A re-run or
    held-out result of an earlier verification of the same bytes is kept where this one has none. Returns the
    record's path."""
    from sebench.files import write_json

    path = record_path(store, verification.bundle_sha256)
    record = {**verification.to_json(), "rules": rules()}
    old = read_record(store, verification.bundle_sha256) or {}
    if verification.verified and old.get("verified"):
        record.update({k: old.get(k) for k in ("rerun", "held_out") if record[k] is None})
    record["level"] = level_of(record)
    write_json(path, record)
    return path


def default_store() -> Path:
    """Where verifications are kept unless told: sebench's cache folder (files.cache_root)."""
    from sebench.files import cache_root

    return cache_root() / "verifications"


def record_path(store: Path, digest: str) -> Path:
    return Path(store) / f"{digest}.json"


def read_record(store: Path, digest: str) -> dict | None:
    """The stored verification of the bundle whose sha256 is `digest`, if any (and if it is one)."""
    path = record_path(store, digest)
    try:
        record = parse_json(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else None
    except (BundleError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) and record.get("bundle_sha256") == digest else None


def check_seeds(seeds: list[int], bundle: Bundle) -> None:
    """Held-out seeds must be seeds the bundle does not hold."""
    seed = bundle.manifest.get("seed")
    if seed in seeds:
        raise SebenchError(f"--seeds-file: seed {seed} is the bundle's own seed; held-out seeds are others")

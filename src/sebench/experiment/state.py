"""Completion records of a study's stages, and the run manifest derived from them.

Every stage of `sebench run` is run through `StageBook.run`: before it starts, a record
`RUN_DIR/stages/<name>.json` with status "running" and the stage's config is written; when it ends, the
record becomes "done" with the hashes of its outputs (each file's, sealed: sebench.seal), the seconds it took, its peak memory and the seconds
it ran at each torch CPU thread count (sebench.threads; none for stages without torch). On a re-run:

- done with the same config and its outputs present: skipped;
- "running" (the process died): resumed when the stage can resume (rollouts, sample by sample),
  otherwise its partial outputs are removed and it starts again;
- a different config (finished or not): refused with the settings that changed, unless `--overwrite`,
  which removes the stage's outputs and runs it again. A stage may bring its own rule for configs that
  differ in form only (training: `train.config.comparable_settings`, so that a run started by an earlier
  sebench goes on under a later one); those count as the same. A stage's config holds the hashes of the
  outputs it reads, so the stages downstream of a redone one see a changed config too.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from sebench.cliflags import outcome_fields
from sebench.errors import SebenchError
from sebench.files import file_sha256 as file_hash  # noqa: F401 (re-exported; experiment/run.py imports it)
from sebench.files import write_json
from sebench.process_memory import peak_rss_mb, reset_peak_rss
from sebench.seal import Seal, files_of, tree_of
from sebench.threads import reset_thread_usage, thread_usage

log = logging.getLogger(__name__)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as exc:
        raise SebenchError(f"{path}: not valid JSON ({exc.msg}); delete it to redo its stage") from None


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _normal(config: dict) -> dict:
    return json.loads(json.dumps(config, default=str))


def config_record(config: object, drop: tuple[str, ...] = (), **values: object) -> dict:
    """A stage's own config (a dataclass) as its completion record holds it: every field that changes the
    result (`cliflags.outcome_fields`: not those marked speed), paths as text, except those in `drop` (where
    the output goes), with `values` in place of fields whose content matters rather than their path (a file's
    hash for its name)."""
    record = {k: v for k, v in outcome_fields(config).items() if k not in drop}
    record.update(values)
    return _normal(record)


def _changes(old: dict, new: dict) -> str:
    keys = sorted(set(old) | set(new), key=str)
    diffs = [f"{k}: {_short(old.get(k))} -> {_short(new.get(k))}" for k in keys if old.get(k) != new.get(k)]
    return "; ".join(diffs[:6]) + (f"; and {len(diffs) - 6} more" if len(diffs) > 6 else "")


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fewer_threads(usage: dict | None) -> str:
    """", N s of them on fewer threads than the C cores" when the stage had to, else ""."""
    fewer = sum(s for n, s in (usage or {}).get("seconds", {}).items() if int(n) < usage["cores"])
    return f", {fewer:.0f} s of them on fewer CPU threads than the {usage['cores']} cores" if fewer else ""


RUN_LEFTOVERS = ("plan.json",)  # what `sebench run --plan` writes in a folder before it is a run


def check_run_folder(root: Path) -> None:
    """Refuses a folder that holds something other than a run (an instance, a project's files): a study writes
    its manifest.json, data/, evals/ and train/ there, over what is there. A new or empty folder, a run's
    folder (it has stages/ or a run's manifest), or one holding only a plan passes."""
    if not root.exists() or (root / "stages").is_dir():
        return
    if not root.is_dir():
        raise SebenchError(f"{root}: a file, not a run directory; give --out a new or empty folder")
    manifest = read_json(root / "manifest.json") if (root / "manifest.json").is_file() else None
    run_manifest = isinstance(manifest, dict) and isinstance(manifest.get("config"), dict)
    others = sorted(p.name for p in root.iterdir()
                    if p.name not in RUN_LEFTOVERS and not (p.name == "manifest.json" and run_manifest))
    if others:
        shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
        raise SebenchError(f"{root}: not a run directory (it holds {shown}); give --out a new or empty folder, or "
                           "the folder of a run to resume it")


class StageBook:
    """The stage records of one run directory."""

    def __init__(self, root: Path, overwrite: bool = False, after: Callable[[], None] | None = None,
                 starting: Callable[[], None] | None = None):
        self.root = Path(root)
        self.dir = self.root / "stages"
        self.overwrite = overwrite
        self.after = after  # called after each stage that ran (e.g. to refresh the run manifest)
        self.starting = starting  # called before the first stage that runs writes anything (the manifest)
        self.seal = Seal(self.root)  # the files of the finished stages, as recorded (sebench.seal)
        for record in self.records() if self.dir.is_dir() else []:
            self.seal.add(record)

    def check(self) -> None:
        """Stops the study with one line if a file a finished stage wrote (or trusted) changed since."""
        self.seal.check(self.records())

    def path(self, name: str) -> Path:
        return self.dir / (name.replace("/", "__").replace(":", "--") + ".json")

    def get(self, name: str) -> dict | None:
        return read_json(self.path(name))

    def records(self) -> list[dict]:
        return sorted((read_json(p) for p in self.dir.glob("*.json")), key=lambda r: r.get("order", 0))

    def settled(self, name: str, config: dict, derived: bool = False,
                comparable: Callable[[dict], dict | None] | None = None) -> dict | None:
        """The stage's record (with `config` in place of a config of the same settings in another form), or
        None; refuses a record of other settings, unless --overwrite or the stage is `derived`. Writes
        nothing: a study checks its stages with it before any of them runs."""
        config = _normal(config)
        old = self.get(name)
        shown = (old["config"], config) if old is not None else ({}, {})  # the settings named when refused
        if old is not None and old["config"] != config and comparable is not None:
            forms = comparable(old["config"]), comparable(config)
            if forms[0] is not None and forms[0] == forms[1]:
                log.info("stage %s: recorded by an earlier sebench with the same settings in another form", name)
                old = {**old, "config": config}
            elif None not in forms:
                shown = forms
        if old is not None and old["config"] != config and not (self.overwrite or derived):
            raise SebenchError(
                f"stage '{name}' of {self.root} was {'run' if old['status'] == 'done' else 'started'} with "
                f"other settings ({_changes(*shown)}); pass --overwrite to redo it and the "
                "stages that depend on it, or choose another --out"
            )
        return old

    def done_with(self, name: str, config: dict) -> bool:
        """Whether stage `name` is done with `config` (refused, as `settled`, when its record has other settings)."""
        old = self.settled(name, config)
        return old is not None and old["status"] == "done" and old["config"] == _normal(config)

    def run(self, name: str, config: dict, outputs: list[Path], fn: Callable[[], None],
            resumable: bool = False, derived: bool = False,
            comparable: Callable[[dict], dict | None] | None = None, trusted: tuple[Path, ...] = (),
            before_resume: Callable[[], None] | None = None) -> dict:
        """Runs `fn` unless the stage is already done with this config; returns the stage's record.
        `trusted`: files or folders outside its outputs that later stages trust as they are (an instance
        given with --instance); their hashes are sealed with the outputs'.
        A `derived` stage (the report: made from other stages' outputs alone, in seconds) is redone when its
        config changes, without --overwrite: nothing is lost by redoing it. With `comparable`, two configs
        whose comparable forms are equal (and not None) are the same config. `before_resume`: called before a
        resumable stage goes on from what an earlier attempt left (e.g. to set aside what it cannot prove)."""
        config = _normal(config)
        old = self.settled(name, config, derived, comparable)
        if self.starting is not None and not (old is not None and old["config"] == config and old["status"] == "done"
                                              and all(out.exists() for out in outputs)):
            self.starting()  # this stage runs: the first write of the command
            self.starting = None
        if old is not None and old["config"] != config:
            log.info("stage %s: settings changed, redoing it%s", name, "" if derived else " (--overwrite)")
            old = None
            for out in outputs:
                remove(out)
        if old is not None and old["status"] == "done" and all(out.exists() for out in outputs):
            log.info("stage %s: done already (%.0f s), skipped", name, old.get("seconds", 0.0))
            return old
        if old is None or not resumable:
            for out in outputs:
                remove(out)
        else:
            log.info("stage %s: resuming from what an earlier attempt left", name)
            if before_resume is not None:
                before_resume()
        self.seal.forget(name)
        record = {
            "stage": name,
            "order": old["order"] if old else len(list(self.dir.glob("*.json"))),
            "status": "running",
            "config": config,
            "started": now(),
            "attempts": (old or {}).get("attempts", 0) + 1,
            "seconds": 0.0,
        }
        write_json(self.path(name), record)
        log.info("stage %s: running", name)
        t0 = time.monotonic()
        reset_peak_rss()
        reset_thread_usage()
        fn()
        missing = [str(out) for out in outputs if not out.exists()]
        if missing:
            raise SebenchError(f"stage '{name}' finished without writing {', '.join(missing)}")
        record.update(
            status="done",
            finished=now(),
            seconds=round(time.monotonic() - t0, 2),  # of the attempt that finished
            peak_rss_mb=peak_rss_mb(),  # this process's peak resident memory during the stage (Linux)
            threads=thread_usage(),  # {"cores", "policy", "seconds": {count: s}}; None: no torch threads set
        )
        files = files_of(self.root, [*outputs, *trusted])
        record.update(outputs={out.relative_to(self.root).as_posix(): tree_of(self.root, out, files) for out in outputs},
                      files=files, derived=derived)
        write_json(self.path(name), record)
        self.seal.add(record)
        log.info("stage %s: done in %.0f s%s", name, time.monotonic() - t0, _fewer_threads(record["threads"]))
        if self.after:
            self.after()
        return record

"""Running one method for a study: its training view, its fenced process, and its record (method.json).

    FOLDER/view/          the training view (sebench.methods.view)
    FOLDER/work/          the method's work folder (its current folder): job.json, result.json, cost.json
    FOLDER/agent/         an agent's state, when the method returns an agent
    FOLDER/checkpoint/    where the built-in regimes write their checkpoint
    FOLDER/method.json    spec, origin, arguments, source hash, versions, view hash, docs-only functions,
                          the isolation layer and Landlock ABI, the paths it could read and write, the network
                          setting, result, cost, refused accesses

The study copies a user's method's checkpoint and agent state into RUN_DIR/outputs/LABEL/ (FOLDER is
RUN_DIR/train/LABEL) when its process has ended (sebench.methods.outputs); the evaluation reads the copy.
The process writes FOLDER and a private temporary folder (its home, TMPDIR and caches), removed when it ends.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import entries_beneath, read_json_object, remove_tree, tree_sha256, write_json
from sebench.methods import fence_paths, isolation, process
from sebench.methods.checkpoint_files import check_checkpoint
from sebench.methods.child import COST_FILE, RESULT_FILE, USAGE_FILE
from sebench.methods.loader import MethodRef
from sebench.methods.outputs import OUTPUT_KEYS, OutputRules, copy_out, served_endpoint, within
from sebench.methods.view import write_view
from sebench.parent_death import bound_to_this_process
from sebench.process_memory import note_child_peak
from sebench.provenance import versions
from sebench.threads import add_thread_usage

log = logging.getLogger(__name__)

METHOD_FILE = "method.json"
# settings of methods.LABEL that are the study's (fence, process, outputs), not the method's arguments
FENCE_KEYS = ("read", "network", "env", "timeout", "prompt_timeout", *OUTPUT_KEYS)
TRAIN_TIMEOUT = 24 * 3600.0  # seconds a method (not a built-in) may train, unless methods.LABEL.timeout says
RECORD_LIMIT = 16 << 20  # bytes of a record file the method writes (result.json, cost.json, usage.json)
KEEPER_GRACE = 120.0  # seconds past a method's time limit before the study kills a keeper that has not ended it
PROMPT_TIMEOUT = 600.0  # seconds an agent may take for each prompt at test time (methods.LABEL.prompt_timeout)


@dataclass(frozen=True)
class MethodJob:
    """One method to run: what it is, the study's data, and what its process may see."""

    ref: MethodRef
    args: dict
    data: Path  # the study's instance (or studied subset)
    folder: Path  # FOLDER above
    start_model: str
    seed: int
    hidden: tuple[Path, ...]  # hidden even beneath a path it may read: the run, test splits, mappings, evaluations
    readable: tuple[Path, ...] = ()  # what the study gives it to read (the checkpoint it starts from)
    asked: tuple[Path, ...] = ()  # what the user named for it to read (methods.LABEL.read)
    network: bool = False  # the user let it use the network (methods.LABEL.network)
    loopback: bool = False  # a training launched across processes: they talk over TCP on the loopback
    answers: Path | None = None  # the start model's judged open-book training rollouts
    with_mapping: bool = False  # a built-in regime the paper defines with the mapping (self-play's leak filter)
    reward_rule: str = "binary"
    judge_workers: int | None = None
    sandbox_urls: list[str] = field(default_factory=list)
    backend_options: dict = field(default_factory=dict)
    docs_only: list[str] = field(default_factory=list)  # functions whose tasks the view leaves out (the docs-only setting)
    output_rules: OutputRules = field(default_factory=OutputRules)  # its declared endpoint, its outputs' size
    env: tuple[str, ...] = ()  # the study's environment variables the user gave it (methods.LABEL.env)
    timeout: float | None = None  # seconds its training may run (None: TRAIN_TIMEOUT, none for a built-in)
    prompt_timeout: float = PROMPT_TIMEOUT  # seconds an agent may take for each prompt at test time

    @property
    def train_timeout(self) -> float | None:
        return self.timeout if self.timeout is not None else None if self.ref.origin == "built-in" else TRAIN_TIMEOUT

    @property
    def workdir(self) -> Path:
        return self.folder / "work"

    @property
    def outputs(self) -> Path | None:
        """RUN_DIR/outputs/LABEL, where the study copies a user's method's checkpoint or agent state; None for a
        built-in (sebench's own code, evaluated where it wrote)."""
        return None if self.ref.origin == "built-in" else self.folder.parent.parent / "outputs" / self.folder.name

    @property
    def agent_state(self) -> Path:
        """The agent's state an agent's process reads at test time: the study's copy (a built-in's own)."""
        return self.outputs / "agent" if self.outputs else self.folder / "agent"

    def fence(self, tmp: Path, agent: bool = False) -> isolation.Fence:
        """Training: it reads the system, Python, its source, its start model, its view and what the user
        named, and writes its folder and `tmp`. An agent at test time reads its state too and writes `tmp`
        alone."""
        read = [*fence_paths.system(), *fence_paths.python(self.hidden), *fence_paths.hub_cache(),
                *fence_paths.method_source(self.ref.source, self.hidden), *fence_paths.model_paths(self.start_model),
                *self.readable, *self.asked,
                self.folder / "view"]
        write = [tmp]
        if agent:
            read.append(self.agent_state)
        else:
            write += [self.folder, *self._builtin_writes()]
        hidden = (*self.hidden, *fence_paths.secrets_beneath(self.asked),
                  *fence_paths.studies_within(self.ref.source, self.hidden),
                  *fence_paths.studies_on_import_path(self.hidden))
        return isolation.Fence(tuple(read), tuple(write), hidden, self.network, self.service_ports(), self.loopback)

    def _builtin_writes(self) -> list[Path]:
        """Self-play's first-round cache, shared by a run's self-play regimes (sebench's own code only)."""
        return [fence_paths.selfplay_cache()] if self.ref.origin == "built-in" else []

    def service_ports(self) -> tuple[int, ...]:
        """The TCP ports of the study's own services the method's process uses: remote judges, a served
        start model."""
        urls = [*self.sandbox_urls, *([self.start_model.rsplit("@", 1)[1]] if self.start_model.startswith("openai:")
                                      and "@" in self.start_model else [])]
        return tuple(sorted({p for p in map(fence_paths.port_of, urls) if p is not None}))

    def child_job(self, action: str, layer: str, fence: isolation.Fence, report_fd: int, **extra: object) -> dict:
        return {"action": action, "label": self.ref.label, "spec": self.ref.spec, "origin": self.ref.origin,
                "target": self.ref.target, "args": self.args, "view": str(self.folder / "view"),
                "workdir": str(self.workdir), "start_model": self.start_model,
                "state": str(self.agent_state if action == "agent" else self.folder / "agent"),
                "seed": self.seed, "reward_rule": self.reward_rule, "judge_workers": self.judge_workers,
                "sandbox_urls": self.sandbox_urls, "backend_options": self.backend_options,
                "fence": fence.to_json(), "layer": layer, "report_fd": report_fd, **extra}


def start_child(job: MethodJob, action: str, tmp: Path, job_file: Path,
                **extra: object) -> tuple[subprocess.Popen, isolation.Reports, isolation.Fence]:
    """Starts the method's fenced process (sebench.methods.child JOB: process.child_argv) and the reader of its
    reports; the job file is written first. Returns them with the fence it was given."""
    layer = isolation.isolation_layer()
    fence = job.fence(tmp, agent=action == "agent")
    reports = isolation.Reports()
    write_json(job_file, job.child_job(action, layer, fence, reports.write_fd, **extra))
    cwd = tmp if action == "agent" else job.workdir
    argv = isolation.command(fence, process.child_argv(job_file), layer, cwd)
    argv = process.keeper_argv(argv, reports.write_fd, job.train_timeout if action == "train" else None, layer)
    agent = action == "agent"
    child = subprocess.Popen(argv, env=child_env(tmp, job), cwd=cwd, pass_fds=(reports.write_fd,),
                             stdin=subprocess.PIPE if agent else subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             preexec_fn=bound_to_this_process())  # it dies with the study
    reports.started()
    assert child.stdout is not None and child.stderr is not None
    reports.relays += [process.Relay(child.stderr), *([] if agent else [process.Relay(child.stdout)])]
    return child, reports, fence


def run_method(job: MethodJob) -> dict:
    """Runs the method in its fenced process and returns its record (also written to FOLDER/method.json);
    a method that fails, returns nothing usable, or changed its view raises SebenchError with one line,
    after the record."""
    for left in (job.workdir, job.folder / "view"):  # a link a method left on an earlier run is not followed
        if left.is_symlink() or (left.exists() and not left.is_dir()):
            left.unlink()
    job.workdir.mkdir(parents=True, exist_ok=True)
    for name in (RESULT_FILE, COST_FILE, USAGE_FILE):
        (job.workdir / name).unlink(missing_ok=True)
    view_hash = write_view(job.data, job.folder / "view", job.seed, answers=job.answers, with_mapping=job.with_mapping,
                           docs_only=job.docs_only)
    tmp = Path(tempfile.mkdtemp(prefix="sebench-method-"))
    started = time.time()
    try:
        child, reports, fence = start_child(job, "train", tmp, job.workdir / "job.json")
        code = _wait_keeper(child, job.train_timeout)
    finally:
        remove_tree(tmp, ignore_errors=True)
    record = _record(job, view_hash, round(time.time() - started, 1), reports.collected(), fence, tmp)
    threads, peak = _usage(job.workdir / USAGE_FILE)
    add_thread_usage(threads)  # the stage's record counts the child's threads and memory
    note_child_peak(peak)
    write_json(job.folder / METHOD_FILE, record)
    if "error" not in record and not _plain_view(job.folder / "view", view_hash):
        record["error"] = f"it changed its training view ({job.folder / 'view'})"
        write_json(job.folder / METHOD_FILE, record)
    if code < 0 and "error" not in record:  # the keeper itself was killed (the study did not ask it to end)
        record["error"] = (f"its process keeper was killed (signal {-code}): processes it started may be left; "
                           "look for them before the next run")
        write_json(job.folder / METHOD_FILE, record)
    if "error" not in record and code == 0 and record["result"]:
        _take(job, record)
    if code != 0 or "error" in record:
        why = record.get("error") or f"its process exited with code {code}"
        raise SebenchError(why if job.ref.origin == "built-in" else f"method {job.ref.label} ({job.ref.spec}) failed: {why}")
    return record


def _wait_keeper(keeper: subprocess.Popen, limit: float | None) -> int:
    """The keeper's exit code. A keeper the method stopped (SIGSTOP: where a method can reach its keeper, the
    audit hook with a subreaper) is continued each second; one still there KEEPER_GRACE seconds past the
    method's time limit is killed (its record then says processes may be left)."""
    deadline = None if limit is None else time.monotonic() + limit + KEEPER_GRACE
    while True:
        try:
            return keeper.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            keeper.send_signal(signal.SIGCONT)
            if deadline is not None and time.monotonic() > deadline:
                keeper.kill()
                return keeper.wait()


def _printable(text: str) -> str:
    """`text` on one line: a newline or another control character a method put in a name or a message is
    shown escaped (a failure is one line, and a method writes no line of the study's output)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _record(job: MethodJob, view_hash: str, seconds: float, reports: list[dict], fence: isolation.Fence,
            tmp: Path) -> dict:
    work = job.workdir
    if work.is_symlink():
        raise SebenchError(f"method {job.ref.label}: its work folder {work} was replaced by a symbolic link")
    result = _result(work / RESULT_FILE)
    cost = _read(work / COST_FILE) or {}
    bad = next((k for k, v in cost.items() if isinstance(v, bool) or not isinstance(v, (int, float))
                or not math.isfinite(v) or v < 0), None)
    if bad is not None:  # a count the method reports: it may understate one, never make another row's cost its own
        raise SebenchError(f"{work / COST_FILE}: {bad!r} is not a number of at least 0")
    refused = [r for r in reports if "error" not in r and "tree" not in r]
    tree = next((r["tree"] for r in reports if "tree" in r), None)
    layer = isolation.isolation_layer()
    record = {
        "label": job.ref.label, "spec": job.ref.spec, "origin": job.ref.origin, "args": job.args,
        "source_sha256": job.ref.source_sha256(), "versions": versions(), "view_sha256": view_hash,
        "isolation": layer, "landlock_abi": isolation.landlock_abi(layer), "process_tree": tree,
        "env": list(job.env), "timeout": job.train_timeout,
        "allowed": {"read": [str(p) for p in fence.read], "write": [str(p) for p in fence.write if p != tmp],
                    "hidden": [str(p) for p in fence.hidden]},
        "asked": [str(p) for p in job.asked], "network": job.network, "service_ports": list(fence.ports),
        "loopback": job.loopback,
        "reads_mapping": job.with_mapping, "docs_only": job.docs_only,
        "returns": result.get("kind") if result else None, "result": result,
        "eligible": result is not None and not result.get("docs_at_test_time") and result.get("eligible", True),
        "verified": not result or result.get("kind") != "endpoint",
        "cost": {"wall_seconds": seconds, "judge_calls": cost.get("judge_calls", 0),
                 "tokens_sampled": cost.get("tokens_sampled", 0), "tokens_trained": cost.get("tokens_trained", 0)},
        "refused": refused,
        "refused_reads": [r for r in refused if r.get("access") == "read"],
    }
    errors = [_printable(str(r["error"])) for r in reports if "error" in r]
    if errors:
        record["error"] = errors[0]
    return record


def _take(job: MethodJob, record: dict) -> None:
    """The record's result as the study evaluates it (sebench.methods.outputs: copies, a declared endpoint),
    or its error; the record is written again."""
    try:
        record["result"] = take_outputs(job, record["result"])
    except SebenchError as exc:
        record["error"] = _printable(str(exc))
    except OSError as exc:  # the disk filled, say
        record["error"] = _printable(f"{exc.filename}: {exc.strerror}")
    if record["returns"] == "endpoint":
        record["endpoint"] = job.output_rules.endpoint
    write_json(job.folder / METHOD_FILE, record)


def take_outputs(job: MethodJob, result: dict) -> dict:
    """The method's result as the study evaluates it: a returned Endpoint at its declared URL, a user's
    checkpoint and agent state copied into `job.outputs` (made afresh here), `path` and `state` naming the
    copies; refuses with one line."""
    kind = result.get("kind")
    if job.outputs is not None:
        for left in (job.outputs.parent, job.outputs):  # a link left there (around the audit hook) is not followed
            if left.is_symlink():
                left.unlink()
        if job.outputs.exists():
            remove_tree(job.outputs)
        job.outputs.mkdir(parents=True)
    if kind == "endpoint":
        return {**result, "url": served_endpoint(job.ref.label, job.output_rules, result)}
    start = kind == "checkpoint" and result["path"] in (job.start_model, str(Path(job.start_model)))
    if job.outputs is None:  # sebench's own code: evaluated where it wrote
        own = kind == "checkpoint" and not start
        return {**result, "path": _checked(job, _given(job, Path(result["path"]), own=True))} if own else result
    if kind == "agent":
        copy_out(job.folder, job.folder / "agent", job.outputs / "agent", job.output_rules)
        return {**result, "state": str(job.outputs / "agent")}
    if kind != "checkpoint" or start:
        return result
    folder = Path(os.path.abspath(job.folder))
    path = Path(os.path.normpath(folder / job.workdir.name / result["path"]))  # relative: to its work folder
    if path != folder and folder not in path.parents:
        return {**result, "path": _checked(job, _given(job, path))}
    copy_out(folder, path, job.outputs / "checkpoint", job.output_rules)
    try:
        _checked(job, str(job.outputs / "checkpoint"))
    except SebenchError:
        remove_tree(job.outputs / "checkpoint")  # nothing refused is left to evaluate
        raise
    return {**result, "path": str(job.outputs / "checkpoint"), "returned": result["path"]}


def _checked(job: MethodJob, path: str) -> str:
    """`path`, a returned checkpoint other than the start model, once its tokenizer and chat template are found
    to carry nothing that changes how it is evaluated (sebench.methods.checkpoint_files); else one line."""
    check_checkpoint(Path(path), job.start_model)
    return path


def _given(job: MethodJob, path: Path, own: bool = False) -> str:
    """The real path of a checkpoint the method was given (the start model, a path it could read, none of
    them hidden); a built-in's (`own`) may lie in its folder too, and keeps its path. Else one line."""
    real = Path(os.path.realpath(path))
    allowed = [Path(job.start_model), *fence_paths.model_paths(job.start_model), *job.readable, *job.asked,
               *([job.folder] if own else [])]
    if within(real, allowed) and (own or not within(real, [*job.hidden, *fence_paths.secrets_beneath(job.asked)])):
        return str(path) if own else str(real)
    raise SebenchError(f"it returned a checkpoint outside its folder ({real})")


def _read(path: Path) -> dict | None:
    """A JSON object the method's process wrote in its folder, read as files.read_json_object does (never
    followed through a symbolic link: the study's process is not fenced, and a link to a test split must not be
    read for it); None when absent."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_json_object(path, RECORD_LIMIT)


_RESULT_FIELDS = {"checkpoint": ("path",), "endpoint": ("url", "model"), "agent": ("target",)}


def _result(path: Path) -> dict | None:
    """result.json (sebench.methods.child.describe) with the fields its kind needs, each a string."""
    result = _read(path)
    if result is None:
        return None
    kind = result.get("kind")
    if kind not in _RESULT_FIELDS:
        raise SebenchError(f"{path}: kind {kind!r} is not one of {', '.join(_RESULT_FIELDS)}")
    bad = next((f for f in _RESULT_FIELDS[kind] if not isinstance(result.get(f), str)), None)
    if bad is not None:
        raise SebenchError(f"{path}: a {kind} needs {bad} as a string")
    flags = {"checkpoint": "docs_at_test_time", "agent": "eligible"}
    if (kind in flags and not isinstance(result.get(flags[kind], False), bool)) or \
            (kind == "checkpoint" and "docs_at_test_time" not in result):
        raise SebenchError(f"{path}: a {kind} needs {flags[kind]} as true or false")
    return result


def _usage(path: Path) -> tuple[dict | None, float]:
    """The child's threads ({"seconds": {threads: seconds}}) and peak memory in MB from usage.json."""
    usage = _read(path) or {}
    threads, peak = usage.get("threads"), usage.get("peak_rss_mb") or 0.0
    seconds = {} if threads is None else threads.get("seconds", {}) if isinstance(threads, dict) else None
    if not isinstance(seconds, dict) or isinstance(peak, bool) or not isinstance(peak, (int, float)) or not all(
            k.isdigit() and not isinstance(v, bool) and isinstance(v, (int, float)) for k, v in seconds.items()):
        raise SebenchError(f"{path}: not the usage sebench's child writes (threads, peak_rss_mb)")
    return threads, float(peak)


def _plain_view(view: Path, expected: str) -> bool:
    """Whether the training view holds regular files and folders only (nothing a hash would follow or wait
    on) with the hash it was written with."""
    if view.is_symlink():
        return False
    for entry in entries_beneath(view):
        mode = os.lstat(entry).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return False
    return tree_sha256(view) == expected


def child_env(tmp: Path, job: MethodJob) -> dict:
    """The method's environment (sebench.methods.process.method_env): home, temporary and cache folders in
    `tmp` (the hub cache stays readable where it is; the built-in self-play regimes share their cache)."""
    cache = fence_paths.selfplay_cache().parent if job.ref.origin == "built-in" else tmp / "sebench"
    hub = fence_paths.hub_cache()
    return process.method_env(tmp, cache, job.network, job.env, hub[0] if hub else None)

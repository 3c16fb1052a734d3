"""`sebench rollout`: ask a model for solutions to a split's tasks, one record per (task, sample).

Resumable and safe: each record is appended as a whole line, flushed and fsynced; on restart a
half-written last line is dropped, (task_id, sample_idx) pairs already present are skipped, and the rest
are asked. `--overwrite` starts afresh instead; a file that is not rollouts, or holds another model's,
mode's or settings' rollouts, is refused rather than mixed or "repaired", and one run at a time writes
a file (see sebench.output_files). Truncated, empty, thinking and failed answers are all recorded, with their
finish reason.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from sebench.answers import extract_code  # the judge's too, so that records and verdicts agree
from sebench.cliflags import check_ranges, option
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.models import EMBEDDED_DEFAULT
from sebench.output_files import (
    OutputLock,
    check_file_target,
    check_own_output,
    prepare_resume,
    refuse_same_file,
    settings_differences,
)
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS
from sebench.protocols import get as get_protocol
from sebench.records import MODES, SPLITS, RecordAppender, Rollout, Task, from_dict, iter_json_lines
from sebench.rollout.backends import Backend, Completion, GenerationRequest, get_backend, resolve_spec
from sebench.rollout.original_prompts import OriginalPromptBuilder, OriginalTemplates
from sebench.rollout.prompts import PromptBuilder

log = logging.getLogger(__name__)



@dataclass
class RolloutConfig:
    """The options of `sebench rollout`; each field is one flag (underscores become dashes)."""

    data: Path = option(None, "the instance directory (written by `sebench build`)", required=True)
    out: Path = option(None, "the rollouts file to write (JSONL); an existing one is resumed", required=True)
    split: str = option("single_test", "which tasks", choices=SPLITS)
    mode: str = option("closed", "what help the prompt gives", choices=MODES)
    model: str = option(EMBEDDED_DEFAULT, "openai:<model>@<url>[,<url>...] | hf:<path or hub id> | smollm2-135m | fake:...")
    protocol: str = option(DEFAULT_PROTOCOL, "sebench: sebench's prompts; original: the original benchmark's prompts "
                         "(read from --original-repo) and its decoding defaults (docs/protocols.md)",
                         choices=tuple(PROTOCOLS))
    original_repo: Path | None = option(None, "your copy of the original SE-Bench repository (--protocol original "
                                      "reads its prompt templates and api_doc.jsonl there)")
    n: int | None = option(None, "samples per task (default: 1; --protocol original: 5)", minimum=1)
    temperature: float | None = option(None, "sampling temperature, 0 = greedy (default: 0; --protocol original: "
                                     "0.6)", minimum=0.0)
    top_p: float = option(1.0, "nucleus sampling threshold", above=0.0, maximum=1.0)
    max_tokens: int | None = option(None, "the most tokens per answer, per turn in retrieval mode (default: 512; "
                                  "8192 for a model that thinks, and under --protocol original)", minimum=1)
    thinking: str | None = option(None, "on | off: the chat template's enable_thinking, where it has one (default: "
                                "the template's own; --protocol original: on); a served model sebench does not "
                                "know needs it, or --max-tokens", choices=("on", "off"))
    concurrency: int = option(16, "requests in flight at once (openai backend)", minimum=1, speed=True)
    limit: int | None = option(None, "only the first N tasks, for a quick look", minimum=1)
    seed: int | None = option(0, "sampling seed (per task: seed + task index)")
    overwrite: bool = option(False, "start the file afresh instead of resuming it", speed=True)
    base_url: str | None = option(None, "server URL(s), comma-separated, for an openai:<model> spec given without "
                                "@URL (default: $OPENAI_BASE_URL)", speed=True)
    api_key_env: str | None = option(None, "environment variable holding the API key (default OPENAI_API_KEY)", speed=True)
    device: str | None = option(None, "cpu | cuda | cuda:1 ... for hf models (default: cuda if available)", speed=True)
    batch_size: int | None = option(None, "rows per generate call for hf models (default 16 on CPU, 64 on GPU)",
                                  minimum=1, speed=True)
    threads: int | None = option(None, "CPU threads for hf models (default: $SEBENCH_THREADS, else every core, fewer "
                               "while other processes keep some busy: re-decided every few seconds)", minimum=1, speed=True)
    context_tokens: int | None = option(None, "the model's context length, when the backend cannot tell (full-doc)",
                                      minimum=1)
    max_searches: int = option(3, "retrieval mode: searches allowed before the answer", minimum=0)
    search_k: int = option(3, "retrieval mode: doc entries returned per search", minimum=1)
    memory: Path | None = option(None, "memory mode: rollouts.jsonl of judged training trajectories (verdicts.jsonl "
                               "beside it) whose correct ones are the experience memory")
    memory_k: int = option(3, "memory mode: remembered trajectories shown per task", minimum=1)
    progress: bool = option(True, "show a progress bar", cli=False, speed=True)


SEBENCH_DECODING = {"n": 1, "temperature": 0.0, "max_tokens": 512}


def with_decoding_defaults(cfg: RolloutConfig) -> RolloutConfig:
    """`cfg` with the decoding settings it leaves open taken from its protocol (sebench.protocols)."""
    protocol = get_protocol(cfg.protocol)
    defaults = {"n": protocol.samples, "temperature": protocol.temperature, "max_tokens": protocol.max_tokens}
    values = {name: getattr(cfg, name) if getattr(cfg, name) is not None else
              (defaults[name] if defaults[name] is not None else SEBENCH_DECODING[name]) for name in defaults}
    if cfg.thinking is None and protocol.thinking is not None:
        values["thinking"] = "on" if protocol.thinking else "off"
    return replace(cfg, **values)


def write_rollouts(cfg: RolloutConfig, backend: Backend | None = None) -> Path:
    """Writes the missing rollouts of `cfg` to cfg.out and returns it; `backend` reuses a loaded model."""
    cfg = with_decoding_defaults(cfg)
    check_ranges(cfg)
    instance = Instance.open(cfg.data)
    if backend is None:
        check_model_spec(cfg)  # an unknown spec, or an openai one with no URL, fails before any file is touched
    if cfg.mode not in MODES:
        raise SebenchError(f"unknown mode '{cfg.mode}'; choose one of {', '.join(MODES)}")
    if cfg.mode == "memory" and cfg.memory is None:
        raise SebenchError("--mode memory needs --memory ROLLOUTS (judged rollouts on the train split)")
    tasks = select_tasks(instance, cfg.split, cfg.limit)
    out = Path(cfg.out)
    check_file_target(out)
    refuse_same_file(out, [("--data", p) for p in instance.files()])
    with OutputLock(out):
        if cfg.overwrite and out.exists():
            check_own_output(out, _is_rollout, "rollouts", "overwrite")
            out.unlink()
        _write_missing(cfg, backend, instance, tasks, out)
    return out


def answer_tasks(cfg: RolloutConfig, instance: Instance, tasks: list[Task], backend: Backend) -> list[Rollout]:
    """cfg.n answers to each of `tasks` (tasks that need not be in a split of the instance, e.g. tasks a model
    wrote) with cfg's prompts and decoding, in task and sample order; writes nothing (cfg.out is unused)."""
    cfg = with_decoding_defaults(cfg)
    check_ranges(cfg)
    todo = [(i, t, list(range(cfg.n))) for i, t in enumerate(tasks)]
    records = list(_generate(cfg, backend, prompt_builder(cfg, instance, backend), instance, todo))
    order = {t.task_id: i for i, t in enumerate(tasks)}
    return sorted(records, key=lambda r: (order[r.task_id], r.sample_idx))


def _write_missing(cfg: RolloutConfig, backend: Backend | None, instance: Instance, tasks: list[Task], out: Path) -> None:
    done = existing_samples(out, cfg)
    todo = [(i, t, [s for s in range(cfg.n) if (t.task_id, s) not in done]) for i, t in enumerate(tasks)]
    todo = [item for item in todo if item[2]]
    total = len(tasks) * cfg.n
    if not todo:
        log.info("%s: all %d samples already present", out, total)
        return
    if cfg.n > 1 and cfg.temperature <= 0:
        log.warning("n=%d with temperature 0 gives identical samples; pass --temperature for pass@k", cfg.n)
    own_backend = backend is None
    backend = backend or get_backend(cfg.model, **backend_options(cfg))
    try:
        builder = prompt_builder(cfg, instance, backend)
        if cfg.mode == "full-doc" and getattr(builder, "context_tokens", 0) is None:
            log.warning("the model's context length is unknown, so the full docs are not cut; pass --context-tokens")
        with RecordAppender(out) as appender, _progress(cfg, total, total - sum(len(s) for _, _, s in todo)) as bar:
            finishes: Counter = Counter()
            for record in _generate(cfg, backend, builder, instance, todo):
                appender.append(record)
                finishes[record.finish_reason] += 1
                bar.update(1)
        log.info("%s: wrote %d rollouts (%s)", out, sum(finishes.values()), _counts(finishes))
    finally:
        if own_backend:
            backend.close()


def prompt_builder(cfg: RolloutConfig, instance: Instance, backend: Backend):
    """The prompts of cfg's protocol: sebench's (PromptBuilder) or the original's (OriginalPromptBuilder)."""
    if get_protocol(cfg.protocol).prompts == "original":
        return OriginalPromptBuilder(instance, cfg.mode, OriginalTemplates.read(cfg.original_repo))
    return PromptBuilder(instance, cfg.mode, context_tokens=cfg.context_tokens or backend.context_tokens,
                         count_tokens=backend.count_tokens, answer_tokens=cfg.max_tokens,
                         max_searches=cfg.max_searches)


def check_model_spec(cfg: RolloutConfig) -> None:
    """Refuses an unknown model spec, and an openai one that names no server (see --base-url)."""
    prefix, argument = resolve_spec(cfg.model)
    if prefix == "openai":
        from sebench.rollout.backends.openai import parse_argument

        parse_argument(argument, cfg.base_url)


def backend_options(cfg: RolloutConfig) -> dict:
    """The backend keyword arguments that `cfg` sets (concurrency, device, batch size, server, threads, key,
    context), without the unset ones."""
    options = {"concurrency": cfg.concurrency, "device": cfg.device, "batch_size": cfg.batch_size,
               "base_url": cfg.base_url, "threads": cfg.threads}
    if cfg.api_key_env:
        options["api_key_env"] = cfg.api_key_env
    if cfg.context_tokens:
        options["context_tokens"] = cfg.context_tokens
    return {k: v for k, v in options.items() if v is not None}


def select_tasks(instance: Instance, split: str, limit: int | None) -> list[Task]:
    tasks = instance.tasks(split)
    valid = [t for t in tasks if t.is_valid]
    if len(valid) < len(tasks):
        log.info("%s: skipping %d tasks marked is_valid=false", split, len(tasks) - len(valid))
    return valid[:limit] if limit is not None else valid


def existing_samples(out: Path, cfg: RolloutConfig) -> set[tuple[str, int]]:
    """(task_id, sample_idx) pairs already in `out`, after dropping a half-written last line; a file that
    is not rollouts, or holds rollouts of another model, mode or settings, is refused."""
    if not out.exists():
        return set()
    prepare_resume(out, _is_rollout, "rollouts", "task_id")
    wanted = generation_settings(cfg)
    done = set()
    for lineno, obj in iter_json_lines(out, named=True):  # the user's own --out, read as named
        record = from_dict(Rollout, obj, f"{out}:{lineno}")
        if record.model != cfg.model or record.mode != cfg.mode:
            raise SebenchError(
                f"{out}:{lineno}: holds rollouts of model '{record.model}' in mode '{record.mode}', not "
                f"'{cfg.model}' in mode '{cfg.mode}'; choose another --out, or pass --overwrite to replace it"
            )
        recorded = record.usage.get("settings")
        changed = settings_differences(recorded, wanted) if isinstance(recorded, dict) else []
        if changed:
            raise SebenchError(
                f"{out}:{lineno}: these rollouts were made with other settings ({'; '.join(changed)}); "
                "rerun with the same settings to resume, pass --overwrite to start the file afresh, or choose "
                "another --out"
            )
        done.add((record.task_id, record.sample_idx))
    if done:
        log.info("%s: resuming; %d samples already present", out, len(done))
    return done


def generation_settings(cfg: RolloutConfig) -> dict:
    """The settings that shape each sample, kept in every record so that a resumed run cannot mix them."""
    settings = {"split": cfg.split, "temperature": cfg.temperature, "top_p": cfg.top_p,
                "max_tokens": cfg.max_tokens, "seed": cfg.seed}
    if cfg.protocol != DEFAULT_PROTOCOL or cfg.thinking is not None:
        settings.update(protocol=cfg.protocol, thinking=cfg.thinking)
    if cfg.mode == "full-doc":
        settings["context_tokens"] = cfg.context_tokens
    if cfg.mode == "retrieval":
        settings.update(max_searches=cfg.max_searches, search_k=cfg.search_k)
    if cfg.mode == "memory":
        settings.update(memory=str(cfg.memory), memory_k=cfg.memory_k)
    return settings


def _is_rollout(obj: object) -> bool:
    return isinstance(obj, dict) and {"task_id", "sample_idx", "mode", "model", "response"} <= obj.keys()


def _generate(cfg: RolloutConfig, backend: Backend, builder: PromptBuilder, instance: Instance, todo: list) -> Iterator[Rollout]:
    if cfg.mode == "retrieval":
        yield from _generate_retrieval(cfg, backend, builder, instance, todo)
        return
    messages = builder.messages
    if cfg.mode == "memory":
        from sebench.rollout.experience import ExperienceMemory

        memory = ExperienceMemory.from_files(instance.tasks("train"), Path(cfg.memory))

        def messages(task: Task) -> list[dict]:
            return memory.messages(builder.messages(task), task, builder.package, cfg.memory_k)

    requests = [replace(_request(cfg, messages(task), len(samples), index), query=task.query)
                for index, task, samples in todo]
    for position, completions in backend.generate_stream(requests):
        _, task, samples = todo[position]
        for sample_idx, completion in zip(samples, completions):
            yield make_record(cfg, task, sample_idx, requests[position].messages, completion)


def _generate_retrieval(cfg, backend, builder, instance, todo) -> Iterator[Rollout]:
    from sebench.rollout.retrieval import BM25Index, Conversation, converse

    index = BM25Index(builder.docs)
    pairs = [(position, sample) for position in range(len(todo)) for sample in todo[position][2]]
    chunk = max(1, backend.batch_size)
    for start in range(0, len(pairs), chunk):
        part = pairs[start : start + chunk]
        conversations = [Conversation(builder.messages(todo[p][1])) for p, _ in part]
        template = _request(cfg, [], 1, todo[part[0][0]][0])
        converse(backend, conversations, template, index, cfg.max_searches, cfg.search_k)
        for (position, sample_idx), conversation in zip(part, conversations):
            answer = conversation.answer
            completion = Completion(
                answer.text, answer.finish_reason, conversation.prompt_tokens, conversation.completion_tokens,
                error=answer.error, seconds=conversation.seconds,
            )
            yield make_record(cfg, todo[position][1], sample_idx, conversation.messages, completion,
                              conversation.searches)


def _request(cfg: RolloutConfig, messages: list[dict], n: int, task_index: int) -> GenerationRequest:
    return GenerationRequest(
        messages=messages,
        n=n,
        temperature=cfg.temperature,
        top_p=cfg.top_p,
        max_tokens=cfg.max_tokens,
        seed=None if cfg.seed is None else cfg.seed + task_index,
        thinking=None if cfg.thinking is None else cfg.thinking == "on",
    )


def make_record(cfg: RolloutConfig, task: Task, sample_idx: int, messages: list[dict], completion: Completion, searches: list[str] | None = None) -> Rollout:
    usage = {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens}
    usage["settings"] = generation_settings(cfg)
    return Rollout(
        task_id=task.task_id,
        sample_idx=sample_idx,
        mode=cfg.mode,
        model=cfg.model,
        prompt=messages,
        response=completion.text,
        code=extract_code(completion.text),
        finish_reason=completion.finish_reason,
        usage=usage,
        seconds=round(completion.seconds, 4),
        error=completion.error or None,
        searches=list(searches or []),
        protocol=cfg.protocol,
    )


def _counts(counter: Counter) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counter.most_common())


class _NoBar:
    def update(self, _: int) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _progress(cfg: RolloutConfig, total: int, initial: int):
    if not cfg.progress:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="sample", desc=f"rollout {cfg.mode}", dynamic_ncols=True, smoothing=0.1)



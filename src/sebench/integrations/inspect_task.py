"""SE-Bench as an Inspect task (inspect_ai, behind the `inspect` extra; nothing else in sebench imports it).

    inspect eval sebench/se_bench -T instance=DIR -T split=single_test -T mode=closed -T protocol=sebench \\
        --model openai/MODEL

pyproject's entry point in the `inspect_ai` group loads this module, which registers `se_bench`.

- Dataset: the valid tasks of the split, one Inspect sample per task (id: the task id).
- Prompts and decoding: exactly the requests `sebench rollout` sends for the mode and protocol. They are
  made by the rollout stage's own `answer_tasks` with a backend that answers nothing and keeps the requests
  (`_RequestRecorder`), so the messages, temperature, top-p, token limit, thinking switch and per-task seed
  are sebench's. Inspect's own flags (`--temperature`, `--max-tokens`, ...) override them.
- Samples per task: the protocol's n (sebench 1, original 5) or `-T n=N`, as Inspect epochs; the epochs are
  reduced to the mean (accuracy) and to pass@k for k in sebench's (1, 5, 10) up to n.
- Scorer: sebench's judge (`judge.judge_records`: the sandbox and the protocol's rules) on the answer as
  sebench's records keep it (reasoning served apart as `<think>...</think>` before the text). The score is
  C when the verdict is "correct"; its metadata holds the verdict and the rollout as sebench's records
  (`sebench_verdict`, `sebench_rollout`), and `log_records` reads them back from a log:
  `python -m sebench.integrations.inspect_task LOG OUT` writes OUT/rollouts.jsonl and OUT/verdicts.jsonl,
  which `sebench judge` and `sebench report` read.
- Metrics: accuracy and its standard error clustered by task (Inspect's `stderr(cluster="task_id")`).

Not covered: the retrieval mode (a multi-turn search loop of sebench's own).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentReasoning,
    GenerateConfig,
    ModelOutput,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, mean_score, pass_at, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver

from sebench.answers import extract_code
from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.metrics import KS
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import get as get_protocol
from sebench.records import MODES, SPLITS, Rollout, Verdict, from_dict, to_dict, write_records
from sebench.rollout import RolloutConfig, answer_tasks

CLUSTER = "task_id"
VERDICT_KEY, ROLLOUT_KEY = "sebench_verdict", "sebench_rollout"
_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
_FINISH = {"max_tokens": "length", "model_length": "length"}  # Inspect's stop reasons as the servers' finish reasons


@dataclass(frozen=True)
class JudgeSettings:
    """How the scorer judges: the protocol's rules, the limits of `sebench judge`."""

    instance: Path
    mode: str
    protocol: str
    timeout_s: float = 3.0
    memory_mb: int = 1024
    sandbox_urls: list[str] = field(default_factory=list)


@task
def se_bench(instance: str, split: str = "single_test", mode: str = "closed", protocol: str = DEFAULT_PROTOCOL,
             original_repo: str | None = None, n: int | None = None, temperature: float | None = None,
             top_p: float = 1.0, max_tokens: int | None = None, thinking: bool | str | None = None, seed: int = 0,
             context_tokens: int | None = None, memory: str | None = None, memory_k: int = 3, timeout: float = 3.0,
             memory_mb: int = 1024, sandbox_url: str | list[str] | None = None) -> Task:
    """SE-Bench's tasks of `split` in `mode`, judged by sebench under `protocol` (the arguments of `sebench
    rollout` and `sebench judge` of the same names)."""
    if split not in SPLITS:
        raise SebenchError(f"-T split={split}: choose one of {', '.join(SPLITS)}")
    if mode not in MODES or mode == "retrieval":
        raise SebenchError(f"-T mode={mode}: choose one of {', '.join(m for m in MODES if m != 'retrieval')} "
                           "(retrieval is sebench rollout's own search loop)")
    inst = Instance.open(instance)
    inst.require_package()
    cfg = RolloutConfig(data=inst.root, out=None, split=split, mode=mode, protocol=get_protocol(protocol).name,
                        original_repo=Path(original_repo) if original_repo else None, n=n, temperature=temperature,
                        top_p=top_p, max_tokens=max_tokens, thinking=_on_off(thinking), seed=seed,
                        context_tokens=context_tokens, memory=Path(memory) if memory else None, memory_k=memory_k,
                        progress=False)
    tasks = [t for t in inst.tasks(split) if t.is_valid]
    if not tasks:
        raise SebenchError(f"{inst.split_path(split)}: no valid task to evaluate")
    requests = _RequestRecorder.requests_of(cfg, inst, tasks)
    samples = [Sample(input=_messages(r.messages), target=t.right_exe_result, id=t.task_id,
                      metadata={CLUSTER: t.task_id, "split": t.split, "kind": t.kind,
                                "seed": r.seed if r.n == 1 else None})
               for t, r in zip(tasks, requests)]
    first = requests[0]
    urls = [sandbox_url] if isinstance(sandbox_url, str) else list(sandbox_url or [])
    settings = JudgeSettings(inst.root, mode, cfg.protocol, timeout, memory_mb, urls)
    return Task(dataset=MemoryDataset(samples, name=f"se_bench_{split}"), solver=sebench_generate(),
                scorer=sebench_judge(settings), epochs=Epochs(first.n, reducers(first.n)),
                config=_generate_config(first), name="se_bench",
                metadata={"instance": str(inst.root), "split": split, "mode": mode, "protocol": cfg.protocol,
                          "seed": inst.manifest().get("seed")})


def reducers(n: int) -> list:
    """The mean of a task's samples (accuracy) and pass@k for sebench's k up to n."""
    return [mean_score(), *(pass_at(k) for k in KS if 1 < k <= n)]


class _RequestRecorder:
    """A rollout backend that answers nothing and keeps the requests: those `sebench rollout` sends."""

    context_tokens = None
    count_tokens = None  # the prompt builder then counts as sebench rollout does without a tokenizer

    def __init__(self) -> None:
        self.requests: list = []

    def generate_stream(self, requests: list):
        self.requests.extend(requests)
        return iter(())

    @classmethod
    def requests_of(cls, cfg: RolloutConfig, instance: Instance, tasks: list) -> list:
        recorder = cls()
        answer_tasks(cfg, instance, tasks, recorder)
        return recorder.requests


def _on_off(thinking: bool | str | None) -> str | None:
    """-T thinking=on|off|true|false (YAML reads on/off as booleans) as sebench's "on" | "off"."""
    if thinking is None or isinstance(thinking, bool):
        return None if thinking is None else ("on" if thinking else "off")
    if str(thinking).lower() in ("on", "true", "off", "false"):
        return "on" if str(thinking).lower() in ("on", "true") else "off"
    raise SebenchError(f"-T thinking={thinking}: choose on or off")


def _messages(messages: list[dict]) -> list[ChatMessage]:
    found = []
    for m in messages:
        if m.get("role") not in _ROLES:
            raise SebenchError(f"a prompt message has role {m.get('role')!r}; Inspect takes {', '.join(_ROLES)}")
        found.append(_ROLES[m["role"]](content=str(m["content"])))
    return found


def _generate_config(request: Any) -> GenerateConfig:
    """sebench's decoding settings (the seed is per task: the solver passes it)."""
    extra = {"chat_template_kwargs": {"enable_thinking": request.thinking}} if request.thinking is not None else None
    return GenerateConfig(temperature=request.temperature, top_p=request.top_p, max_tokens=request.max_tokens,
                          extra_body=extra)


@solver
def sebench_generate():
    """One generation with the task's seed, as `sebench rollout` asks (with one sample per task only: a fixed
    seed would make Inspect's epochs of a task all alike)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        seed = state.metadata.get("seed")
        return await generate(state, **({"seed": seed} if seed is not None else {}))

    return solve


@scorer(metrics=[accuracy(), stderr(cluster=CLUSTER)])
def sebench_judge(settings: JudgeSettings):
    """sebench's judge under the protocol's rules; the verdict and the rollout in the score's metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        rollout = _rollout(state, settings)
        verdict = await anyio.to_thread.run_sync(_judge, settings, rollout)
        return Score(value=CORRECT if verdict.verdict == "correct" else INCORRECT, answer=rollout.code or "",
                     explanation=verdict.verdict, metadata={VERDICT_KEY: to_dict(verdict),
                                                            ROLLOUT_KEY: to_dict(rollout)})

    return score


def _judge(settings: JudgeSettings, rollout: Rollout) -> Verdict:
    from sebench.judge import judge_records

    return judge_records(settings.instance, [rollout], 1, sandbox_urls=settings.sandbox_urls or None,
                         timeout_s=settings.timeout_s, memory_mb=settings.memory_mb, protocol=settings.protocol)[0]


def _rollout(state: TaskState, settings: JudgeSettings) -> Rollout:
    """The answer as `sebench rollout` records it."""
    response, usage, stop = response_text(state.output), state.output.usage, str(state.output.stop_reason)
    prompt = ([{"role": "user", "content": state.input}] if isinstance(state.input, str)
              else [{"role": m.role, "content": m.text} for m in state.input])
    tokens = {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens} if usage else {}
    return Rollout(task_id=str(state.sample_id), sample_idx=state.epoch - 1, mode=settings.mode,
                   model=str(state.model), prompt=prompt, response=response, code=extract_code(response),
                   finish_reason=_FINISH.get(stop, stop), usage=tokens, protocol=settings.protocol)


def response_text(output: ModelOutput) -> str:
    """The answer's text, with reasoning served apart put before it as `<think>...</think>` (sebench's records'
    form, which the judge strips)."""
    content = output.message.content if output.choices else ""
    parts = content if isinstance(content, list) else []
    thinking = "\n".join(c.reasoning for c in parts if isinstance(c, ContentReasoning))
    return f"<think>\n{thinking}\n</think>\n{output.completion}" if thinking else output.completion


def log_records(log: EvalLog) -> tuple[list[Rollout], list[Verdict]]:
    """An Inspect log's answers and verdicts as sebench's records (for `sebench judge`, `sebench report`)."""
    rollouts, verdicts = [], []
    for sample in log.samples or []:
        for name, score in (sample.scores or {}).items():
            meta = score.metadata or {}
            if VERDICT_KEY in meta and ROLLOUT_KEY in meta:
                where = f"{log.location}: sample {sample.id} epoch {sample.epoch} score {name}"
                rollouts.append(from_dict(Rollout, meta[ROLLOUT_KEY], where))
                verdicts.append(from_dict(Verdict, meta[VERDICT_KEY], where))
    return rollouts, verdicts


def write_log_records(log_file: str | Path, out: str | Path) -> tuple[Path, Path]:
    """OUT/rollouts.jsonl and OUT/verdicts.jsonl from an Inspect log of se_bench."""
    if not Path(log_file).is_file():
        raise SebenchError(f"{log_file}: no such file (the .eval or .json log that `inspect eval` wrote)")
    try:
        log = read_eval_log(str(log_file))
    except (ValueError, OSError) as exc:  # a zip without its directory, JSON of another shape (pydantic's error)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SebenchError(f"{log_file}: not an Inspect log ({first})") from None
    rollouts, verdicts = log_records(log)
    if not rollouts:
        raise SebenchError(f"{log_file}: no sample scored by sebench's judge (is it a log of sebench/se_bench?)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_records(out / "rollouts.jsonl", rollouts)
    write_records(out / "verdicts.jsonl", verdicts)
    return out / "rollouts.jsonl", out / "verdicts.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sebench.integrations.inspect_task",
                                     description="an Inspect log of sebench/se_bench as sebench's records")
    parser.add_argument("log", help="the log file (.eval or .json) that `inspect eval` wrote")
    parser.add_argument("out", help="folder for rollouts.jsonl and verdicts.jsonl")
    args = parser.parse_args(argv)
    try:
        for path in write_log_records(args.log, args.out):
            print(path)
    except SebenchError as exc:
        parser.exit(2, f"error: {exc}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

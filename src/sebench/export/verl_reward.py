"""sebench's judge as verl's reward: `compute_score(data_source, solution_str, ground_truth, extra_info)`.

verl loads a reward from a file (`custom_reward_function.path=FILE custom_reward_function.name=compute_score`).
`sebench export --format verl` writes such a file beside the data (sebench_reward.py, three lines that call
`scorer` here with the settings in sebench_reward.json); `compute_score` below is the same reward configured
by the environment alone. Settings, later ones winning: the JSON file, then the environment
(SEBENCH_INSTANCE, SEBENCH_REWARD, SEBENCH_SANDBOX_URLS comma-separated, SEBENCH_REWARD_TIMEOUT), then
verl's `custom_reward_function.reward_kwargs` (instance=, rule=, sandbox_urls=, timeout_s=, workers=).

The rule (`rule`):
  original: the original's GRPO reward (its verl_evolve/verl/utils/reward_score/self_question.py, as
            `sebench.judge.original.reward_answer` implements it) on the row's extra_info test_cases and
            right_exe_result: 1.0 or 0.0. Programs run in this process's sandbox, or on `sebench sandbox
            serve --protocol original` servers through POST /run, as the original posted them to its own.
  binary:   1.0 when sebench's judge says "correct" (the task is found by extra_info's task_id), else 0.0;
  graded:   the share of tests passed, for code that runs against the package (sebench.train.reward);
            both in-process, or on `sebench sandbox serve` servers (protocol sebench) through POST /judge.
A row whose data_source is not one the export writes raises ValueError (verl's own dispatch raises too),
so that rows of another dataset are never scored by this judge by mistake; a sandbox server that cannot
be reached raises, never gives a silent 0.
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.files import parse_json

# the data_source values of the original's RL files (rl_train.py: open-book rows, rl_real_train.py: closed-book
# rows, rl_test.py: the validation rows), which the original's verl sends to self_question.py
# (verl_evolve/verl/utils/reward_score/__init__.py)
DATA_SOURCES = {"train_for_test_doc": "open", "query_doc": "closed", "query_doc_train": "test"}
RULES = ("original", "binary", "graded")
ENVIRONMENT = {"instance": "SEBENCH_INSTANCE", "rule": "SEBENCH_REWARD", "sandbox_urls": "SEBENCH_SANDBOX_URLS",
               "timeout_s": "SEBENCH_REWARD_TIMEOUT"}


@dataclass(frozen=True)
class RewardSettings:
    """Where and how a row is judged."""

    instance: str
    rule: str = "original"
    sandbox_urls: tuple[str, ...] = ()
    timeout_s: float = 3.0
    workers: int | None = None

    @classmethod
    def resolve(cls, saved: dict, overrides: dict) -> RewardSettings:
        """`saved` (the export's settings file), then the environment, then `overrides` (verl's reward_kwargs)."""
        values: dict[str, Any] = dict(saved)
        for name, variable in ENVIRONMENT.items():
            if os.environ.get(variable):
                values[name] = os.environ[variable]
        values.update({k: v for k, v in overrides.items() if k in {f.name for f in dataclasses.fields(cls)}})
        if not values.get("instance"):
            raise SebenchError("the sebench reward needs the instance: set SEBENCH_INSTANCE or give instance= in "
                               "custom_reward_function.reward_kwargs")
        urls = values.get("sandbox_urls") or ()
        values["sandbox_urls"] = tuple(u.strip() for u in (urls.split(",") if isinstance(urls, str) else urls)
                                       if u.strip())
        values["instance"] = str(values["instance"])
        values["timeout_s"] = float(values.get("timeout_s", 3.0))
        if values.get("rule", "original") not in RULES:
            raise SebenchError(f"sebench reward: unknown rule {values['rule']!r}; choose one of {', '.join(RULES)}")
        return cls(**values)


def _read_settings(file: Path) -> dict:
    try:
        text = Path(file).read_bytes()
    except OSError as exc:
        raise SebenchError(f"{file}: cannot be read as the reward's settings ({exc.strerror or exc})") from None
    data = parse_json(text, str(file))
    if not isinstance(data, dict):
        raise SebenchError(f"{file}: expected a JSON object of reward settings")
    return data


def scorer(settings_file: Path | str) -> Callable[..., float]:
    """verl's `compute_score` with the settings of `settings_file` (the export's sebench_reward.json)."""

    saved = _read_settings(Path(settings_file))

    def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
        settings = RewardSettings.resolve(saved, kwargs)
        return _judge_for(settings).score(data_source, solution_str, ground_truth, extra_info)

    return compute_score


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    """verl's reward signature; settings from the environment and verl's reward_kwargs (module docstring)."""
    return _judge_for(RewardSettings.resolve({}, kwargs)).score(data_source, solution_str, ground_truth, extra_info)


_JUDGES: dict[RewardSettings, RowJudge] = {}
_LOCK = threading.Lock()


def _judge_for(settings: RewardSettings) -> RowJudge:
    """One judge per settings in a process (its sandbox started once), closed when the process exits."""
    with _LOCK:
        if settings not in _JUDGES:
            _JUDGES[settings] = RowJudge(settings)
        return _JUDGES[settings]


@atexit.register
def close_all() -> None:
    with _LOCK:
        for judge in _JUDGES.values():
            judge.close()
        _JUDGES.clear()


class RowJudge:
    """Scores rows of the export under one RewardSettings."""

    def __init__(self, settings: RewardSettings):
        from sebench.instance import Instance

        self.settings = settings
        self.instance = Instance.open(settings.instance)
        self._tasks: dict | None = None
        if settings.sandbox_urls:
            check_servers(settings.sandbox_urls, "original" if settings.rule == "original" else "sebench")
        if settings.rule == "original":
            from sebench.judge import OriginalJudge

            local = OriginalJudge(self.instance, settings.workers, timeout_s=settings.timeout_s)
            self.package, self.constructor = local.package, local.constructor
            runner = RunClient(settings.sandbox_urls, settings.timeout_s) if settings.sandbox_urls else local.__enter__()
            self.run, self.close = runner.run, getattr(runner, "close", lambda: local.__exit__(None, None, None))
        else:
            from sebench.judge import Judge

            self.judge = Judge(self.instance, settings.workers, list(settings.sandbox_urls), settings.timeout_s)
            self.close = self.judge.close

    def score(self, data_source: str, solution_str: str, ground_truth: str, extra_info: Any) -> float:
        if data_source not in DATA_SOURCES:
            raise ValueError(f"the sebench reward scores rows of `sebench export --format verl` (data_source "
                             f"{', '.join(DATA_SOURCES)}), not data_source={data_source!r}")
        info = dict(extra_info or {})
        if self.settings.rule == "original":
            from sebench.judge import reward_answer

            cases = [{"input": str(c["input"]), "output": str(c.get("output", ""))} for c in info["test_cases"]]
            expected = info.get("right_exe_result") or ground_truth
            found = reward_answer(solution_str, cases, expected, self.package, self.constructor, self.run)
            return 1.0 if found.right else 0.0
        from sebench.train import score

        verdict = self.judge.judge(self._task(info.get("task_id")), solution_str)
        return score(verdict, self.settings.rule == "graded")

    def _task(self, task_id: Any):
        if self._tasks is None:
            self._tasks = {t.task_id: t for t in self.instance.all_tasks()}
        if task_id not in self._tasks:
            raise ValueError(f"extra_info.task_id {task_id!r} is not a task of {self.instance.root} (the rule "
                             f"'{self.settings.rule}' judges against the instance's task; was the data exported from it?)")
        return self._tasks[task_id]


def check_servers(urls: tuple[str, ...], protocol: str) -> None:
    """Every server answers /health with the protocol the rule needs (its printing and its /judge rules)."""
    import httpx

    for url in urls:
        try:
            health = httpx.get(f"{url.rstrip('/')}/health", timeout=15.0).json()
        except (httpx.HTTPError, ValueError) as exc:
            raise SebenchError(f"sandbox server {url}: no answer on /health ({type(exc).__name__}: {exc})") from None
        if not (isinstance(health, dict) and health.get("ok")):
            raise SebenchError(f"{url}: not a sandbox server (start one with `sebench sandbox serve`)")
        if health.get("protocol", "sebench") != protocol:
            raise SebenchError(f"{url} serves protocol {health.get('protocol', 'sebench')!r}; this reward needs "
                               f"`sebench sandbox serve --protocol {protocol}`")


class RunClient:
    """Runs programs on `sebench sandbox serve --protocol original` servers (POST /run), in turn; a server
    that fails is skipped for that program; SebenchError when none could run it."""

    def __init__(self, urls: tuple[str, ...], timeout_s: float):
        import httpx

        self.urls = [u.rstrip("/") for u in urls]
        self.timeout_s = timeout_s
        self.client = httpx.Client(timeout=httpx.Timeout(60.0 + timeout_s, connect=10.0))
        self._turn = itertools.count()

    def close(self) -> None:
        self.client.close()

    def run(self, program: str) -> tuple[str, str, bool]:
        """(stdout, stderr, timed out), as OriginalJudge.run answers (a server's timeout: stderr "TLE")."""
        import httpx

        from sebench import values

        start, errors = next(self._turn), []
        for k in range(len(self.urls)):
            url = self.urls[(start + k) % len(self.urls)]
            try:
                resp = self.client.post(f"{url}/run", content=values.dumps({"code": program, "timeout": self.timeout_s}).encode(),
                                        headers={"Content-Type": "application/json"})
                if resp.status_code == 200:
                    answer = values.loads(resp.content)
                    return answer["stdout"], answer["stderr"], answer["stderr"] == "TLE"
                errors.append(f"{url}: HTTP {resp.status_code} {resp.text[:200]}")
            except (httpx.HTTPError, values.CodecError, KeyError, TypeError) as exc:
                errors.append(f"{url}: {type(exc).__name__}: {exc}")
        raise SebenchError("no sandbox server could run the program: " + "; ".join(errors))

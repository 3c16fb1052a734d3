"""The options of `sebench export`, one config for both formats (verl.py, hf.py)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from sebench.cliflags import flag_name, option
from sebench.errors import SebenchError
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS
from sebench.records import SPLITS
from sebench.train import REWARDS

FORMATS = ("verl", "hf")
# the flags that only the verl format reads; an hf export refuses them rather than ignore them
VERL_ONLY = ("original_repo", "tokenizer", "max_prompt_tokens", "rollouts", "verdicts", "val_split", "reward",
             "sandbox_url")


@dataclass
class ExportConfig:
    """The options of `sebench export`; each field is one flag."""

    data: Path = option(None, "instance directory (from `sebench build`)", required=True)
    out: Path = option(None, "folder to write (verl: RL_data/, SFT_data/, sebench_reward.py, the original's layout; "
                     "hf: a Hugging Face dataset folder, README.md and data/)", required=True)
    format: str = option("verl", "what to write: verl (the files the original's verl scripts read) or hf (a dataset "
                         "folder that datasets.load_dataset reads and the Hub takes as it is)", choices=FORMATS)
    protocol: str = option(DEFAULT_PROTOCOL, "verl: the prompts, reward rule and SFT filter of this protocol (original: "
                         "the original's training scripts' prompts, read from --original-repo); hf: the protocol the "
                         "dataset card tells users to judge with", choices=tuple(PROTOCOLS))
    original_repo: Path | None = option(None, "your copy of github.com/thunlp/SE-Bench (--protocol original reads "
                                      "its training prompts there)")
    tokenizer: str | None = option(None, "the trained model's tokenizer, for the prompt-length filter: a local folder "
                                 "(nothing is downloaded) or smollm2-135m")
    max_prompt_tokens: int | None = option(None, "drop tasks whose open-book prompt has this many tokens or more (the "
                                         "original: 2000, rl_train.py); 0 keeps all; default: the protocol's",
                                         minimum=0)
    rollouts: Path | None = option(None, "open-book rollouts of the train split, judged (`sebench judge`): their "
                                 "correct answers become the SFT file")
    verdicts: Path | None = option(None, "verdicts of --rollouts (default: verdicts.jsonl beside them)")
    val_split: str = option("single_test", "the split of RL_data/test.parquet (the scripts' data.val_files)",
                          choices=tuple(s for s in SPLITS if s != "train"))
    reward: str | None = option(None, "the reward rule of sebench_reward.py: original (the original's, self_question.py), "
                              "binary or graded (sebench's judge); default: the protocol's", choices=REWARDS)
    sandbox_url: list | None = option(None, "the reward runs programs on this `sebench sandbox serve` server (repeat "
                                    "for several); default: in the trainer's process", multiple=True, metavar="URL")
    overwrite: bool = option(False, "replace files of an earlier export in OUT")


def check_format_options(cfg: ExportConfig) -> None:
    """Refuses an unknown format, and options the export would ignore: verl's given to another format,
    --original-repo without --protocol original."""
    if cfg.format not in FORMATS:
        raise SebenchError(f"unknown export format '{cfg.format}'; choose one of {', '.join(FORMATS)}")
    if cfg.format == "verl":
        if cfg.original_repo is not None and cfg.protocol != "original":
            raise SebenchError(f"--original-repo is read under --protocol original only (this export's protocol: "
                               f"{cfg.protocol}, the default as for every command); add --protocol original for the "
                               "original's training prompts, or leave out --original-repo")
        return
    defaults = {f.name: f.default for f in dataclasses.fields(ExportConfig)}
    given = [name for name in VERL_ONLY if getattr(cfg, name) not in (defaults[name], None, [])]
    if given:
        raise SebenchError(f"{flag_name(given[0])} is an option of --format verl; --format {cfg.format} writes the "
                           "tasks and docs only: leave it out")

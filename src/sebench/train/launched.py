"""Training under `accelerate launch`: `Launch` builds the command, and `python -m sebench.train.launched FILE`
is the training run in each process it starts (FILE: the TrainConfig's fields, as the study writes them;
the study decides the launch: sebench.experiment.launch)."""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError


@dataclass(frozen=True)
class Launch:
    """One training stage's launch: what `accelerate launch` is given."""

    processes: int
    cpu: bool = False
    deepspeed: bool = False
    accelerate_config: str | None = None

    def to_json(self) -> dict:
        return {"processes": self.processes, "cpu": self.cpu, "deepspeed": self.deepspeed,
                "accelerate_config": self.accelerate_config}

    def command(self, config_file: Path) -> list[str]:
        """`accelerate launch ... -m sebench.train.launched CONFIG_FILE`, with this interpreter."""
        argv = [sys.executable, "-m", "accelerate.commands.launch"]
        if self.accelerate_config:
            argv += ["--config_file", self.accelerate_config]
        argv += ["--num_processes", str(self.processes), "--num_machines", "1", "--main_process_port",
                 str(free_port()), "--dynamo_backend", "no"]
        if self.cpu:  # `--cpu` alone starts one process (several need mpirun): torchrun's processes on the CPU
            argv += ["--multi_gpu", "--mixed_precision", "no"] if self.processes > 1 else ["--cpu"]
        elif self.deepspeed:
            argv += ["--use_deepspeed", "--zero_stage", "3", "--zero3_save_16bit_model", "true"]
        elif self.processes > 1:
            argv += ["--multi_gpu"]
        return [*argv, "-m", "sebench.train.launched", str(config_file)]

    def env(self) -> dict[str, str]:
        """The launcher's environment: this one, and on the CPU accelerate's switch to it (gloo, no GPU)."""
        return {**os.environ, **({"ACCELERATE_USE_CPU": "true"} if self.cpu else {})}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str]) -> int:
    from sebench.parent_death import die_with_parent

    die_with_parent()  # with the launcher, which dies with the study (sebench.parent_death)
    from sebench.train.config import TrainConfig
    from sebench.train.run import train_model

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    settings = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    if os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true"):
        from accelerate import PartialState

        PartialState(cpu=True)  # the processes' shared state, on the CPU, before anything asks for it
    try:
        train_model(TrainConfig(**settings))
    except SebenchError as exc:
        print(f"sebench train: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

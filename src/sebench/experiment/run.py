"""The study, stage by stage: build -> select -> evaluate untrained -> train -> evaluate trained -> report.

Run directory:

    RUN_DIR/manifest.json                        seeds, versions, commands, data hashes, stage timings and
                                                 CPU threads
    RUN_DIR/stages/<stage>.json                  completion records (see state.py)
    RUN_DIR/instance/                            the built instance (unless --instance is given)
    RUN_DIR/data/                                the studied subset (presets with `functions` set)
    RUN_DIR/random-instance/                     another seed's package and training tasks (the Random-FT
                                                 control, closed-sft-random)
    RUN_DIR/random-instance-rollouts/            the base's judged open-book answers there (the control's
                                                 SFT data, when the study trains on rollouts)
    RUN_DIR/evals/<regime>/<mode>/<split>/       rollouts.jsonl, verdicts.jsonl, summary.json
    RUN_DIR/evals/<regime>/name_recall.json      the model's name recall (RunConfig.name_recall)
    RUN_DIR/train/<regime>/checkpoint/           the trained model (HF format, loss.csv, train_config.json)
    RUN_DIR/outputs/<label>/                     a user's method's checkpoint or agent state, as the study
                                                 copied it (sebench.methods.outputs)
    RUN_DIR/report/                              report.md, report.json, PNG plots

Each stage calls the stage's own entry point (build_instance, rollout run, judge_records, train run,
build_report) with files in and files out; nothing here re-implements a stage.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from sebench import __version__
from sebench.errors import SebenchError
from sebench.experiment.config import RunConfig
from sebench.experiment.launch import eval_spec, method_launch, stage_launch
from sebench.experiment.state import StageBook, check_run_folder, config_record, file_hash, now, read_json, write_json
from sebench.methods import is_method_spec
from sebench.provenance import versions
from sebench.seal import Tampered
from sebench.train import comparable_settings

log = logging.getLogger(__name__)

UNTRAINED = "untrained"
AGENT_PREFIX = "agent:"  # the model of an agent's rows: its answers come from the agent's own process
SFT_FROM_DATA = ("open-sft", "closed-sft")  # the regimes trained on judged answers (or reference solutions)


class Study:
    """One run directory and its config; each method is one stage (or a group of them)."""

    def __init__(self, cfg: RunConfig, root: Path, overwrite: bool = False, argv: list[str] | None = None):
        self.cfg = cfg
        self.root = Path(root).resolve()  # stages may run subprocesses in other working directories
        self.book = StageBook(self.root, overwrite, after=lambda: self._update_manifest(finished=False),
                              starting=self._start_manifest)
        self.argv = argv or []
        self.data: Path | None = None
        self.base: Path | None = None  # the warmed-up base checkpoint, when the config has a warm-up
        self._loaded: tuple | None = None  # (model spec, backend) kept between rollout stages
        self._method_jobs: dict = {}  # label -> the MethodJob of a method run in this study
        self._endpoint_keys: dict[str, str | None] = {}  # a method's endpoint spec -> the variable of its key
        self.started = now()
        # regimes an earlier command could not train stay reported until a later command trains them
        self.not_trained: dict[str, str] = (read_json(self.root / "manifest.json") or {}).get("not_trained", {})

    # ---- the whole study -------------------------------------------------------------------------

    def run(self) -> Path:
        self.preflight()
        self.data = self.prepare_data()
        if self.cfg.warmup:
            self.base = self.warm_up()
            if self.cfg.warmup.get("docs") == "compact":  # the base learned to read compact docs: show it those
                self.data = self.compact_data()
        checkpoints = {}
        try:
            for mode in self.cfg.untrained_modes:
                for split in self.cfg.splits:
                    self.evaluate(UNTRAINED, self.base_model, mode, split)
            self.recall(UNTRAINED, self.base_model)
            for regime in self._training_order():
                self.close_backend()  # free the memory for training
                label = self.label_of(regime)
                try:
                    if self.is_method(regime):
                        targets = self.run_method(regime)
                    else:
                        checkpoints[regime] = self.train(regime, checkpoints)
                        targets = [(self._trained_spec(checkpoints[regime]), m) for m in self.cfg.trained_modes]
                    self.not_trained.pop(label, None)
                except Tampered:
                    raise
                except SebenchError as exc:  # e.g. a served model with no weights: the other regimes still run
                    log.error("regime %s was not trained: %s", label, exc)
                    self.not_trained[label] = str(exc)
                    self._update_manifest(finished=False)  # the report reads it from the manifest
                    continue
                for model, mode in targets:
                    for split in self.cfg.splits:
                        self.evaluate(label, model, mode, split)
                self.recall(label, targets[0][0] if targets else "")
        finally:
            self.close_backend()
        report = self.report()
        self.finish_manifest()
        return report

    def preflight(self) -> None:
        """Every check that needs no work, before anything is written: training has weights to start from,
        the protocol's inputs are there, and the stages that ran already (the data, the untrained model's
        evaluations) have the settings this command gives them, or --overwrite. A refused command leaves
        the run directory as it was."""
        check_run_folder(self.root)
        if self.cfg.regimes:
            self.train_model  # noqa: B018 - fails now, not after an hour of evaluation, if there are no weights
        if self.cfg.protocol == "original":
            from sebench.rollout import OriginalTemplates

            OriginalTemplates.read(self.cfg.original_repo)
        name, config, instance = self.instance_stage()
        instance_hash = _hash_if(self.book.done_with(name, config), instance / "manifest.json")
        data = instance
        if self.cfg.functions:
            data = self.root / "data"
            data_hash = _hash_if(self.book.done_with("select", self.select_config(instance_hash)), data / "manifest.json")
        else:
            data_hash = instance_hash
        if self.cfg.warmup:
            return  # the untrained rows evaluate the warmed-up base, made later
        for mode in (m for m in self.cfg.untrained_modes if m != "memory"):
            for split in self.cfg.splits:
                rollouts = self.eval_dir(UNTRAINED, mode, split) / "rollouts.jsonl"
                name = f"rollout:{UNTRAINED}:{mode}:{split}"
                _, config = self.rollout_stage(data, data_hash, UNTRAINED, eval_spec(self.cfg, self.base_model), mode,
                                               split, None, rollouts)
                if self.book.done_with(name, config):
                    self.book.done_with(f"judge:{UNTRAINED}:{mode}:{split}",
                                        self.judge_stage(data, data_hash, rollouts,
                                                         self.book.get(name)["outputs"][_rel(self.root, rollouts)])[1])

    def _training_order(self) -> list[str]:
        labels = list(dict.fromkeys(self.cfg.regimes))
        after_sft = [label for label in labels if self.cfg.regime_of(label) == "closed-sft-rl"]
        if after_sft:  # they start from the Closed-SFT checkpoint: train that one just before the first
            labels.remove("closed-sft") if "closed-sft" in labels else None
            labels.insert(labels.index(after_sft[0]), "closed-sft")
        return labels

    # ---- the base model ---------------------------------------------------------------------------

    def warm_up(self) -> Path:
        """The doc-literate base (sebench warmup on the instance's other functions), cached across runs."""
        instance = Path(self.cfg.instance).resolve() if self.cfg.instance else self.root / "instance"
        return self.warm_up_on(instance, studied_from=self.data if self.cfg.functions else None)

    def warm_up_on(self, instance: Path, **studied: object) -> Path:
        """The warm-up on `instance`'s training tasks, leaving out the functions `studied` names (a field of
        WarmupConfig: studied or studied_from)."""
        from sebench.experiment.warmup import WarmupConfig, plan, warm_up

        wcfg = WarmupConfig(data=instance, model=self.cfg.train_model or self.cfg.model, seed=self.cfg.seed,
                            **studied, **self.cfg.warmup)
        key = plan(wcfg).key
        self.book.run("warmup", {"key": key}, [], lambda: warm_up(wcfg))
        return warm_up(wcfg)  # from the cache: the stage above trained it

    def compact_data(self, data: Path | None = None, name: str = "data") -> Path:
        """A copy of `data` (default: the studied data) whose docs are compact (the form the warm-up taught),
        in RUN_DIR/<name>-compact."""
        from sebench.instance import Instance
        from sebench.rollout import write_compact_instance

        data = data or self.data
        out = self.root / f"{name}-compact"
        stage = "compact-docs" if name == "data" else f"compact-docs:{name}"
        self.book.run(stage, {"data": file_hash(data / "manifest.json")}, [out],
                      lambda: write_compact_instance(Instance.open(data), out))
        return out

    @property
    def base_model(self) -> str:
        """The model the untrained rows evaluate: the warmed-up base, else --model."""
        return self._trained_spec(self.base) if self.base else self.cfg.model

    @staticmethod
    def _trained_spec(checkpoint: Path) -> str:
        return f"hf:{checkpoint.resolve()}"

    # ---- data ------------------------------------------------------------------------------------

    def prepare_data(self) -> Path:
        cfg = self.cfg
        name, config, instance = self.instance_stage()
        if cfg.instance:
            self.book.run(name, config, [], lambda: None, trusted=tuple(instance / p for p in TRUSTED_IN_INSTANCE))
        else:
            self.book.run(name, config, [instance], lambda: self._build(instance, self._build_sizes()))
        if not cfg.functions:
            return instance
        data = self.root / "data"
        self.book.run("select", self.select_config(file_hash(instance / "manifest.json")), [data],
                      lambda: self._select(instance, data, self.subset_sizes()))
        return data

    def instance_stage(self) -> tuple[str, dict, Path]:
        """(stage name, config, folder) of the instance the study reads: the one given with --instance (checked
        here), else the one it builds in RUN_DIR/instance."""
        cfg = self.cfg
        if cfg.instance:
            instance = Path(cfg.instance).resolve()
            if not (instance / "manifest.json").is_file():
                raise SebenchError(f"--instance {instance}: not an instance directory (no manifest.json)")
            return "instance", {"path": str(instance), "manifest": file_hash(instance / "manifest.json")}, instance
        return "build", self.build_config(cfg.seed, self._build_sizes()), self.root / "instance"

    def build_config(self, seed: int, sizes, library: str | None = None) -> dict:
        """The config of a build stage: NumPy's as it always was, another library's named in it."""
        library = library or self.cfg.library
        return {"seed": seed, "task_sizes": sizes_dict(sizes), **({"library": library} if library != "numpy" else {})}

    def build(self, out: Path, seed: int, sizes, library: str | None = None) -> None:
        """Builds the instance of `library` (default: the study's) at `out`."""
        from sebench.builder import build_instance

        library = library or self.cfg.library
        # no --overwrite needed: the stage book removes a stage's outputs before it runs the stage again
        if library == "numpy":
            build_instance(out, seed=seed, task_sizes=sizes)
        else:
            build_instance(out, seed=seed, task_sizes=sizes, library=library)

    def _build_sizes(self):
        """The task sizes the study builds its own instance with (None: the builder's own)."""
        cfg = self.cfg
        if cfg.functions and cfg.warmup:  # the warm-up trains on the other functions' training tasks
            return self._sizes(cfg.build_train, 0, 0)
        return None if cfg.functions else self._sizes(cfg.build_train, cfg.build_single, cfg.build_multiple)

    def select_config(self, instance_hash: str) -> dict:
        """The config of the stage that selects the studied subset, from the hash of the instance's manifest."""
        cfg = self.cfg
        return {"functions": cfg.functions, "seed": cfg.seed, "task_sizes": sizes_dict(self.subset_sizes()),
                "instance": instance_hash}

    def subset_sizes(self):
        """The task sizes of a studied subset (TaskSizes)."""
        cfg = self.cfg
        return self._sizes(cfg.max_train or 100, cfg.max_single or 30, cfg.max_multiple or 10)

    @staticmethod
    def _sizes(train: int, single: int, multiple: int):
        from sebench.tasks import TaskSizes

        return TaskSizes(train=train, single=single, multiple=multiple)

    def _build(self, out: Path, sizes) -> None:
        self.build(out, self.cfg.seed, sizes)

    def _select(self, instance: Path, data: Path, sizes) -> None:
        from sebench.experiment.select import write_subset
        from sebench.instance import Instance

        info = write_subset(Instance.open(instance), data, self.cfg.functions, self.cfg.seed, sizes,
                            library=self.cfg.library)
        log.info("studying %d functions: %s; tasks %s", len(info["functions"]), ", ".join(info["functions"]),
                 info["counts"])

    # ---- evaluation ------------------------------------------------------------------------------

    def eval_dir(self, regime: str, mode: str, split: str) -> Path:
        return self.root / "evals" / regime / mode / split

    def evaluate(self, regime: str, model: str, mode: str, split: str, samples: int | None = None,
                 temperature: float | None = None) -> Path | None:
        """Rollouts (resumable, sample by sample) then verdicts of one (regime, mode, split)."""
        if not self._has_tasks(split):
            log.info("no %s tasks in %s: nothing to evaluate there", split, self.data)
            return None
        memory = self.source_rollouts() if mode == "memory" else None  # the base's judged training answers
        weights = None if regime == UNTRAINED else self._checkpoint_hash(regime)
        model = eval_spec(self.cfg, model)  # served by vLLM where it is the engine (launch.py)
        return self.evaluate_on(self.data, regime, model, mode, split, weights, memory, samples, temperature)

    def evaluate_on(self, data: Path, label: str, model: str, mode: str, split: str, weights: str | None,
                    memory: Path | None = None, samples: int | None = None,
                    temperature: float | None = None, folder: Path | None = None) -> Path:
        """Rollouts then verdicts of `model` on `data`'s split, in `folder` (default evals/<label>/<mode>/<split>).
        `weights`: the hash of a trained checkpoint, whose record names the model by `label` and weights
        rather than by its path (the run may move); None for a model named by its spec."""
        self.book.check()  # nothing a method did is evaluated
        folder = folder or self.eval_dir(label, mode, split)
        rollouts, verdicts = folder / "rollouts.jsonl", folder / "verdicts.jsonl"
        data_hash = file_hash(data / "manifest.json")
        rollout, record = self.rollout_stage(data, data_hash, label, model, mode, split, weights, rollouts, memory,
                                             samples, temperature)
        name = f"rollout:{label}:{mode}:{split}"
        self.book.run(name, record, [rollouts], lambda: self._rollout(rollout), resumable=True)
        judge, record = self.judge_stage(data, data_hash, rollouts, self.book.get(name)["outputs"][_rel(self.root, rollouts)])
        self.book.run(f"judge:{label}:{mode}:{split}", record, [verdicts, folder / "summary.json"],
                      lambda: self._judge(judge))
        return verdicts

    def rollout_stage(self, data: Path, data_hash: str, label: str, model: str, mode: str, split: str,
                      weights: str | None, rollouts: Path, memory: Path | None = None, samples: int | None = None,
                      temperature: float | None = None):
        """(RolloutConfig, the config of its stage) of one evaluation's rollouts."""
        from sebench.rollout import RolloutConfig

        cfg = self.cfg
        settings = {**cfg.rollout, "batch_size": cfg.rollout["batch_size"] or cfg.rollout["concurrency"]}
        if samples is not None:
            settings["n"] = samples
        if temperature is not None:
            settings["temperature"] = temperature
        rollout = RolloutConfig(data=data, split=split, mode=mode, model=model, out=rollouts, seed=cfg.seed,
                                protocol=cfg.protocol, original_repo=cfg.original_repo, memory=memory, **settings)
        return rollout, config_record(rollout, drop=("data", "out"), data=data_hash,
                                      model=model if weights is None else label, weights=weights,
                                      memory=file_hash(memory) if memory else None)

    def judge_stage(self, data: Path, data_hash: str, rollouts: Path, rollouts_hash: str):
        """(JudgeConfig, the config of its stage) of one evaluation's verdicts."""
        from sebench.judge import JudgeConfig

        judge = JudgeConfig(data=data, rollouts=rollouts, out=rollouts.with_name("verdicts.jsonl"),
                            summary=rollouts.with_name("summary.json"), protocol=self.cfg.protocol, **self.cfg.judge)
        return judge, config_record(judge, drop=("data", "out", "summary"), data=data_hash, rollouts=rollouts_hash)

    def recall(self, label: str, model: str) -> Path | None:
        """The name recall of `model` (RunConfig.name_recall; models with local weights only) on the studied
        functions, all the package's names the candidates, in evals/<label>/name_recall.json."""
        if not self.cfg.name_recall:
            return None
        if not _has_weights(model):
            log.info("name recall of %s: %s has no local weights to score names with", label, model)
            return None
        out = self.root / "evals" / label / "name_recall.json"
        weights = None if label == UNTRAINED else self._checkpoint_hash(label)
        asked = self._studied_names()
        from sebench.rollout import BEHAVIOUR_CHARS

        self.book.check()
        record = {"model": model if weights is None else label, "weights": weights, "data": self._data_hash(),
                  "asked": asked, "behaviour_chars": BEHAVIOUR_CHARS}
        self.book.run(f"recall:{label}", record, [out], lambda: self._write_recall(model, asked, out))
        return out

    def _studied_names(self) -> list[str] | None:
        """The public names of the studied functions (None: every documented one)."""
        from sebench.instance import Instance

        return Instance.open(self.data).manifest().get("subset", {}).get("functions")

    def _write_recall(self, model: str, asked: list[str] | None, out: Path) -> None:
        from sebench.models import load_causal_lm
        from sebench.rollout import recall_of_instance

        backend = self._loaded[1] if self._loaded and self._loaded[0] == model else None
        if backend is not None and hasattr(backend, "tokenizer"):  # the rollouts' loaded model
            lm, tokenizer = backend.model, backend.tokenizer
        else:
            self.close_backend()
            lm, tokenizer = load_causal_lm(model)
        write_json(out, recall_of_instance(lm, tokenizer, self.data, asked))

    def _has_tasks(self, split: str, data: Path | None = None) -> bool:
        from sebench.instance import Instance

        path = Instance(data or self.data).split_path(split)
        return path.is_file() and path.stat().st_size > 0

    def _rollout(self, rollout) -> None:
        from sebench.rollout import write_rollouts

        write_rollouts(rollout, backend=self._backend(rollout))

    def _backend(self, rollout_cfg):
        """One loaded model for all the rollout stages of the same model (loading costs ~20 s on a CPU); an
        agent's answers come from its own fenced process."""
        from sebench.rollout import backend_options, get_backend

        if self._loaded and self._loaded[0] != rollout_cfg.model:
            self.close_backend()
        if not self._loaded:
            model = rollout_cfg.model
            if model.startswith(AGENT_PREFIX):
                backend = self._agent_backend(model.removeprefix(AGENT_PREFIX), rollout_cfg)
            else:
                options = backend_options(rollout_cfg)
                if model in self._endpoint_keys:  # a method's server: never the study's own key
                    key = self._endpoint_keys[model]
                    options.update({"api_key_env": key} if key else {"api_key_env": None, "keyless": True})
                backend = get_backend(model, **options)
            self._loaded = (model, backend)
        return self._loaded[1]

    def close_backend(self) -> None:
        if self._loaded:
            self._loaded[1].close()
            self._loaded = None
            import gc

            gc.collect()

    @staticmethod
    def _judge(judge) -> None:
        from sebench.judge import write_verdicts

        write_verdicts(judge)

    # ---- training --------------------------------------------------------------------------------

    def checkpoint_dir(self, regime: str) -> Path:
        return self.root / "train" / regime / "checkpoint"

    def _checkpoint_hash(self, regime: str) -> str:
        record = self.book.get(f"train:{regime}")
        return record["outputs"][_rel(self.root, self.checkpoint_dir(regime).parent)]

    @property
    def train_model(self) -> str:
        """The weights training starts from: the warmed-up base, else --train-model, else --model when it
        names weights."""
        if self.base:
            return str(self.base)
        spec = self.cfg.train_model or self.cfg.model
        if spec.split(":", 1)[0] in ("openai", "fake"):
            raise SebenchError(
                f"training needs the model's weights, and '{spec}' is served, not loaded; pass "
                "--train-model hf:<the same model> (or --regimes with no regime to evaluate only)"
            )
        return spec

    def source_rollouts(self) -> Path:
        """The base model's judged open-book answers on the train split (the paper's SFT data, and the
        experience memory of the memory baseline)."""
        cfg = self.cfg
        verdicts = self.evaluate(UNTRAINED, self.base_model, "open", "train", samples=cfg.source_samples,
                                 temperature=cfg.source_temperature)
        if verdicts is None:
            raise SebenchError(f"{self.data}: no training tasks, so no SFT data and no experience memory")
        return verdicts.with_name("rollouts.jsonl")

    def train(self, label: str, checkpoints: dict[str, Path]) -> Path:
        cfg = self.cfg
        regime = self.cfg.regime_of(label)
        out = self.checkpoint_dir(label)
        source_rollouts = None
        random = cfg.on_random_package(label)  # the Random-FT control: the same settings, another seed's package
        if cfg.train_source == "rollouts" and regime in SFT_FROM_DATA:
            source_rollouts = self.random_source_rollouts() if random else self.source_rollouts()
        start = checkpoints.get("closed-sft") if regime == "closed-sft-rl" else None
        train = self.train_config(label, out, source_rollouts, start)
        if random:
            train = replace(train, data=self.random_shown_data())
        launch = stage_launch(cfg, label, train.lora)
        self.run_training(label, train, data=file_hash(Path(train.data) / "manifest.json"),
                          rollouts=file_hash(source_rollouts) if source_rollouts else None,
                          sft_checkpoint=self._checkpoint_hash("closed-sft") if start else None,
                          **self._docs_only_record(), **({"processes": launch.processes} if launch else {}))
        return out

    def run_training(self, label: str, train, **inputs: object) -> None:
        """Trains as `train` (a TrainConfig) says, as the stage train:<label>; `inputs` stand in the record
        for the fields whose content matters rather than their path (hashes of the data, the start weights).
        The mix fields, set only by the lifelong schedule, are left out of the record when unused, so that
        records written before they existed still match."""
        unused = ("mix_data", "mix_share") if train.mix_data is None else ()
        record = config_record(train, drop=("data", "out", "verdicts", *unused), **inputs)
        # resumable: an own-loop GRPO stage goes on from its last resume point (train/resume.py), self-play
        # after its last finished round (train/selfplay.py)
        self.book.run(f"train:{label}", record, [train.out.parent], lambda: self._train(label, train), resumable=True,
                      comparable=comparable_settings, before_resume=lambda: self.set_aside_unproven(label, train.out))
        self.book.check()  # its process could reach nothing else of the study, or the study stops here

    def set_aside_unproven(self, label: str, checkpoint: Path) -> None:
        """Before an interrupted training stage goes on: a saved model its attempt left in `checkpoint` is proven
        by nothing (only a finished stage's record and hashes prove one), so it moves to
        RUN_DIR/incomplete/<label>.<n> and the stage trains again; resume points without a saved model stay."""
        from sebench.train import CHECKPOINT_MARKERS

        if not any((checkpoint / marker).exists() for marker in CHECKPOINT_MARKERS):
            return
        aside = self.root / "incomplete"
        aside.mkdir(exist_ok=True)
        n = 1 + sum(1 for p in aside.glob(f"{label}.*"))
        checkpoint.rename(aside / f"{label}.{n}")
        log.warning("stage train:%s: the model its interrupted attempt saved is unproven; moved to %s and trained "
                    "again", label, aside / f"{label}.{n}")

    def train_config(self, label: str, out: Path, rollouts: Path | None, start: Path | None):
        """The TrainConfig of a label of `regimes`: the study's paths and seed, then the train section,
        its regime's and the variant's settings (RunConfig.train_settings)."""
        from sebench.instance import Instance
        from sebench.train import REGIME_SPECS, TrainConfig

        cfg = self.cfg
        regime = self.cfg.regime_of(label)
        settings = cfg.train_settings(label)
        settings["sandbox_url"] = settings.get("sandbox_url") or cfg.judge["sandbox_url"]  # rewards judged as verdicts are
        if REGIME_SPECS[regime].self_play and not settings.get("functions") and cfg.functions \
                and Instance(self.data).manifest_path.is_file():  # (--plan, before the data exists: unknown yet)
            # the subset keeps every function's docs: self-play writes tasks for the studied ones only
            settings["functions"] = Instance.open(self.data).manifest()["subset"]["functions"]
        return TrainConfig(data=self.data, regime=regime, out=out, model=self.train_model, rollouts=rollouts,
                           seed=cfg.seed, judge_workers=cfg.judge["workers"], sft_checkpoint=start,
                           train_source=cfg.train_source if regime in SFT_FROM_DATA else None, **settings)

    def random_shown_data(self) -> Path:
        """The Random-FT control's data as the base reads it: compact docs where the warm-up taught them."""
        data = self.random_data()
        return self.compact_data(data, "random-instance") if (self.cfg.warmup or {}).get("docs") == "compact" else data

    def random_source_rollouts(self) -> Path:
        """The base's judged open-book answers on the Random-FT control's training tasks (its SFT data when the
        study trains on rollouts, as closed-sft's are on this package's), in RUN_DIR/random-instance-rollouts
        (not an evaluation of this study's tasks, so not in the report's tables)."""
        cfg = self.cfg
        data = self.random_shown_data()
        folder = self.root / "random-instance-rollouts"
        verdicts = self.evaluate_on(data, "untrained-random", eval_spec(cfg, self.base_model), "open", "train", None,
                                    samples=cfg.source_samples, temperature=cfg.source_temperature, folder=folder)
        return verdicts.with_name("rollouts.jsonl")

    def random_data(self) -> Path:
        """The Random-FT control's data: an instance of seed + RANDOM_SEED_OFFSET with as many training tasks as
        the studied data (and no test tasks), built once in RUN_DIR/random-instance."""
        from sebench.experiment.config import RANDOM_SEED_OFFSET
        from sebench.instance import Instance

        out = self.root / "random-instance"
        seed = self.cfg.seed + RANDOM_SEED_OFFSET
        sizes = self._sizes(len(Instance.open(self.data).tasks("train")), 0, 0)
        library = Instance.open(self.data).library  # the studied package's library, under another seed's names
        self.book.run("build-random", {**self.build_config(seed, sizes, library), "data": self._data_hash()},
                      [out], lambda: self.build(out, seed, sizes, library))
        return out

    def _train(self, label: str, train) -> None:
        """A built-in regime through the method contract: sebench.methods.builtins.Regime in its fenced process
        (the regimes the paper defines with the mapping, self-play's leak filter and the original's training
        prompts, are given the mapping; their method.json says so)."""
        from sebench.methods import MethodRef, run_method
        from sebench.train import REGIME_SPECS

        settings = {k: v for k, v in train.to_json().items() if k not in ("data", "rollouts", "verdicts")}
        ref = MethodRef(label, label, "built-in", "sebench.methods.builtins:Regime", None)
        with_mapping = REGIME_SPECS[train.regime].self_play or self.cfg.protocol == "original"
        start = [Path(p) for p in (train.sft_checkpoint, train.model, *(train.mix_data or [])) if p and Path(p).is_dir()]
        launch = stage_launch(self.cfg, label, train.lora)  # several processes: `accelerate launch` (launch.py)
        args = {"train_config": settings, **({"launch": launch.to_json()} if launch else {})}
        job = self.method_job(ref, args, train.out.parent, str(train.model), readable=tuple(start),
                              with_mapping=with_mapping, answers=train.rollouts, data=Path(train.data))
        run_method(replace(job, loopback=launch is not None))

    # ---- methods ---------------------------------------------------------------------------------

    def label_of(self, regime: str) -> str:
        """The label of a `regimes` item in folders and the report: a method's own label (its attribute or
        entry-point name), else the item itself."""
        from sebench.methods import resolve

        if not self.is_method(regime) or regime in self.cfg.method_aliases():
            return regime
        return resolve(regime).label

    def is_method(self, regime: str) -> bool:
        """Whether a `regimes` item names a method rather than a regime or a regime's variant."""
        if regime in self.cfg.variants:
            return False
        return regime in self.cfg.method_aliases() or is_method_spec(regime)

    def hidden_paths(self) -> tuple[Path, ...]:
        """What no method may read: this run, the test splits and mapping of the instance it studies,
        the original repository's test split, and other seeds' evaluations beside this run."""
        hidden = [self.root]
        for folder in {Path(self.cfg.instance).resolve() if self.cfg.instance else None, self.data}:
            if folder is not None and not folder.is_relative_to(self.root):
                hidden += [folder / "datasets" / "test", folder / "private"]
        if self.cfg.original_repo:
            hidden.append(Path(self.cfg.original_repo).resolve() / "datasets" / "test")
        hidden += [p for p in self.root.parent.glob("*/evals") if p.parent != self.root]
        return tuple(hidden)

    def method_job(self, ref, args: dict, folder: Path, start_model: str, readable: tuple[Path, ...] = (),
                   with_mapping: bool = False, answers: Path | None = None, data: Path | None = None):
        from sebench.methods import MethodJob
        from sebench.rollout import RolloutConfig, backend_options

        rollout = RolloutConfig(data=self.data, split="train", mode="closed", model=start_model, out=folder,
                                **{k: v for k, v in self.cfg.rollout.items() if k in ("concurrency", "device",
                                                                                        "batch_size", "threads")})
        options = backend_options(rollout)
        if method_launch(self.cfg):  # --gpus N: a method that trains may launch itself so (launch.py)
            options["launch"] = method_launch(self.cfg)
        return MethodJob(ref=ref, args=args, data=data or self.data, folder=folder, start_model=start_model,
                         seed=self.cfg.seed, hidden=self.hidden_paths(), readable=readable, answers=answers,
                         with_mapping=with_mapping, judge_workers=self.cfg.judge["workers"],
                         sandbox_urls=list(self.cfg.judge["sandbox_url"] or []),
                         backend_options=options, docs_only=self.docs_only)

    @property
    def docs_only(self) -> list[str]:
        """The studied functions made docs-only (RunConfig.docs_only): a seeded split of the subset's
        functions, else of every documented one; [] when unset or before the data exists."""
        if not self.cfg.docs_only or self.data is None:
            return []
        from sebench.instance import Instance
        from sebench.train import split_docs_only

        instance = Instance.open(self.data)
        studied = instance.manifest().get("subset", {}).get("functions") or [d.name for d in instance.api_docs()]
        return split_docs_only(studied, self.cfg.docs_only, self.cfg.seed)[1]

    def _docs_only_record(self) -> dict:
        """The docs-only functions for a training stage's record (absent when none, so earlier records match)."""
        docs_only = self.docs_only
        return {"docs_only": docs_only} if docs_only else {}

    def run_method(self, spec: str) -> list[tuple[str, str]]:
        """Runs a method named in `regimes` (stage train:<label>) and returns what to evaluate: (model, mode)."""
        from sebench.methods import METHOD_FILE, resolve, served_endpoint

        alias = self.cfg.method_aliases().get(spec)
        ref = replace(resolve(alias), label=spec) if alias else resolve(spec)
        args = self.cfg.method_arguments(ref.label)
        folder = self.root / "train" / ref.label
        answers = self.source_rollouts() if self.cfg.train_source == "rollouts" or ref.label == "memory" else None
        asked, network = self.cfg.method_fence(ref.label)
        rules = self.cfg.method_outputs(ref.label)
        env, timeout, prompt_timeout = self.cfg.method_process(ref.label)
        job = replace(self.method_job(ref, args, folder, self.start_model, readable=self._start_dirs(), answers=answers),
                      asked=asked, network=network, loopback=bool(method_launch(self.cfg)), output_rules=rules,
                      env=env, timeout=timeout)
        if prompt_timeout is not None:
            job = replace(job, prompt_timeout=prompt_timeout)
        record = {"spec": spec, "args": args, **({"read": [str(p) for p in asked], "network": network}
                                                  if asked or network else {}), **rules.record(),
                  **({"env": list(env)} if env else {}),
                  "source_sha256": ref.source_sha256(), "data": self._data_hash(),
                  "start_model": self.start_model, "answers": file_hash(answers) if answers else None,
                  **self._docs_only_record()}
        from sebench.methods import run_method

        # a built-in's source is sebench's own: like a regime's, its run goes on under a later sebench
        comparable = _without_source if ref.origin == "built-in" else None
        outputs = [folder, *([job.outputs] if job.outputs else [])]  # the copies it is evaluated from
        self.book.run(f"train:{ref.label}", record, outputs, lambda: run_method(job), comparable=comparable)
        self.book.check()
        self._method_jobs[ref.label] = job
        result = read_json(folder / METHOD_FILE)["result"]
        if result["kind"] == "endpoint":  # at the server the user declared, with the key named for it alone
            spec = f"openai:{result['model']}@{served_endpoint(ref.label, rules, result)}"
            self._endpoint_keys[spec] = rules.endpoint_key
            return [(spec, m) for m in self.cfg.trained_modes]
        if result["kind"] == "agent":
            return [(AGENT_PREFIX + ref.label, "closed")]
        path = Path(result["path"])
        model = self._trained_spec(path) if path.is_dir() else str(path)
        return [(model, "open")] if result["docs_at_test_time"] else [(model, m) for m in self.cfg.trained_modes]

    @property
    def start_model(self) -> str:
        """What a method starts from: the warmed-up base, else --train-model, else --model (a served model
        too: a method that needs weights says so itself)."""
        return str(self.base) if self.base else self.cfg.train_model or self.cfg.model

    def _start_dirs(self) -> tuple[Path, ...]:
        start = Path(self.start_model)
        return (start,) if start.is_dir() else ()

    def _agent_backend(self, label: str, rollout_cfg):
        from sebench.methods import METHOD_FILE, AgentBackend

        job = self._method_jobs[label]
        result = read_json(job.folder / METHOD_FILE)["result"]
        return AgentBackend(job, result, batch_size=rollout_cfg.batch_size or rollout_cfg.concurrency)

    # ---- report ----------------------------------------------------------------------------------

    def report(self) -> Path:
        from sebench.report import build_report

        out = self.root / "report"
        self.book.check()
        inputs = {_rel(self.root, p): file_hash(p) for p in sorted([*self.root.glob("evals/*/*/*/verdicts.jsonl"),
                                                                    *self.root.glob("evals/*/name_recall.json")])}
        config = {"verdicts": inputs, **({"not_trained": self.not_trained} if self.not_trained else {})}
        data = self.data if self.data and not self.data.is_relative_to(self.root) else None  # a --data DIR outside the run
        self.book.run("report", config, [out], lambda: build_report([self.root], out, data=data), derived=True)
        return out / "report.md"

    # ---- manifest --------------------------------------------------------------------------------

    def _data_hash(self) -> str:
        return file_hash(self.data / "manifest.json")

    def _start_manifest(self) -> None:
        manifest = read_json(self.root / "manifest.json") or {}
        commands = manifest.get("commands", [])
        commands.append({"argv": self.argv, "started": self.started})
        self._write_manifest(commands=commands, finished=False)

    def finish_manifest(self) -> None:
        """The manifest of a finished study (the command recorded even where every stage was done already)."""
        if self.book.starting is not None:
            self.book.starting()
            self.book.starting = None
        self._update_manifest(finished=True)

    def _update_manifest(self, finished: bool) -> None:
        self._write_manifest(commands=None, finished=finished)

    def _write_manifest(self, commands: list | None, finished: bool) -> None:
        """Writes manifest.json; `commands` None keeps the ones it lists."""
        records = self.book.records()
        previous = read_json(self.root / "manifest.json") or {}
        if commands is None:
            commands = previous.get("commands", [])
        data = self.data or (self.root / ("data" if self.cfg.functions else "instance"))
        manifest = {
            "sebench_version": __version__,
            "model": self.cfg.model,
            "seed": self.cfg.seed,
            "preset": self.cfg.preset,
            "data": _rel(self.root, data) if data.is_relative_to(self.root) else str(data),
            "config": self.cfg.to_dict(),
            "versions": versions(),
            "commands": commands,
            "finished": finished,
            "total_seconds": round(sum(r.get("seconds", 0.0) for r in records), 1),
            "peak_rss_mb": max((r.get("peak_rss_mb") or 0.0 for r in records), default=0.0),
            "not_trained": self.not_trained,
            "isolation": _isolation_record(),
            # known once the studied functions are; until then, as the run's last manifest says
            "docs_only": self.docs_only if self.data is not None else previous.get("docs_only", []),
            "data_hashes": _data_hashes(data),
            "stages": {r["stage"]: {k: r.get(k) for k in ("status", "seconds", "attempts", "started", "finished",
                                                          "peak_rss_mb", "threads", "outputs")} for r in records},
        }
        write_json(self.root / "manifest.json", manifest)


TO_BE_MADE = "(made anew by this command)"  # a hash the preflight cannot know: that of an output not made yet
TRUSTED_IN_INSTANCE = ("manifest.json", "package", "datasets", "private")  # of an instance given with --instance


def _hash_if(done: bool, manifest: Path) -> str:
    """The hash of a done stage's manifest, else TO_BE_MADE (the stage will make it anew)."""
    return file_hash(manifest) if done and manifest.is_file() else TO_BE_MADE


def _has_weights(model: str) -> bool:
    """Whether a model spec names weights that load here (the embedded model, hf:..., a folder)."""
    from sebench.models import EMBEDDED_DEFAULT

    return model == EMBEDDED_DEFAULT or model.startswith("hf:") or Path(model).is_dir()


def _isolation_record() -> dict:
    """The layer that keeps methods' processes to their allow-list here (docs/methods.md)."""
    from sebench.methods import isolation_layer, landlock_abi

    layer = isolation_layer()
    return {"layer": layer, "landlock_abi": landlock_abi(layer)}


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def sizes_dict(sizes) -> dict | None:
    return None if sizes is None else {"train": sizes.train, "single": sizes.single, "multiple": sizes.multiple}


def _data_hashes(data: Path) -> dict:
    manifest = read_json(data / "manifest.json") if data.is_dir() else None
    if not manifest:
        return {}
    return {"manifest.json": file_hash(data / "manifest.json"), **manifest.get("hashes", {})}


def _without_source(record: dict) -> dict:
    """A method stage's record without the hash of the method's source (for built-in methods)."""
    return {k: v for k, v in record.items() if k != "source_sha256"}

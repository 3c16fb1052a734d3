"""`sebench run --preset lifelong`: the lifelong schedule (experiment/lifelong.py) run stage by stage.

Run directory (beside Study's manifest.json and stages/):

    RUN_DIR/instances/base, instances/L<i>          the base's library and library i's instance (NumPy's)
    RUN_DIR/instances/<library>.L<i>                 the cross design's other library at position i
    RUN_DIR/data/<library>/                          the studied subset of a library (L1, same.L2, disjoint.L2, ...)
    RUN_DIR/train/<model>/checkpoint/                the model after a step (after-L1, same.after-L2, ...)
    RUN_DIR/evals/<model>/<library>/closed/<split>/  rollouts.jsonl, verdicts.jsonl, summary.json
    RUN_DIR/evals/<model>/<library>/open/<split>/    the same open-book, for the cross design's transfer
    RUN_DIR/lifelong.json                            the schedule: libraries, their data and packages, tracks
    RUN_DIR/report/                                  report.md, report.json, matrices.png (report/continual.py)

Every build, selection, warm-up, training and evaluation goes through the StageBook, so a re-run skips
what is done and a later command with more tracks (replay shares, the at-once reference) adds only those.
"""

from __future__ import annotations

import logging
from pathlib import Path

from sebench.experiment.lifelong import (
    BASE,
    LIBRARY_SEED_STEP,
    NUMPY,
    Library,
    LifelongConfig,
    Step,
    library_functions,
    schedule,
)
from sebench.experiment.run import Study, sizes_dict
from sebench.experiment.state import check_run_folder, file_hash, read_json, write_json
from sebench.report import SCHEDULE_FILE

log = logging.getLogger(__name__)

MODE = "closed"
OPEN = "open"  # the cross design's transfer is also measured open-book


class LifelongStudy(Study):
    """Study's stages, run over the lifelong schedule's libraries, steps and tracks."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.plan = schedule(LifelongConfig(**self.cfg.lifelong))
        self.data = self.root / "data"  # the folder of the libraries' subsets (the manifest names it)
        self.libraries: dict[str, Path] = {}  # library label -> its studied subset
        self.functions: dict[str, list[str]] = {}  # library label -> its studied functions, every design's

    def run(self) -> Path:
        check_run_folder(self.root)
        self.train_model  # noqa: B018 - fails now, not after the builds, if there are no weights to train
        k = self.cfg.lifelong["libraries"]
        positions = range(0 if self.cfg.warmup else 1, k + 1)
        instances = {i: self.build_library(i) for i in positions}
        self.functions = library_functions(k, lambda i, exclude: self._choose(instances[i], exclude),
                                           lambda i, functions: _relatives(instances[i], functions))
        others = {lib.position: self.build_library(lib.position, lib.source)
                  for lib in self.plan.libraries if lib.source != NUMPY}
        self.functions.update(self._cross_functions(others))
        for lib in self.plan.libraries:
            instance = instances[lib.position] if lib.source == NUMPY else others[lib.position]
            self.libraries[lib.label] = self.select(lib.label, instance, lib.source)
        if self.cfg.warmup:
            self.base = self.warm_up_on(instances[0], studied=",".join(self._base_names(instances[0])))
        self.write_schedule(instances.get(0))
        try:
            self.evaluate_model(BASE, self.base_model, None)
            for step in self.plan.steps:
                self.close_backend()  # free the memory for training
                self.train_step(step)
                checkpoint = self.checkpoint_dir(step.label)
                self.evaluate_model(step.label, self._trained_spec(checkpoint), self._checkpoint_hash(step.label))
        finally:
            self.close_backend()
        report = self.report()
        self.finish_manifest()
        return report

    # ---- libraries -------------------------------------------------------------------------------

    def build_library(self, position: int, source: str = NUMPY) -> Path:
        """Library `position`'s instance of `source` (0: the base's library, with training tasks for the
        warm-up)."""
        cfg = self.cfg
        name = "base" if position == 0 else f"L{position}" if source == NUMPY else f"{source}.L{position}"
        out = self.root / "instances" / name
        seed = LIBRARY_SEED_STEP * cfg.seed + position
        sizes = self._sizes(cfg.build_train, 0, 0) if position == 0 else None
        self.book.run(f"build:{name}", self.build_config(seed, sizes, source), [out],
                      lambda: self.build(out, seed, sizes, source))
        return out

    def _cross_functions(self, others: dict[int, Path]) -> dict[str, list[str]]:
        """The cross design's studied functions: NumPy's positions study L1's, the other library's positions
        the functions chosen (by the run seed) at its first position."""
        cross = [lib for lib in self.plan.libraries if lib.design == "cross"]
        if not cross:
            return {}
        chosen = self._choose(others[min(others)], frozenset(), cross[0].source)
        return {lib.label: self.functions["L1"] if lib.source == NUMPY else chosen for lib in cross}

    def _choose(self, instance: Path, exclude: frozenset[str], source: str = NUMPY) -> list[str]:
        from sebench.experiment.select import choose_functions, library_templates
        from sebench.instance import Instance

        inst = Instance.open(instance)
        return choose_functions(library_templates(inst, source), inst.mapping()["functions"], self.cfg.functions,
                                self.cfg.seed, exclude)

    def select(self, label: str, instance: Path, source: str = NUMPY) -> Path:
        """The library's studied subset: its functions' tasks, generated with the run seed."""
        from sebench.experiment.select import write_subset
        from sebench.instance import Instance

        out = self.root / "data" / label
        sizes, functions = self.subset_sizes(), self.functions[label]
        config = {"functions": functions, "seed": self.cfg.seed, "task_sizes": sizes_dict(sizes),
                  "instance": file_hash(instance / "manifest.json")}
        self.book.run(f"select:{label}", config, [out], lambda: write_subset(
            Instance.open(instance), out, len(functions), self.cfg.seed, sizes, functions=functions, library=source))
        return out

    def _base_names(self, instance: Path) -> list[str]:
        """The public names, in the base's library, of every function that any library of either design
        studies."""
        from sebench.instance import Instance

        names = Instance.open(instance).mapping()["functions"]
        return sorted({names[f] for functions in self.functions.values() for f in functions if f in names})

    def write_schedule(self, base_instance: Path | None) -> None:
        """RUN_DIR/lifelong.json, which the report reads; tracks of earlier commands stay listed."""
        from sebench.instance import Instance

        path = self.root / SCHEDULE_FILE
        old = read_json(path) or {}
        libraries = {**old.get("libraries", {}), **{
            lib.label: {"position": lib.position, "design": lib.design, "data": f"data/{lib.label}",
                        "package": Instance.open(self.libraries[lib.label]).package_name,
                        "functions": self.functions[lib.label], **_source(lib)} for lib in self.plan.libraries}}
        tracks = {t["name"]: t for t in old.get("tracks", [])}
        tracks.update({t.name: t.to_dict() for t in self.plan.tracks})
        transfers = {t["model"]: t for t in old.get("transfers", [])}
        transfers.update({t.model: t.to_dict() for t in self.plan.transfers})
        write_json(path, {
            "seed": self.cfg.seed, "mode": MODE, "splits": list(self.cfg.splits), "libraries": libraries,
            "base_library": {"data": "instances/base", "package": Instance.open(base_instance).package_name}
            if base_instance else None,
            "tracks": list(tracks.values()),
            **({"transfers": list(transfers.values()), "transfer_modes": [MODE, OPEN]} if transfers else {}),
        })

    # ---- training and evaluation -----------------------------------------------------------------

    def train_step(self, step: Step) -> None:
        """Closed-SFT on the step's library (and its share of the mixed ones) from its start."""
        from sebench.train import TrainConfig

        cfg = self.cfg
        start = self.train_model if step.start is None else str(self.checkpoint_dir(step.start))
        mixed = [str(self.libraries[label]) for label in step.mixed]
        train = TrainConfig(data=self.libraries[step.library], regime="closed-sft", out=self.checkpoint_dir(step.label),
                            model=start, train_source="reference", seed=cfg.seed, judge_workers=cfg.judge["workers"],
                            mix_data=mixed or None, mix_share=step.mix_share, **cfg.train_settings("closed-sft"))
        started_from = start if step.start is None else {"after": step.start,
                                                         "weights": self._checkpoint_hash(step.start)}
        self.run_training(step.label, train, data=self._library_hash(step.library), model=started_from,
                          mix_data=[self._library_hash(label) for label in step.mixed] or None)

    def evaluate_model(self, label: str, model: str, weights: str | None) -> None:
        """The model closed-book on every library of the tracks it is a row of, and open-book on the targets
        of the transfers it takes part in."""
        asked = [(library, MODE) for library in self.plan.evaluated_on(label)]
        asked += [(library, OPEN) for library in self.plan.open_on(label)]
        for library, mode in asked:
            for split in self.cfg.splits:
                if self._has_tasks(split, self.libraries[library]):
                    self.evaluate_on(self.libraries[library], f"{label}/{library}", model, mode, split, weights)

    def _library_hash(self, label: str) -> str:
        return file_hash(self.libraries[label] / "manifest.json")

    # ---- report ----------------------------------------------------------------------------------

    def report(self) -> Path:
        from sebench.report import build_continual_report

        out = self.root / "report"
        inputs = {p.relative_to(self.root).as_posix(): file_hash(p)
                  for p in sorted(self.root.glob("evals/*/*/*/*/*.jsonl"))}
        config = {"schedule": file_hash(self.root / SCHEDULE_FILE), "evaluations": inputs}
        self.book.run("report", config, [out], lambda: build_continual_report([self.root], out), derived=True)
        return out / "report.md"


def _source(lib: Library) -> dict:
    """A library's entry names the library it renames when it is not NumPy (NumPy-only schedules unchanged)."""
    return {"library": lib.source} if lib.source != NUMPY else {}


def _relatives(instance: Path, functions: list[str]) -> set[str]:
    """`functions` (mapping keys) and their relatives in `instance` (warmup.excluded_functions)."""
    from sebench.experiment.warmup import excluded_functions
    from sebench.instance import Instance

    inst = Instance.open(instance)
    names = inst.mapping()["functions"]
    originals = {public: key for key, public in names.items()}
    related = excluded_functions(inst.api_docs(), [names[f] for f in functions])
    return {originals[public] for public in related if public in originals}

"""`sebench run`: the whole study in one resumable command (build, evaluate, train, evaluate, report).

    sebench run --out runs/quick --preset quick
    sebench run --out runs/gpu --preset gpu --model hf:Qwen/Qwen3-8B
    sebench run --out runs/mine --preset quick --regimes open-sft closed-sft --set train.epochs=4

Stages and their records: see sebench.experiment.run and sebench.experiment.state. Presets:
sebench.experiment.config.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from sebench.cliflags import add_config_flags, flag_fields, flag_name, value_type
from sebench.errors import SebenchError

# flags that set one field of a stage's section: flag name -> (section, field); the help is the field's own
SECTION_FLAGS = {"samples": ("rollout", "n"), "max_tokens": ("rollout", "max_tokens"), "thinking": ("rollout", "thinking"),
                 "epochs": ("train", "epochs"), "gpus": ("launch", "gpus")}


def register(subparsers: argparse._SubParsersAction) -> None:
    from sebench.experiment.config import PRESETS, SECTIONS, RunConfig
    from sebench.experiment.plan import PlanConfig

    p = subparsers.add_parser(
        "run",
        help="the whole study: build, evaluate, train, evaluate, report (resumable)",
        description="Builds an instance, evaluates the untrained model in the preset's modes (closed-book, "
        "open-book, ...), trains the chosen regimes, evaluates each trained model, judges everything and writes "
        "RUN_DIR/report/. Each stage "
        "records its completion under RUN_DIR/stages/; running the same command again skips finished stages "
        "and resumes unfinished ones. Presets (times on 2 CPU cores: docs/presets.md): quick (the embedded model, "
        "closed-book only: about 6 min), cpu (the paper's four headline regimes from a warmed-up base, 24 functions: "
        "about 4.5 h), paper-mini (every regime, 20 functions: about 3.5-4.5 h a seed), inject (learning from the docs alone, "
        "20 functions: about 3-4 h a seed), lifelong (libraries learned one after another, retention and "
        "interference: about 1.7 h a seed), eval (no training: the untrained model on the full test splits, "
        "closed-book and open-book, 5 samples at T 0.6 with 8192 tokens, as the paper evaluates; --plan says how "
        "long), gpu (full sizes with the paper's hyperparameters, under sebench's "
        "protocol unless --protocol original; --plan says how many hours). Besides the regimes, --regimes takes the variants a preset defines ("
        + "; ".join(f"{label}: a {variant['regime']} variant, in {', '.join(presets)}"
                    for label, (variant, presets) in _variants(PRESETS).items())
        + ") and methods (`sebench methods`). The study's settings below override the preset's.",
    )
    p.add_argument("--out", type=Path, required=True, metavar="RUN_DIR", help="run directory")
    p.add_argument("--preset", choices=sorted(PRESETS), default="quick", help="sizes and settings (default: quick)")
    p.add_argument("--seeds", type=_seed_list, metavar="S1,S2,...", help="run each seed in RUN_DIR/seed-S (each "
                   "resumable) and pool them in RUN_DIR/report")
    add_config_flags(p, RunConfig, overrides=True)
    for flag, (section, name) in SECTION_FLAGS.items():
        cls = SECTIONS[section].config_cls
        field = next(f for f in dataclasses.fields(cls) if f.name == name)
        p.add_argument(flag_name(flag), dest=flag, type=value_type(cls, field),
                       help=f"{field.metadata['help']} ({section}.{name})")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any other setting of the preset (--show-config lists them): a study setting, e.g. "
                   "--set trained_modes='[\"closed\"]', or a stage's field, e.g. --set train.lr=1e-4, "
                   "--set train_regimes.closed-rl.max_steps=48, --set rollout.max_tokens=256, --set judge.workers=2")
    p.add_argument("-M", "--method-arg", action="append", default=[], metavar="[LABEL.]KEY=VALUE",
                   help="an argument of a method named in --regimes (LABEL: its label, as `sebench methods` shows; "
                   "may be left out when --regimes names one method); the same as --set methods.LABEL.KEY=VALUE")
    p.add_argument("--overwrite", action="store_true", help="redo stages whose settings changed")
    p.add_argument("--show-config", action="store_true", help="print the resolved settings and exit")
    p.add_argument("--plan", action="store_true", help="print what the study will cost and need, touching no GPU "
                   "and no network (per stage: prompts, samples, token budgets, steps; GPU memory per process for "
                   "full fine-tuning and LoRA on 1-8 GPUs; GPU-hours from a sourced throughput table; every check "
                   "that needs no GPU), write RUN_DIR/plan.json and exit (1 if a check fails)")
    add_config_flags(p.add_argument_group("the plan's hardware and assumptions (with --plan)"), PlanConfig)
    p.set_defaults(func=_main)


def _variants(presets: dict[str, dict]) -> dict[str, tuple[dict, list[str]]]:
    """Each variant label the presets define: its settings and the presets that define it."""
    found: dict[str, tuple[dict, list[str]]] = {}
    for name, preset in presets.items():
        for label, variant in preset.get("variants", {}).items():
            found.setdefault(label, (variant, []))[1].append(name)
    return found


def _seed_list(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seeds like 0,1,2, got '{text}'") from None
    if not seeds or len(set(seeds)) < len(seeds):
        raise argparse.ArgumentTypeError(f"expected distinct seeds like 0,1,2, got '{text}'")
    return seeds


def method_argument(text: str, regimes: list[str]) -> tuple[str, object]:
    """`-M [LABEL.]KEY=VALUE` as the setting methods.LABEL.KEY; without LABEL, the one method in `regimes`."""
    from sebench.experiment.config import parse_setting
    from sebench.methods import is_method_spec, resolve

    key, value = parse_setting(text, "-M")
    if "." not in key:
        labels = [resolve(r).label for r in regimes if is_method_spec(r)]
        if len(labels) != 1:
            raise SebenchError(f"-M {text}: name the method, -M LABEL.{key}=... (methods in --regimes: "
                               f"{', '.join(labels) or 'none'})")
        key = f"{labels[0]}.{key}"
    return f"methods.{key}", value


def _main(args: argparse.Namespace) -> int:
    import json

    from sebench.experiment.config import RunConfig, parse_setting, resolve
    from sebench.experiment.run import Study

    overrides = {}
    for f in flag_fields(RunConfig):  # the flags given, over the preset
        value = getattr(args, f.name)
        if value is not None:
            overrides[f.name] = str(Path(value).resolve()) if f.metadata.get("path") else value
    if overrides.get("functions") == 0:
        overrides["functions"] = None  # all the instance has
    overrides.update({f"{section}.{name}": getattr(args, flag) for flag, (section, name) in SECTION_FLAGS.items()
                      if getattr(args, flag) is not None})
    overrides.update(parse_setting(s) for s in args.set)
    overrides.update(method_argument(s, overrides.get("regimes") or resolve(args.preset, {}).regimes)
                     for s in args.method_arg)
    cfg = resolve(args.preset, overrides)
    _check_models(cfg)  # a misspelt model is named as such before its decoding is asked about
    _fit_decoding(cfg, overrides)
    if args.show_config:
        print(json.dumps(cfg.to_dict(), indent=1))
        return 0
    if args.plan:
        from sebench.cliflags import check_ranges, config_from_flags
        from sebench.experiment.plan import PlanConfig, write_plan

        plan_cfg = config_from_flags(PlanConfig, args)
        check_ranges(plan_cfg)
        plan, text = write_plan(cfg, args.out, plan_cfg)
        print(text)
        print(f"plan: {args.out / 'plan.json'}")
        return 1 if any(c["ok"] is False for c in plan["checks"]) else 0
    _check_disk(cfg, args.out, len(args.seeds or [0]))
    study, pool = Study, None
    if cfg.lifelong is not None:
        from sebench.experiment.lifelong_study import LifelongStudy
        from sebench.report import build_continual_report, summary_markdown

        study, pool = LifelongStudy, build_continual_report
    if args.seeds:
        from sebench.report import build_report

        if args.seed is not None:
            raise SebenchError("give --seed or --seeds, not both")
        runs = [args.out / f"seed-{seed}" for seed in args.seeds]
        studies = [study(resolve(args.preset, {**overrides, "seed": seed}), run_dir, overwrite=args.overwrite,
                         argv=sys.argv) for seed, run_dir in zip(args.seeds, runs)]
        for each in studies:
            each.preflight()  # every seed's checks before any seed's work
        for each in studies:
            each.run()
        report = (pool or build_report)(runs, args.out / "report")
    else:
        report = study(cfg, args.out, overwrite=args.overwrite, argv=sys.argv).run()
    data = json.loads(report.with_name("report.json").read_text(encoding="utf-8"))
    if pool:
        print(summary_markdown(data))
        print(f"report: {report}")
        return 0
    from sebench.report import main_table_markdown

    print(main_table_markdown(data["main_table"]))
    print(f"report: {report}")
    for label, why in data.get("not_trained", {}).items():
        print(f"sebench run: regime {label} was not trained: {why}", file=sys.stderr)
    return 1 if data.get("not_trained") else 0


def register_actions(actions: dict) -> None:
    """Adds `--preset` to `sebench train`: the preset's settings for --regime, resolved as `sebench run` resolves
    them (RunConfig.train_settings, per process under `accelerate launch`), under the flags given."""
    from sebench.experiment.config import PRESETS

    parser = actions["train"]
    parser.add_argument("--preset", choices=sorted(PRESETS), help="take the settings this preset gives --regime in "
                        "`sebench run` (its model, the train section, the regime's), under the flags given here")
    from sebench.train import TrainConfig

    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    for action in parser._actions:
        if action.dest in fields:
            action.__class__ = _recording(type(action))
    train = parser.get_default("func")
    parser.set_defaults(func=lambda args: train(_with_preset(args)))


def _recording(base: type) -> type:
    """`base` (an argparse action class) that also notes its flag as given (args._given)."""
    def call(self, parser, namespace, values, option_string=None):
        namespace._given = {*getattr(namespace, "_given", ()), self.dest}
        base.__call__(self, parser, namespace, values, option_string)

    return type(f"Given{base.__name__}", (base,), {"__call__": call})


def _with_preset(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with the preset's settings for its regime in place of the flags not given."""
    if not args.preset:
        return args
    import os

    from sebench.experiment.config import resolve
    from sebench.train import canonical_regime

    processes = int(os.environ.get("WORLD_SIZE", "1"))  # under `accelerate launch`: the per-process values
    regime = canonical_regime(args.regime)
    cfg = resolve(args.preset, {"regimes": [regime], **({"launch.gpus": processes} if processes > 1 else {})})
    given = getattr(args, "_given", set())
    study = {"model": cfg.train_model or cfg.model, "protocol": cfg.protocol, "original_repo": cfg.original_repo,
             "seed": cfg.seed, "train_source": cfg.train_source if regime in ("open-sft", "closed-sft") else None,
             "judge_workers": cfg.judge["workers"]}
    settings = cfg.train_settings(regime)
    settings["sandbox_url"] = settings.get("sandbox_url") or cfg.judge["sandbox_url"]  # as Study.train_config
    for name, value in {**study, **settings}.items():
        if name not in given and hasattr(args, name):
            setattr(args, name, value)
    return args


def _check_disk(cfg, out: Path, seeds: int) -> None:
    """Refuses a study whose checkpoints the disk under `out` cannot hold (the plan's disk check), before any
    work."""
    from sebench.experiment.plan import disk_check

    disk = disk_check(cfg, out, seeds)
    if disk is not None and disk["ok"] is False:
        raise SebenchError(f"not enough disk for this study: {disk['detail']}; free some, or choose another --out")


def _check_models(cfg) -> None:
    """Refuses an unknown model spec (with its "did you mean") and a served one that names no server."""
    from sebench.rollout import RolloutConfig, check_model_spec

    for model in dict.fromkeys(m for m in (cfg.model, cfg.train_model) if m):
        check_model_spec(RolloutConfig(data=Path("."), out=Path("."), model=model,
                                       base_url=cfg.rollout.get("base_url")))


def _fit_decoding(cfg, overrides: dict) -> None:
    """The model the study evaluates gets a budget that fits its thinking, or the run stops here, before
    anything runs, with one line asking for --thinking or --max-tokens (sebench.rollout.thinking)."""
    from sebench.protocols import PROTOCOLS
    from sebench.rollout import fit_decoding

    if not cfg.untrained_modes and not cfg.regimes:
        return
    given = "rollout.max_tokens" in overrides or "max_tokens" in (overrides.get("rollout") or {})
    budget = fit_decoding(cfg.model, cfg.rollout.get("thinking"), cfg.rollout.get("max_tokens"),
                          given or PROTOCOLS[cfg.protocol].max_tokens is not None)
    if budget != cfg.rollout.get("max_tokens"):
        cfg.rollout["max_tokens"] = overrides["rollout.max_tokens"] = budget

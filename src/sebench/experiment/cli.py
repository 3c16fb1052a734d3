"""`sebench run`: the whole study in one resumable command (build, evaluate, train, evaluate, report).

    sebench run --out runs/quick --preset quick
    sebench run --out runs/gpu --preset gpu --model hf:Qwen/Qwen3-8B
    sebench run --out runs/mine --preset quick --regimes open-sft closed-sft --set train.epochs=4

Stages and their records: see sebench.experiment.run and sebench.experiment.state. Presets:
sebench.experiment.config.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sebench.errors import SebenchError


def register(subparsers: argparse._SubParsersAction) -> None:
    from sebench.experiment.config import PRESETS, REGIMES

    p = subparsers.add_parser(
        "run",
        help="the whole study: build, evaluate, train, evaluate, report (resumable)",
        description="Builds an instance, evaluates the untrained model closed-book and open-book, trains the "
        "chosen regimes, evaluates each trained model, judges everything and writes RUN_DIR/report/. Each stage "
        "records its completion under RUN_DIR/stages/; running the same command again skips finished stages "
        "and resumes unfinished ones. Presets: quick (the embedded model on a CPU: 6 min measured on 2 cores), cpu (the "
        "paper's four headline regimes from a warmed-up base, 24 functions), paper-mini (every regime, 8 functions), "
        "gpu (the paper's recipe, full sizes), lifelong (libraries learned one after another: retention and interference).",
    )
    p.add_argument("--out", type=Path, required=True, metavar="RUN_DIR", help="run directory")
    p.add_argument("--preset", choices=sorted(PRESETS), default="quick", help="sizes and settings (default: quick)")
    p.add_argument("--model", help="model spec: smollm2-135m, a local HF folder, hf:<path or id>, "
                   "openai:<model>@<url> (evaluation only), fake:... (tests)")
    p.add_argument("--train-model", help="weights to train from when --model is a server (openai:...), "
                   "e.g. hf:Qwen/Qwen3-8B; default: --model")
    p.add_argument("--seed", type=int, help="seed of the instance, the task subset, sampling and training")
    p.add_argument("--seeds", type=_seed_list, metavar="S1,S2,...", help="run each seed in RUN_DIR/seed-S (each "
                   "resumable) and pool them in RUN_DIR/report")
    p.add_argument("--regimes", nargs="*", metavar="REGIME", help=f"training regimes: {' '.join(REGIMES)} "
                   "(none: evaluate the untrained model only)")
    p.add_argument("--instance", type=Path, metavar="DIR", help="use this built instance instead of building one")
    p.add_argument("--functions", type=int, help="number of functions studied (0: all the instance has)")
    p.add_argument("--samples", type=int, help="samples per task (pass@k needs k or more): rollout.n")
    p.add_argument("--max-tokens", type=int, help="longest answer, in tokens: rollout.max_tokens")
    p.add_argument("--epochs", type=float, help="training epochs of every regime: train.epochs")
    p.add_argument("--protocol", choices=("sebench", "original"), help="evaluation protocol (default: sebench); "
                   "original: the original benchmark's prompts, decoding and judge (docs/protocols.md)")
    p.add_argument("--original-repo", type=Path, metavar="DIR", help="your copy of the original SE-Bench "
                   "repository (--protocol original reads its prompt templates there)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any other setting of the preset (--show-config lists them): a study setting, e.g. "
                   "--set trained_modes='[\"closed\"]', or a stage's field, e.g. --set train.lr=1e-4, "
                   "--set train_regimes.closed-rl.max_steps=48, --set rollout.max_tokens=256, --set judge.workers=2")
    p.add_argument("--overwrite", action="store_true", help="redo stages whose settings changed")
    p.add_argument("--show-config", action="store_true", help="print the resolved settings and exit")
    p.set_defaults(func=_main)


def _seed_list(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seeds like 0,1,2, got '{text}'") from None
    if not seeds or len(set(seeds)) < len(seeds):
        raise argparse.ArgumentTypeError(f"expected distinct seeds like 0,1,2, got '{text}'")
    return seeds


def _main(args: argparse.Namespace) -> int:
    import json

    from sebench.experiment.config import parse_setting, resolve
    from sebench.experiment.run import Study

    overrides = {k: v for k, v in (
        ("model", args.model), ("train_model", args.train_model), ("seed", args.seed), ("regimes", args.regimes),
        ("instance", str(args.instance.resolve()) if args.instance else None), ("rollout.n", args.samples),
        ("rollout.max_tokens", args.max_tokens), ("train.epochs", args.epochs), ("protocol", args.protocol),
        ("original_repo", str(args.original_repo.resolve()) if args.original_repo else None),
    ) if v is not None}
    if args.functions is not None:
        overrides["functions"] = args.functions or None
    overrides.update(parse_setting(s) for s in args.set)
    cfg = resolve(args.preset, overrides)
    if args.show_config:
        print(json.dumps(cfg.to_dict(), indent=1))
        return 0
    study, pool = Study, None
    if cfg.lifelong is not None:
        from sebench.experiment.lifelong_study import LifelongStudy
        from sebench.report.continual_report import build_continual_report, summary_markdown

        study, pool = LifelongStudy, build_continual_report
    if args.seeds:
        from sebench.report import build_report

        if args.seed is not None:
            raise SebenchError("give --seed or --seeds, not both")
        runs = [args.out / f"seed-{seed}" for seed in args.seeds]
        for seed, run_dir in zip(args.seeds, runs):
            study(resolve(args.preset, {**overrides, "seed": seed}), run_dir, overwrite=args.overwrite,
                  argv=sys.argv).run()
        report = (pool or build_report)(runs, args.out / "report")
    else:
        report = study(cfg, args.out, overwrite=args.overwrite, argv=sys.argv).run()
    data = json.loads(report.with_name("report.json").read_text(encoding="utf-8"))
    if pool:
        print(summary_markdown(data))
        print(f"report: {report}")
        return 0
    from sebench.report.build import main_table_markdown

    print(main_table_markdown(data["main_table"]))
    print(f"report: {report}")
    for label, why in data.get("not_trained", {}).items():
        print(f"sebench run: regime {label} was not trained: {why}", file=sys.stderr)
    return 1 if data.get("not_trained") else 0

"""`sebench submit`, `sebench verify` and `sebench leaderboard` (docs/leaderboard.md)."""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("submit", help="pack one method's run into a bundle to send or attach",
                              description="Writes BUNDLE (tar.gz): the method's source, arguments and record, the "
                              "run's manifest, the method's and the untrained model's answers and verdicts (without "
                              "the test tasks), the report's rows, a lock of the packages and a card with the "
                              "checklist.")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory of `sebench run`")
    p.add_argument("--method", required=True, metavar="LABEL", help="the method's label in the run (its folder "
                   "under RUN_DIR/train/)")
    p.add_argument("--out", type=Path, required=True, metavar="BUNDLE", help="the bundle to write (.tar.gz)")
    p.add_argument("--checkpoint-hub", metavar="ID", help="where the trained checkpoint is published (a hub id)")
    p.set_defaults(func=_submit)

    p = subparsers.add_parser("verify", help="check a bundle from its contents; re-run its method",
                              description="Rebuilds the seed's instance and compares every data hash, judges every "
                              "answer again, recomputes the table; prints 'verified' or the first mismatch (exit 1). "
                              "Writes BUNDLE.verify.json, which `sebench leaderboard` reads for its marks.")
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--rerun", action="store_true", help="also train the method again from its source and compare "
                   "(task by task when greedy, else within the interval)")
    p.add_argument("--seeds-file", type=Path, metavar="FILE", help="with --rerun: run on these seeds (one a line, "
                   "none of them the bundle's) instead: the held-out result")
    p.add_argument("--work", type=Path, metavar="DIR", help="where re-runs are written, else where the instance is rebuilt (default: a temporary "
                   "folder); an instance rebuilt there is reused by later verifications with the same settings")
    p.add_argument("--record", type=Path, metavar="FILE", help="where to write the verification (default: "
                   "BUNDLE.verify.json)")
    p.add_argument("--workers", type=int, metavar="N", help="programs judged at once (default: the CPUs)")
    p.set_defaults(func=_verify)

    p = subparsers.add_parser("leaderboard", help="rank bundles on a static page",
                              description="Writes DIR/index.html, DIR/leaderboard.md and DIR/leaderboard.json from "
                              "bundles (and their BUNDLE.verify.json), with the paper's reported rows.")
    p.add_argument("bundles", type=Path, nargs="*", metavar="BUNDLE")
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.set_defaults(func=_leaderboard)


def _submit(args: argparse.Namespace) -> int:
    from sebench.submit.bundle import write_bundle

    out = write_bundle(args.run_dir, args.method, args.out, args.checkpoint_hub)
    print(f"bundle: {out}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from sebench.errors import SebenchError
    from sebench.submit.bundle import read_bundle
    from sebench.submit.rerun import read_seeds, rerun_bundle
    from sebench.submit.verify import check_seeds, record_path, verify_bundle, write_record

    if args.seeds_file and not args.rerun:
        raise SebenchError("--seeds-file: give it with --rerun")
    seeds = read_seeds(args.seeds_file) if args.seeds_file else None
    if seeds:
        check_seeds(seeds, read_bundle(args.bundle))
    # a re-run's method must not find the rebuilt test split: with --rerun it is rebuilt in a temporary folder
    result = verify_bundle(args.bundle, args.workers, None if args.rerun else args.work)
    if result.verified and args.rerun:
        with tempfile.TemporaryDirectory(prefix="sebench-rerun-") as tmp:
            outcome = rerun_bundle(args.bundle, args.work or Path(tmp), seeds)
        result = replace(result, held_out=outcome) if seeds else replace(result, rerun=outcome)
    write_record(result, args.record or record_path(args.bundle))
    print(_summary(result))
    return 0 if result.verified and (result.rerun or {}).get("reproduced", True) else 1


def _summary(result) -> str:
    if not result.verified:
        return f"mismatch: {result.mismatch}"
    lines = ["verified"]
    if result.rerun:
        rerun = result.rerun
        lines.append(f"re-run: {'reproduced' if rerun['reproduced'] else 'not reproduced'}, {rerun['rule']}"
                     + (f": {rerun['mismatch']}" if rerun["mismatch"] else ""))
    if result.held_out:
        seeds = result.held_out["seeds"]
        lines.append(f"held-out ({seeds} seed{'s' if seeds != 1 else ''}): " + json.dumps(
            {f"{r['regime']} {r['mode']} {r['split']}": round(r["accuracy"], 4) for r in result.held_out["rows"]}))
    return "\n".join(lines)


def _leaderboard(args: argparse.Namespace) -> int:
    from sebench.submit.leaderboard import write_leaderboard

    page = write_leaderboard(args.bundles, args.out)
    print(f"leaderboard: {page}")
    return 0

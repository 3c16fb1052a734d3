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
                              description="Rebuilds the seed's instance, checks that every test task has its "
                              "answers, judges every answer again (the untrained model's too), recomputes the table "
                              "and checks the card against the run's records. The first line names the level "
                              "reached (re-judged, reproduced, held-out) or the first mismatch (exit 1); a bundle "
                              "that cannot be read safely is one line and exit 2. Keeps the result in STORE.")
    p.add_argument("bundle", type=Path, metavar="BUNDLE", help="the bundle to verify (a .tar.gz of `sebench submit`)")
    p.add_argument("--rerun", action="store_true", help="also train the method again from its source, inside the "
                   "fence, evaluate it and the untrained model, and compare (task by task when greedy, else a "
                   "paired sign-flip test)")
    p.add_argument("--seeds-file", type=Path, metavar="FILE", help="with --rerun: run on these seeds (one a line, "
                   "none of them the bundle's) instead: the held-out result")
    p.add_argument("--work", type=Path, metavar="DIR", help="where re-runs are written, else where the instance is "
                   "rebuilt (default: a temporary folder); an instance rebuilt there is reused by later "
                   "verifications with the same settings")
    p.add_argument("--model", metavar="SPEC", help="with --rerun: the base model here (hf:PATH), when the bundle "
                   "names a local one by its folder's name and sha256")
    p.add_argument("--original-repo", type=Path, metavar="DIR", help="with --rerun: your copy of the original "
                   "SE-Bench, for a bundle of --protocol original (a re-run reads no path a bundle names)")
    p.add_argument("--store", type=Path, metavar="DIR", help="where verifications are kept, one DIR/<sha256 of the "
                   "bundle>.json each (default: sebench's cache folder, verifications/)")
    p.add_argument("--workers", type=int, metavar="N", help="programs judged at once (default: the CPUs)")
    p.set_defaults(func=_verify)

    p = subparsers.add_parser("leaderboard", help="rank bundles on a static page",
                              description="Verifies every bundle itself (a file beside a bundle is never read), "
                              "ranks the reproduced ones, lists the others apart, and writes DIR/index.html, "
                              "DIR/leaderboard.md and DIR/leaderboard.json with the paper's reported rows.")
    p.add_argument("bundles", type=Path, nargs="*", metavar="BUNDLE", help="the bundles to rank (.tar.gz of "
                   "`sebench submit`), each verified as `sebench verify` does")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the page is written: "
                   "DIR/index.html, DIR/leaderboard.md and DIR/leaderboard.json")
    p.add_argument("--store", type=Path, metavar="DIR", help="the verifier's store (as `sebench verify --store`): "
                   "verifications of these very bytes are read there, new ones kept there")
    p.add_argument("--ledger", type=Path, metavar="DIR", help="the maintainers' records of re-runs and held-out "
                   "results (LEDGER/<sha256>.json from `sebench verify --rerun --store LEDGER`)")
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
    from sebench.submit.verify import check_seeds, default_store, verify_bundle, write_record

    if args.seeds_file and not args.rerun:
        raise SebenchError("--seeds-file: give it with --rerun")
    if args.original_repo and not args.rerun:
        raise SebenchError("--original-repo: give it with --rerun")
    seeds = read_seeds(args.seeds_file) if args.seeds_file else None
    bundle = read_bundle(args.bundle)  # once: the bytes verified are the bytes re-run and the digest stored
    if seeds:
        check_seeds(seeds, bundle)
    # a re-run's method must not find the rebuilt test split: with --rerun it is rebuilt in a temporary folder
    result = verify_bundle(args.bundle, args.workers, None if args.rerun else args.work, bundle=bundle)
    if result.verified and args.rerun:
        with tempfile.TemporaryDirectory(prefix="sebench-rerun-") as tmp:
            outcome = rerun_bundle(args.bundle, args.work or Path(tmp), seeds, args.model, args.original_repo,
                                   bundle=bundle)
        result = replace(result, held_out=outcome) if seeds else replace(result, rerun=outcome)
    write_record(result, args.store or default_store())
    print(summary(result))
    return 0 if result.verified and (result.rerun or {}).get("reproduced", True) else 1


def summary(result) -> str:
    """The first line names the level reached, or what failed; the lines after it, the rest."""
    from sebench.submit.verify import LEVEL_TEXT

    if not result.verified:
        return f"mismatch: {result.mismatch}"
    rejudged = f"re-judged: {LEVEL_TEXT['re-judged']} ({result.answers} answers)"
    lines = [rejudged]
    if result.rerun:
        rerun = result.rerun
        lines.insert(0, f"reproduced: {rerun['rule']}" if rerun["reproduced"]
                     else f"not reproduced ({rerun['rule']}): {rerun['mismatch']}")
    if result.held_out:
        seeds = result.held_out["seeds"]
        lines.insert(0, f"held-out ({seeds} seed{'s' if seeds != 1 else ''}): " + json.dumps(
            {f"{r['regime']} {r['mode']} {r['split']}": round(r["accuracy"], 4) for r in result.held_out["rows"]}))
    return "\n".join(lines)


def _leaderboard(args: argparse.Namespace) -> int:
    from sebench.errors import SebenchError
    from sebench.submit.leaderboard import write_leaderboard

    for path in args.bundles:  # a mistyped path is the user's, refused; a bundle that is a file fails on the board
        if not path.is_file():
            what = "a directory" if path.is_dir() else "no such file"
            raise SebenchError(f"{path}: {what}; give bundles made by `sebench submit` (.tar.gz)")
    page = write_leaderboard(args.bundles, args.out, args.store, args.ledger)
    print(f"leaderboard: {page}")
    return 0

"""`sebench judge` (flags generated from JudgeConfig) and `sebench sandbox serve`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sebench.cliflags import config_command, port_number
from sebench.protocols import DEFAULT as DEFAULT_PROTOCOL
from sebench.protocols import PROTOCOLS

if TYPE_CHECKING:
    from sebench.judge.run import JudgeConfig


def register(subparsers) -> None:
    _register_judge(subparsers)
    _register_sandbox(subparsers)


def _register_judge(subparsers) -> None:
    from sebench.judge.run import JudgeConfig

    config_command(
        subparsers, "judge", JudgeConfig, _judge,
        help="judge rollouts in the sandbox: verdicts, accuracy, pass@k",
        description="Judge a rollouts file (ours, or the original's query/response/test_cases format) against "
        "an instance: extract the code, apply the static rules, run the tests in the sandbox, compare; writes "
        "one verdict per rollout and prints a summary table.",
    )


def _judge(cfg: JudgeConfig, _args: argparse.Namespace) -> int:
    from sebench.judge.run import write_verdicts
    from sebench.judge.summary import format_table

    out, summary = write_verdicts(cfg)
    print(format_table(summary))
    print(f"verdicts: {out}" + (f"; summary: {cfg.summary}" if cfg.summary else ""))
    unjudged = summary["overall"]["counts"].get("judge_error", 0)
    if unjudged:
        print(f"sebench judge: {unjudged} of {summary['overall']['n']} samples could not be judged "
              f"(judge_error; the reason is in each verdict's detail.message in {out})", file=sys.stderr)
        return 1
    return 0


def _register_sandbox(subparsers) -> None:
    parser = subparsers.add_parser("sandbox", help="the sandbox as an HTTP server (serve)",
                                   description="Run the judge's sandbox as a service.")
    sub = parser.add_subparsers(dest="sandbox_command", metavar="SUBCOMMAND")
    serve = sub.add_parser(
        "serve", help="serve POST /run (the original's API), POST /judge and GET /health",
        description="Serve the sandbox over HTTP: POST /run {code} -> {stdout, stderr} as in the original "
        "benchmark, POST /judge {records} -> {verdicts}, GET /health. Use it from other machines with "
        "`sebench judge --sandbox-url URL`.",
    )
    serve.add_argument("--data", type=Path, required=True, help="the instance directory")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8111, help="port (default: 8111)")
    serve.add_argument("--workers", type=int, default=None, help="programs at once (default: the number of CPUs)")
    serve.add_argument("--timeout", type=float, default=3.0, help="default seconds per program (default: 3.0)")
    serve.add_argument("--max-timeout", type=float, default=10.0,
                       help="most seconds per program, whatever a client asks (default: 10.0)")
    serve.add_argument("--read-timeout", type=float, default=30.0,
                       help="seconds a client has to send a whole request (default: 30.0)")
    serve.add_argument("--no-bwrap", action="store_true", help="do not use bubblewrap (fallback layers only)")
    serve.add_argument("--protocol", choices=tuple(PROTOCOLS), default=DEFAULT_PROTOCOL,
                       help="original: programs see the package as the original benchmark's did (its printing, "
                            "its 3 s limit and timeout answer) and /judge uses its rules (default: sebench)")
    serve.set_defaults(func=_serve)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _serve(args: argparse.Namespace) -> int:
    from sebench.judge.sandbox_server import serve

    serve(args.data, args.host, args.port, args.workers, args.timeout, False if args.no_bwrap else None,
          max_timeout_s=args.max_timeout, read_timeout_s=args.read_timeout, protocol=args.protocol)
    return 0

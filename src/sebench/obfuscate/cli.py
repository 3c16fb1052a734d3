"""`sebench audit`."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers) -> None:
    a = subparsers.add_parser("audit", help="scan an instance for NumPy leaks",
                              description="Print every leak finding (file:line: kind: text); exit 1 if any.")
    a.add_argument("dir", type=Path, help="instance directory")
    a.set_defaults(func=run_audit)

def run_audit(args: argparse.Namespace) -> int:
    from sebench.instance import Instance
    from sebench.obfuscate.audit import audit_instance

    inst = Instance.open(args.dir)
    findings = audit_instance(inst.root)
    for f in findings:
        print(f)
    print(f"audit: {len(findings)} finding(s) in {inst.root}")
    return 1 if findings else 0

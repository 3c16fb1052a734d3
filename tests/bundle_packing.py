"""A bundle packed again after a test changed its members, with sebench's own functions (as a forger would)."""

from __future__ import annotations

import json
from pathlib import Path


def repack(members: dict[str, bytes], out: Path) -> Path:
    """Packs `members` again as `sebench submit` does, with sebench's own functions: the rows recomputed from
    the verdicts, the card made again from the records, the index of every member's hash."""
    from sebench.submit.bundle import INDEX, pack, rows_of
    from sebench.submit.card import card_markdown

    members = {n: b for n, b in members.items() if n not in (INDEX, "card.md")}
    members["report/rows.json"] = (json.dumps(rows_of(members), indent=1, ensure_ascii=False, sort_keys=True)
                                   + "\n").encode()  # as submit writes it
    sub = json.loads(members["submission.json"])
    members["card.md"] = card_markdown(sub, json.loads(members["method/method.json"]),
                                       json.loads(members["run/manifest.json"])).encode()
    pack(members, sub["label"], Path(out))
    return Path(out)


def relabelled(members: dict[str, bytes], old: str, label: object) -> dict[str, bytes]:
    """The members with the method's label `old` changed to `label` everywhere the records and the folders name it."""
    out = {}
    for name, data in members.items():
        out[name.replace(f"evals/{old}/", f"evals/{label}/")] = data
    for name in ("submission.json", "method/method.json"):
        record = json.loads(out[name])
        record["label"] = label
        out[name] = json.dumps(record).encode()
    return out

"""The methods a user brought, as their training wrote them down: `RUN_DIR/train/<label>/method.json`.

    {"label": str, "spec": str, "origin": "built-in" | "entry point" | "file", "args": {...},
     "returns": "checkpoint" | "endpoint" | "agent", "eligible": bool, "verified": bool,
     "cost": {"wall_seconds": float, "judge_calls": int, "tokens_sampled": int, "tokens_trained": int},
     "isolation": "bwrap" | "landlock" | "audit-hook", "network": bool, "env": [names], "refused": [{...}, ...],
     "endpoint": str (the server a served endpoint was evaluated at, as the user declared it)}

The report reads it (never writes it): the row of `label` names its origin and is marked when the method is
not eligible (it sees the documentation at test time), unverified (a served endpoint, whose weights the
run cannot check; the mark names the server), used the network, was given variables of the study's
environment, ran where only the audit hook held, or was refused an access; the
cost section lists what each method spent.
"""

from __future__ import annotations

from pathlib import Path

from sebench.errors import SebenchError
from sebench.files import plain_matches, read_json_object
from sebench.report.fmt import md_code, md_row

METHOD_FILE = "method.json"
COST_FIELDS = (("wall_seconds", "wall s"), ("judge_calls", "judge calls"), ("tokens_sampled", "tokens sampled"),
               ("tokens_trained", "tokens trained"))
TYPES: dict[str, type] = {"label": str, "spec": str, "origin": str, "args": dict, "returns": str, "eligible": bool,
                          "verified": bool, "cost": dict, "isolation": str, "network": bool, "env": list,
                          "refused": list, "endpoint": str}
NOT_ELIGIBLE = "not eligible: sees the docs at test time"
UNVERIFIED = "unverified: served endpoint"
NETWORK = "used the network"
AUDIT_HOOK_ONLY = "isolation: Python's audit hook only"


def read_methods(root: Path) -> dict[str, dict]:
    """label -> the fields above of RUN_DIR/train/<label>/method.json (the label is its folder's name)."""
    return {path.parent.name: read_method(path) for path in plain_matches(root, f"train/*/{METHOD_FILE}")}


def read_method(path: Path) -> dict:
    """The fields above of one method.json, each of its type; one line naming the file and the field if not."""
    data = read_json_object(path)
    for name, kind in TYPES.items():
        if data.get(name) is not None and not isinstance(data[name], kind):
            raise SebenchError(f"{path}: field '{name}': expected {kind.__name__}, got {type(data[name]).__name__}")
    for name, _ in COST_FIELDS:
        value = (data.get("cost") or {}).get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise SebenchError(f"{path}: field 'cost.{name}': expected a number, got {type(value).__name__}")
    return {name: data[name] for name in TYPES if name in data}


def notes(method: dict) -> list[str]:
    """The marks of a method's row: not eligible, unverified (absent fields count as true), network, the
    study's environment variables it was given, a weak isolation layer, refused accesses."""
    refused = len(method.get("refused") or [])
    env = [str(name) for name in method.get("env") or []]
    served = [UNVERIFIED + (f" at {method['endpoint']}" if method.get("endpoint") else "")]
    return ([NOT_ELIGIBLE] if method.get("eligible") is False else []) + (
        served if method.get("verified") is False else []) + ([NETWORK] if method.get("network") else []) + (
        [f"given {', '.join(env)} from the study's environment"] if env else []) + (
        [AUDIT_HOOK_ONLY] if method.get("isolation") == "audit-hook" else []) + (
        [f"{refused} refused access{'es' if refused > 1 else ''}"] if refused else [])


def _number(value: float | int | None) -> str:
    if value is None:
        return ""
    return f"{value:.1f}" if isinstance(value, float) else f"{value:,}"


def cost_markdown(methods: list[dict]) -> str:
    """One line per method and run: its origin, spec, what it returns, its cost and its marks."""
    several = len({m["run"] for m in methods}) > 1
    head = (["run"] if several else []) + ["method", "origin", "spec", "returns"]
    head += [title for _, title in COST_FIELDS] + ["notes"]
    lines = [md_row(head), "|" + "---|" * len(head)]
    for m in methods:
        cells = ([m["run"]] if several else []) + [m["label"], m.get("origin") or "", md_code(m["spec"]) if m.get("spec") else "",
                                                  m.get("returns") or ""]
        cells += [_number((m.get("cost") or {}).get(name)) for name, _ in COST_FIELDS] + ["; ".join(notes(m))]
        lines.append(md_row(cells))
    return "\n".join(lines) + "\n"

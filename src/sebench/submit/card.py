"""A bundle's card: what was run and the checklist, each item checked from the run's records where it can be.

method.json's fields come from the method's fence (sebench.methods.run); the fence may add `network` (bool),
`landlock_abi`, `allowed` and may leave fields out: each is read tolerantly, and a missing one is "not recorded".

Every value from the records is shown as text, never as Markdown: written out where it holds nothing but
letters, digits, spaces and `.,:/@+=()-` (PLAIN), else as a code span nothing in it closes (markdown.code_span),
with line breaks and other undrawn characters as their codes (page.visible). A value cannot end its line and
add a checklist item of its own ("- [x] isolation layer: bwrap"), nor a link or an image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sebench.markdown import code_span
from sebench.submit.page import visible

STRONG_LAYERS = ("bwrap", "landlock")
PLAIN = re.compile(r"[A-Za-z0-9 .,:/@+=()-]*")


def plain(value: object) -> str:
    """A record's value as it is where it holds no Markdown, HTML or line break, else as code (module docstring)."""
    text = str(value)
    return text if PLAIN.fullmatch(text) else code(value)


def code(value: object) -> str:
    """A record's value as a Markdown code span that nothing in it can close (module docstring)."""
    return code_span(visible(str(value)))


BOXES = {"yes": "[x]", "no": "[ ]", "unknown": "[?]"}


@dataclass(frozen=True)
class Check:
    """One item of the checklist: its state ("yes", "no" or "unknown") and why."""

    item: str
    state: str
    detail: str


def checklist(submission: dict, method: dict) -> list[Check]:
    """Eligible, isolation layer, no refused reads, no network, samples declared."""
    return [eligible(method), isolation(method), refused_reads(method), network(method), samples(submission)]


def eligible(method: dict) -> Check:
    value = method.get("eligible")
    if value is None:
        return Check("eligible", "unknown", "not recorded")
    return Check("eligible", "yes" if value else "no",
                 "closed-book at test time" if value else "sees the docs at test time, or returned nothing usable")


def isolation(method: dict) -> Check:
    layer = method.get("isolation")
    if not layer:
        return Check("isolation layer", "unknown", "not recorded")
    abi = f", Landlock ABI {plain(method['landlock_abi'])}" if method.get("landlock_abi") else ""
    strong = layer in STRONG_LAYERS
    return Check("isolation layer", "yes" if strong else "no",
                 f"{plain(layer)}{abi}" + ("" if strong else ": only the Python audit hook held"))


def refused_reads(method: dict) -> Check:
    """No access refused by the fence: reads, and where recorded, writes and connections too."""
    refused = method.get("refused", method.get("refused_reads"))
    if refused is None:
        return Check("no refused reads", "unknown", "not recorded")
    kinds = sorted({plain(r.get("access", "read")) for r in refused})
    return Check("no refused reads", "no" if refused else "yes",
                 f"{len(refused)} refused ({', '.join(kinds)})" if refused else "none")


def network(method: dict) -> Check:
    used = method.get("network")
    if used is None:
        return Check("no network", "unknown", "not recorded by this sebench")
    return Check("no network", "no" if used else "yes", "used the network" if used else "no network")


def samples(submission: dict) -> Check:
    decoding = submission.get("decoding") or {}
    n, temperature = decoding.get("n"), decoding.get("temperature")
    if n is None:
        return Check("samples declared", "unknown", "not recorded")
    how = "greedy" if not temperature else f"temperature {plain(temperature)}"
    return Check("samples declared", "yes", f"{plain(n)} sample{'s' if n != 1 else ''} a task, {how} (pass@1 is the "
                 "accuracy)")


def card_markdown(submission: dict, method: dict, manifest: dict) -> str:
    """The card: the method, the run, the cost, the checklist."""
    cost = method.get("cost") or {}
    args = ("the run's settings (run/manifest.json)" if submission.get("origin") == "built-in"
            else code(submission.get("args")))
    lines = [f"# {plain(submission['label'])}", "",
             f"- method: {code(submission.get('spec'))} ({plain(submission.get('origin'))}), arguments {args}",
             f"- base model: {code(submission.get('base_model'))}; preset {plain(submission.get('preset'))}; seed "
             f"{plain(submission.get('seed'))}; protocol {plain(submission.get('protocol'))}",
             f"- sebench {plain(manifest.get('sebench_version'))}; returns {plain(method.get('returns'))}",
             f"- cost: {plain(cost.get('wall_seconds'))} s, {plain(cost.get('judge_calls'))} judge calls, "
             f"{plain(cost.get('tokens_sampled'))} tokens sampled, {plain(cost.get('tokens_trained'))} tokens trained",
             "", "## Checklist", ""]
    lines += [f"- {BOXES[c.state]} {c.item}: {c.detail}" for c in checklist(submission, method)]
    return "\n".join(lines) + "\n"

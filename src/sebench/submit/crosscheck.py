"""Step "records" of `sebench verify`: what a bundle says about itself (submission.json, card.md) against the
run's own records (run/manifest.json and its settings, method/method.json), field by field.

The board shows base model, preset, seed, decoding, protocol, isolation and cost from the records
(`shown_fields`); a description that disagrees with them is a mismatch naming the field. The records agree among
themselves too: the manifest's model, seed and preset are its settings', its isolation layer the method's, its
training stage's time the method's wall time. Each cost is a non-negative number or not recorded.

The run's settings that set the verifier's own work (the judge's limits, the rebuilt instance's and subset's
sizes, the samples a task and their length in a re-run) are at most CAPS, so that a bundle cannot make verification run without end;
the judge's limits are above 0 too (a negative memory limit would be handed to the sandbox as none).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from sebench.submit.bundle import BASELINE, INDEX, SOURCE_DIR, Bundle, submission
from sebench.submit.card import card_markdown
from sebench.submit.entry import COSTS
from sebench.submit.safe import PART

CAPS = {"judge.timeout": 30.0, "judge.memory_mb": 8192, "build_train": 720, "build_single": 259,
        "build_multiple": 300, "max_train": 720, "max_single": 259, "max_multiple": 300, "rollout.n": 64,
        "source_samples": 50, "rollout.max_tokens": 32768, "rollout.max_searches": 30}
# the judge's default limits x 10 and x 8; the paper-sized build (RunConfig), for the instance and for a studied
# subset (whose tasks the rebuild generates anew); the original protocol's 5 samples a task x 10 (evaluated, and
# a re-run's SFT data; rollout.n at the paper's pass@64), its 8192 tokens a sample x 4; the retrieval mode's 3 searches a task (each a generation) x 10


BENCHMARK = ("library", "functions", "max_train", "max_single", "max_multiple", "build_train", "build_single",
             "build_multiple", "docs_only", "warmup", "lifelong", "splits", "protocol", "original_repo", "rollout.n",
             "rollout.temperature", "rollout.top_p", "rollout.max_tokens", "rollout.thinking",
             "rollout.context_tokens", "judge.timeout", "judge.memory_mb")  # what the tasks and their judging are


class Mismatch(Exception):
    """The first difference found: one line naming the member (and the task or field)."""


def shown_fields(bundle: Bundle) -> dict:
    """What the board shows of a bundle, read from the run's records only. The base model names the weights the
    method was trained from where they are not the untrained model's (`train_model`), in ASCII: a letter that
    looks like another (a Cyrillic letter for B) is shown as its code (\\u0412), so no entry passes for another model's."""
    manifest, method = bundle.manifest, bundle.method
    config = manifest.get("config") or {}
    rollout = config.get("rollout") or {}
    cost = method.get("cost") or {}
    model, trained = manifest.get("model"), config.get("train_model")  # the untrained rows' model; the method's start
    base = f"{model}" if trained in (None, "", model) else f"{model} (trained from {trained})"
    return {"base_model": base.encode("ascii", "backslashreplace").decode("ascii"), "preset": manifest.get("preset"), "seed": manifest.get("seed"),
            "protocol": config.get("protocol", "sebench"),
            "decoding": {"n": rollout.get("n"), "temperature": rollout.get("temperature"),
                         "max_tokens": rollout.get("max_tokens")},
            "isolation": method.get("isolation"), "eligible": method.get("eligible"), "network": method.get("network"),
            "cost": {k: cost.get(k) for k in COSTS}}


def changed_settings(bundle: Bundle) -> list[str]:
    """The settings of BENCHMARK in which the run is not its preset's own ("preset" for a preset this sebench
    does not know): entries are ranked together only on the same benchmark."""
    from sebench.errors import SebenchError
    from sebench.experiment import resolve

    config = bundle.manifest.get("config") or {}
    try:
        preset = dataclasses.asdict(resolve(str(config.get("preset")), {}))
    except (SebenchError, TypeError, ValueError):
        return ["preset"]
    return [name for name in BENCHMARK if _setting(config, name) != _setting(preset, name)]


SETTING_DEFAULTS = {"library": "numpy"}  # what a run recorded before the setting existed had


def _setting(config: dict, name: str) -> object:
    section, _, key = name.rpartition(".")
    return ((config.get(section) or {}) if section else config).get(key, SETTING_DEFAULTS.get(name))


def check_records(bundle: Bundle, *_: object) -> None:
    """The records agree among themselves, and submission.json and card.md agree with them."""
    manifest, method, sub = bundle.manifest, bundle.method, bundle.submission
    config = manifest.get("config") or {}
    for name in ("model", "seed", "preset"):
        if name in config and config[name] != manifest.get(name):
            raise Mismatch(f"run/manifest.json: {name} {manifest.get(name)!r} is not its settings' {config[name]!r}")
    layer = (manifest.get("isolation") or {}).get("layer")
    if layer and method.get("isolation") and layer != method.get("isolation"):
        raise Mismatch(f"method/method.json: isolation {method.get('isolation')!r} is not the run manifest's {layer!r}")
    label = bundle.record(INDEX).get("label")
    if not isinstance(label, str) or label in (".", "..") or not PART.fullmatch(label):  # the board shows it as text
        raise Mismatch(f"{INDEX}: label {str(label)[:80]!r} is not a plain name (letters, digits, _ . - + = @ ,)")
    if label == BASELINE:  # its answers' folders would be the untrained model's
        raise Mismatch(f"{INDEX}: label {label!r} is the untrained model's; a method has a name of its own")
    check_own_name(label, method)
    check_caps(config)
    check_library(config)
    check_costs(method)
    check_wall_time(manifest, method, str(label))
    for where, value in (("submission.json", sub.get("label")), ("method/method.json", method.get("label"))):
        if value != label:
            raise Mismatch(f"{where}: label {value!r} is not {INDEX}'s {label!r}")
    check_submission(bundle)
    check_card(bundle)


def spelled(name: str) -> str:
    """A name as a reader tells it apart: letters and digits, in one case (Closed_SFT reads as closed-sft)."""
    return "".join(c for c in name.casefold() if c.isalnum())


def check_own_name(label: str, method: dict) -> None:
    """A label that reads as sebench's own method or regime (any case, any punctuation: `Closed-SFT`, `Memory`,
    `untrained`) is that built-in's alone: the board names an entry by its label, and a method of a file would
    pass for the built-in (or for the paper's row of that name)."""
    from sebench.methods import BUILTINS
    from sebench.train import REGIME_ALIASES, REGIMES

    own = {spelled(n): n for n in (*REGIMES, *REGIME_ALIASES, *BUILTINS, BASELINE)}
    name = own.get(spelled(label))
    if name is not None and (method.get("origin"), method.get("spec"), label) != ("built-in", name, name):
        raise Mismatch(f"{INDEX}: label {label!r} reads as sebench's own {name!r}, which this bundle's method "
                       f"({method.get('origin')} {str(method.get('spec'))[:60]!r}) is not; a method has a name of "
                       "its own")


def check_caps(config: dict) -> None:
    """The settings that set the verifier's work are within CAPS, and the judge's limits above 0 (module
    docstring)."""
    for name, cap in CAPS.items():
        value = _setting(config, name)
        if value is not None and not (_number(value) and value <= cap):
            raise Mismatch(f"run/manifest.json: {name} {value!r} is over the verifier's cap of {cap:g} "
                           "(or not a number)")
        if name.startswith("judge.") and value is not None and value <= 0:  # a negative memory limit: none at all
            raise Mismatch(f"run/manifest.json: {name} {value!r} is not above 0 (a judged program's limit)")


def check_library(config: dict) -> None:
    """The libraries the settings build are registered ones (built-in, or an entry point the verifier
    installed): a bundle's `module:attr` would make the verifier import and run code the bundle chose."""
    from sebench.libraries import library_names

    known = library_names()
    for name, unset in (("library", None), ("lifelong.cross", "")):  # no cross design: unset or ""
        value = _setting(config, name)
        if value not in (None, unset) and value not in known:
            raise Mismatch(f"run/manifest.json: {name} {value!r} is not a registered library (known: "
                           f"{', '.join(known)}); verify builds only those (a module:ATTR library is verified "
                           "once it is installed as an entry point)")


def check_costs(method: dict) -> None:
    """Every cost the board shows is a non-negative number, or not recorded."""
    cost = method.get("cost") or {}
    for name in COSTS:
        value = cost.get(name)
        if value is not None and not (_number(value) and value >= 0):
            raise Mismatch(f"method/method.json: cost.{name} {value!r} is not a non-negative number")


def _number(value: object) -> bool:
    """A finite int or float, not a bool (an int of any size is finite)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and math.isfinite(value))


def check_wall_time(manifest: dict, method: dict, label: str) -> None:
    """The method's wall time is its training stage's, as the manifest's stage record timed it (within 5 s or
    20%: the stage also writes the method's view)."""
    stage = ((manifest.get("stages") or {}).get(f"train:{label}") or {}).get("seconds")
    wall = (method.get("cost") or {}).get("wall_seconds")
    if isinstance(stage, (int, float)) and isinstance(wall, (int, float)) and abs(stage - wall) > max(5.0, stage / 5):
        raise Mismatch(f"method/method.json: cost.wall_seconds {wall} is not the run manifest's stage train:{label} "
                       f"({stage} s)")


def check_submission(bundle: Bundle) -> None:
    """submission.json field by field against what `sebench submit` derives from the records."""
    sub = bundle.submission
    sources = sorted(n for n in bundle.members if n.startswith(SOURCE_DIR))
    expected = submission(bundle.manifest, bundle.method, str(sub.get("label")), str(sub.get("entry")), sources,
                          None)
    for name in ("checkpoint", "base_model_sha256"):  # hashes of the submitter's folders, not re-made here
        expected[name] = sub.get(name)
    for name in sorted(set(expected) | set(sub)):
        if sub.get(name) != expected.get(name):
            raise Mismatch(f"submission.json: {name} {sub.get(name)!r} is not the run's records' "
                           f"{expected.get(name)!r}")
    if sub.get("origin") == "file":
        spec = str(sub.get("spec") or "")
        where, _, attr = spec.rpartition(":")
        if sub.get("entry") != f"{Path(where).name}:{attr}":
            raise Mismatch(f"submission.json: entry {sub.get('entry')!r} is not the method's file {spec!r}")


def check_card(bundle: Bundle) -> None:
    """card.md line by line against the card the records make, byte for byte: lines end at a newline alone (a
    carriage return, a form feed or U+2028 that str.splitlines would take for a line's end is a difference)."""
    expected = card_markdown(bundle.submission, bundle.method, bundle.manifest).split("\n")
    given = bundle.text("card.md").split("\n")
    for number, (a, b) in enumerate(zip(given + [""] * len(expected), expected + [""] * len(given)), 1):
        if a != b:
            field = b.removeprefix("- ").split(":")[0].strip("[]x? ") or "a line"
            raise Mismatch(f"card.md:{number}: {field} is not what the run's records give ({b!r})")

"""`sebench verify --rerun`: the bundled method trained again from its bundled source, in fresh studies with
the run's settings, on the bundle's seed (compared with the bundle, task by task) or on held-out seeds.

The re-run evaluates the method and the untrained model again, and both are compared with the bundle, per
(regime, mode, split):
- greedy, one sample (temperature 0, n 1): every verdict must come out the same (EQUAL);
- sampled: the re-run and the bundle are two draws of the same answers' distribution, so per task the
  difference of their shares of correct samples is symmetric about 0. The exact paired sign-flip test over
  tasks (sebench.intervals.sign_flip_p) rejects at FALSE_ALARM / comparisons (Bonferroni), so an honest
  bundle is called "not reproduced" with probability at most FALSE_ALARM (tests/submit/test_rules.py measures it).

A re-run contacts no server and reads no environment variable a bundle names (SERVER_KEYS anywhere in its
settings or its method's arguments, a model served over HTTP): those would send the verifier's keys and the
(held-out) test tasks where the submitter chose; such a bundle is refused before anything runs. The bundled
method is the one trained: its arguments cannot name another, nor set its fence (a path it may read, the network,
an environment variable, its time limit: FENCE_KEYS); no variant, regime or built-in of another name takes its
place (check_bundled_method). A re-run reads no path a bundle names (a model's folder, the original repository,
a launcher config: check_no_paths), and what the verifier decides stays its own (verifiers_own: the warm-up
cache, the judge's bubblewrap and workers, the threads; the methods' time limit; check_launch).

Every line of the bundle's code runs in the method's fence: a file method is loaded there from its extracted
file, and a module or entry-point method through a file that imports it there (ENTRY_FILE); the verifier
never imports the bundle's code, never puts its folder on its own path or its children's.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import numpy as np

from sebench.errors import SebenchError
from sebench.submit.bundle import BASELINE, SOURCE_DIR, Bundle, read_bundle
from sebench.submit.crosscheck import check_caps, check_library
from sebench.submit.safe import PART, BundleError, inside
from sebench.submit.verify import Mismatch, check_source_files, judge_workers, run_config

log = logging.getLogger(__name__)

EQUAL = "equal per task (greedy, one sample)"
FALSE_ALARM = 0.01
SIGN_FLIP = f"paired sign-flip test over tasks (sampled), false-alarm rate at most {FALSE_ALARM:g}"
KEPT = ("regime", "mode", "split", "n", "accuracy", "ci95", "vs_untrained")
ENTRY_FILE = "_sebench_entry.py"


def rerun_bundle(path: Path, work: Path, seeds: list[int] | None = None, model: str | None = None,
                 original_repo: Path | None = None, bundle: Bundle | None = None) -> dict:
    """Trains and evaluates the bundle's method again under `work`: on the bundle's seed (no `seeds`:
    compare_rerun's result) or on `seeds` (held_out's result). `model`: where the base model is here (a bundle
    names a local model by its folder's name and sha256, which this folder must have). `original_repo`: the
    verifier's copy of the original SE-Bench, for a bundle of `--protocol original` (never the bundle's path).
    `bundle`: the bundle as verify read it (the file is not read again: the bytes re-run are the bytes verified)."""
    bundle = bundle or read_bundle(path)
    check_no_servers(bundle)
    check_no_fence_arguments(bundle)
    check_bundled_method(bundle)
    try:
        check_caps(bundle.manifest.get("config") or {})
        check_library(bundle.manifest.get("config") or {})
        check_source_files(bundle)  # nothing but the source a reader reads is extracted and run
    except Mismatch as exc:
        raise SebenchError(str(exc)) from None
    check_model(bundle, model)
    check_no_paths(bundle, model, original_repo)
    check_launch(bundle)
    source = extract_sources(bundle, Path(work) / "source")
    if not seeds:
        root = run_study(bundle, source, Path(work) / "runs" / "rerun", bundle.manifest["seed"], model, original_repo)
        return compare_rerun(bundle, root)
    roots = [scrub(run_study(bundle, source, Path(work) / "runs" / f"seed-{s}", s, model, original_repo))
             for s in seeds]
    return held_out(bundle, roots)


SERVER_KEYS = ("base_url", "api_key_env", "sandbox_url", "vllm_server", "endpoint", "endpoint_key")
SERVED = ("openai:",)  # model specs served over HTTP (sebench.rollout.backends)


def check_no_servers(bundle: Bundle) -> None:
    """Refuses a bundle whose settings or method arguments name a server or a key's variable (module docstring)."""
    config = bundle.manifest.get("config") or {}
    for where, value in (("run/manifest.json: config", config), ("submission.json: args", bundle.submission.get("args"))):
        stack: list[tuple[str, object]] = [(where, value)]
        while stack:
            name, item = stack.pop()
            if isinstance(item, dict):
                for key, inner in item.items():
                    if key in SERVER_KEYS and inner not in (None, "", []):
                        raise SebenchError(f"{name}.{key}: {str(inner)[:80]!r} names a server or a key; a re-run "
                                           "contacts none that a bundle names")
                    stack.append((f"{name}.{key}", inner))
            elif isinstance(item, list):
                stack += [(f"{name}[{i}]", inner) for i, inner in enumerate(item)]
    for key in ("model", "train_model"):
        spec = str(config.get(key) or "")
        if spec.startswith(SERVED) or "://" in spec:
            raise SebenchError(f"run/manifest.json: config.{key} {spec[:80]!r} is a model served over HTTP; a "
                               "re-run contacts no server that a bundle names")


def check_no_fence_arguments(bundle: Bundle) -> None:
    """Refuses method arguments that are the fence's settings (FENCE_KEYS: a path to read, the network, a
    variable, a time limit, an output size): a run records them apart, never among the arguments, and in these the
    re-run would give them to the bundled method's process."""
    from sebench.methods import FENCE_KEYS

    args = bundle.submission.get("args") or {}
    granted = [key for key in FENCE_KEYS if isinstance(args, dict) and key in args]
    if granted:
        raise SebenchError(f"submission.json: args.{granted[0]}: {str(args[granted[0]])[:80]!r} is a setting of the "
                           "method's fence, not an argument; the re-run's fence is the verifier's")


def check_bundled_method(bundle: Bundle) -> None:
    """Refuses records under which the re-run would train something else than the bundled method: a built-in
    that is no built-in method (BUILTINS), a module or entry point whose module is not bundled (the file that
    imports it in the fence would find one installed here), a label that is a regime's (closed-sft-rl trains the Closed-SFT regime
    first) or no plain name (the re-run's folders are named by it), or a regime variant under the method's label
    (a study trains a variant's regime, with the variant's settings, before it looks for a method of that name)."""
    from sebench.methods import BUILTINS
    from sebench.train import REGIME_ALIASES, REGIMES

    sub = bundle.submission
    label = str(sub.get("label"))
    if label in (*REGIMES, *REGIME_ALIASES) or label in (".", "..") or not PART.fullmatch(label):
        raise SebenchError(f"submission.json: label {label[:80]!r} is a regime's name or not a plain name; the re-run "
                           "trains the bundled method under its label, in its work folder")
    if sub.get("origin") == "built-in" and sub.get("spec") not in BUILTINS:
        raise SebenchError(f"submission.json: spec {str(sub.get('spec'))[:80]!r} is not a built-in method (origin "
                           f"built-in: one of {', '.join(BUILTINS)}); the re-run trains the bundled method alone")
    if sub.get("origin") not in ("built-in", "file", "module", "entry point"):
        raise SebenchError(f"submission.json: origin {str(sub.get('origin'))[:40]!r} is not built-in, file, module "
                           "or entry point")
    module = str(sub.get("entry") or "").rpartition(":")[0].replace(".", "/")
    if sub.get("origin") in ("module", "entry point") and not any(
            SOURCE_DIR + module + end in bundle.members for end in (".py", "/__init__.py")):
        raise SebenchError(f"submission.json: entry {str(sub.get('entry'))[:80]!r}: its module is not in the bundle "
                           f"({SOURCE_DIR}{module}.py); the re-run imports no module of this machine a bundle names")
    variants = (bundle.manifest.get("config") or {}).get("variants") or {}
    if isinstance(variants, dict) and sub.get("label") in variants:
        raise SebenchError(f"run/manifest.json: config.variants.{sub['label']}: a regime variant under the method's "
                           "label; the re-run trains the bundled method, not a regime")


def check_model(bundle: Bundle, model: str | None) -> None:
    """A bundle of a local base model is re-run only with `model`, a folder with the bundled sha256."""
    from sebench.submit.bundle import model_sha256

    wanted = bundle.submission.get("base_model_sha256")
    if wanted is None:
        return
    if model is None:
        raise SebenchError(f"the bundle's base model {bundle.manifest.get('model')!r} was a local folder (sha256 "
                           f"{str(wanted)[:12]}…); give it with --model hf:PATH")
    if model_sha256(model) != wanted:
        raise SebenchError(f"--model {model}: its sha256 is not the bundle's base model's ({str(wanted)[:12]}…)")


HUB_PART = re.compile(r"[A-Za-z0-9][\w.-]*")  # a part of a hub id: org/name, or name


def check_no_paths(bundle: Bundle, model: str | None, original_repo: Path | None = None) -> None:
    """Refuses settings that name a path on the verifier's machine for the re-run to read: a model's folder or
    answers file (`model` unless --model replaces it, `train_model`; names_a_path), the original repository, an
    `accelerate` config. A path the verifier gives (`model`, `original_repo`) replaces the bundle's."""
    config = bundle.manifest.get("config") or {}
    named = {"model": None if model else config.get("model"), "train_model": config.get("train_model"),
             "original_repo": None if original_repo else config.get("original_repo"),
             "launch.accelerate_config": (config.get("launch") or {}).get("accelerate_config")}
    for name, value in named.items():
        if value not in (None, "") and (name.endswith(("repo", "config")) or names_a_path(str(value))):
            raise SebenchError(f"run/manifest.json: config.{name} {str(value)[:80]!r} is a path on this machine; a "
                               "re-run reads no path a bundle names" + (" (give the base model with --model)"
                                                                         if name == "model" else ""))


def check_launch(bundle: Bundle) -> None:
    """Refuses a launch across processes (`launch.gpus` above 1) where bubblewrap is not the method's layer: its
    processes talk over TCP on the loopback, which Landlock cannot tell from other addresses (TCP would be open to
    every one) and which the audit hook then lets the method reach (the verifier's own local services)."""
    from sebench.methods import isolation_layer

    gpus = ((bundle.manifest.get("config") or {}).get("launch") or {}).get("gpus", 1)
    if gpus != 1 and (layer := isolation_layer()) != "bwrap":
        raise SebenchError(f"run/manifest.json: config.launch.gpus {str(gpus)[:20]}: a launch across processes opens "
                           f"TCP to the method where bubblewrap is not its layer (here: {layer}); re-run it where "
                           "bubblewrap works")


def names_a_path(spec: str) -> bool:
    """Whether a model spec reads a path: a folder (bare or hf:/vllm:), a fake model's answers file; not the
    embedded model, a hub id (org/name that is no folder here) or a scripted fake."""
    from sebench.models import EMBEDDED_DEFAULT

    prefix, sep, argument = spec.partition(":")
    if spec == EMBEDDED_DEFAULT:
        return False
    if not sep:
        return True
    if prefix == "fake":
        return argument.startswith("file=")
    parts = argument.split("/")
    hub_id = len(parts) <= 2 and all(HUB_PART.fullmatch(p) for p in parts) and not Path(argument).exists()
    return prefix in ("hf", "vllm") and argument != EMBEDDED_DEFAULT and not hub_id


def scrub(root: Path) -> Path:
    """A finished held-out run without its test splits and mapping, so that the next seed's method, which may
    read beside its own run, finds none of them."""
    import shutil

    for folder in ("instance", "data"):
        for part in ("datasets/test", "private"):
            shutil.rmtree(root / folder / part, ignore_errors=True)
    return root


def extract_sources(bundle: Bundle, folder: Path) -> Path:
    """The bundled source files under `folder` (each name checked to stay inside it), and for a module or an
    entry point the file ENTRY_FILE that imports the method from there, inside the fence."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in bundle.members.items():
        if name.startswith(SOURCE_DIR):
            target = inside(folder, name.removeprefix(SOURCE_DIR))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    sub = bundle.submission
    where, _, attr = str(sub.get("entry") or "").rpartition(":")
    if sub.get("origin") in ("module", "entry point"):
        if not attr.isidentifier() or not all(part.isidentifier() for part in where.split(".")):
            raise BundleError(f"submission.json: entry {sub.get('entry')!r} is not module:attribute")
        (folder / ENTRY_FILE).write_text(f"import sys\nsys.path.insert(0, {str(folder.resolve())!r})\n"
                                         f"from {where} import {attr}  # noqa\n", encoding="utf-8")
    return folder.resolve()


def method_entry(bundle: Bundle, source: Path) -> str:
    """The file:attribute the re-run loads: the bundled file, or ENTRY_FILE for a module or an entry point."""
    sub = bundle.submission
    where, _, attr = str(sub.get("entry") or "").rpartition(":")
    if sub.get("origin") == "file":
        if SOURCE_DIR + where not in bundle.members or not where.endswith(".py") or not attr.isidentifier():
            raise BundleError(f"submission.json: entry {sub.get('entry')!r} is not a bundled file:attribute")
        return f"{inside(source, where)}:{attr}"
    return f"{source / ENTRY_FILE}:{attr}"


def rerun_config(bundle: Bundle, source: Path, seed: int, model: str | None = None, original_repo: Path | None = None):
    """The run's settings, for the bundled method alone, loaded from `source`, on `seed` (with the verifier's
    `model` and `original_repo`)."""
    sub = bundle.submission
    label, changes = sub["label"], {"seed": seed, "regimes": [sub["label"]], **({"model": model} if model else {}),
                                    **({"original_repo": str(original_repo)} if original_repo else {})}
    from sebench.methods import TRAIN_TIMEOUT

    entry = sub.get("spec") if sub.get("origin") == "built-in" else method_entry(bundle, source)
    # the records' method, not the settings'; a built-in's training limited as every method's (none in a run)
    changes["methods"] = {label: {**(sub.get("args") or {}), "method": entry, "timeout": TRAIN_TIMEOUT}}
    return run_config(bundle, **changes, **verifiers_own(bundle.manifest.get("config") or {}))


def verifiers_own(config: dict) -> dict:
    """The settings the verifier decides, whatever the bundle recorded: where warm-ups are cached (WarmupConfig's
    default, this machine's cache, never a folder the bundle names) and what the warm-up leaves out (the study's
    data, never a folder or names the bundle gives: `studied_from`, `studied`), the judge's bubblewrap (wherever
    it is installed) and programs at once, the threads of the evaluation, the training and the warm-up (this
    machine's CPUs, not 10^6 threads a bundle asks for), and the evaluation's rows per generate call and the
    training's reward judges (their defaults: 10^6 rows at once, every test prompt with every sample, would hold
    more memory than the verifier has). Each changes how fast a stage runs, not what it produces (cliflags'
    `speed`)."""
    judge = config.get("judge") or {}
    own: dict = {"judge": {**judge, "no_bwrap": False, "workers": judge_workers(None, judge.get("memory_mb") or 1024)},
                 "rollout": {**(config.get("rollout") or {}), "threads": None, "batch_size": None}}
    if config.get("train"):
        own["train"] = {**config["train"], "threads": None, "judge_workers": None}
    if config.get("warmup"):
        own["warmup"] = {k: v for k, v in config["warmup"].items()
                         if k not in ("cache_dir", "studied_from", "studied", "threads")}
    return own


def run_study(bundle: Bundle, source: Path, root: Path, seed: int, model: str | None = None,
              original_repo: Path | None = None) -> Path:
    """One fresh study of the bundled method on `seed`; returns its run directory."""
    from sebench.experiment import Study

    log.info("re-run of %s on seed %d in %s", bundle.submission["label"], seed, root)
    try:
        Study(rerun_config(bundle, source, seed, model, original_repo), root, argv=["verify", "--rerun"]).run()
    except Mismatch as exc:
        raise SebenchError(str(exc)) from None
    label = bundle.submission["label"]
    if not list((root / "evals" / label).glob("*/*/verdicts.jsonl")):
        why = (json.loads((root / "manifest.json").read_text(encoding="utf-8")).get("not_trained") or {}).get(label)
        raise SebenchError(f"re-run of {label} on seed {seed}: not trained ({why or 'no evaluation'})")
    return root


def compare_rerun(bundle: Bundle, root: Path) -> dict:
    """The re-run against the bundle, the method's answers and the untrained model's (module docstring)."""
    decoding = (bundle.manifest.get("config") or {}).get("rollout") or {}
    greedy = decoding.get("n") == 1 and not decoding.get("temperature")
    names = [n for n in bundle.eval_files("verdicts")]
    mismatch = None
    for name in names:
        again = root / name
        if not again.is_file():
            mismatch = f"{name}: the re-run did not evaluate this regime, mode and split"
            break
        ours = _verdicts([json.loads(line) for line in again.read_text(encoding="utf-8").split("\n") if line.strip()])
        mismatch = (first_changed(name, _verdicts(bundle.lines(name)), ours) if greedy
                    else differs(name, _verdicts(bundle.lines(name)), ours, len(names)))
        if mismatch:
            break
    return {"rule": EQUAL if greedy else SIGN_FLIP, "reproduced": mismatch is None, "mismatch": mismatch,
            "rows": rows(root, bundle.submission["label"])}


def _verdicts(lines: list[dict]) -> dict[tuple, str]:
    return {(v.get("task_id"), v.get("sample_idx")): str(v.get("verdict")) for v in lines}


def first_changed(name: str, bundled: dict[tuple, str], again: dict[tuple, str]) -> str | None:
    """The first (task, sample) whose verdict differs (greedy)."""
    for key in sorted(set(bundled) | set(again), key=str):
        if bundled.get(key) != again.get(key):
            return f"{name}: task {key[0]} sample {key[1]}: bundle {bundled.get(key)}, re-run {again.get(key)}"
    return None


def differs(name: str, bundled: dict[tuple, str], again: dict[tuple, str], comparisons: int) -> str | None:
    """Whether the shares of correct samples per task differ beyond chance (sampled; module docstring)."""
    p = sampled_p(bundled, again)
    if p >= FALSE_ALARM / comparisons:
        return None
    return (f"{name}: accuracy {share(bundled):.3f} in the bundle, {share(again):.3f} in the re-run (paired "
            f"sign-flip p {p:.2g} < {FALSE_ALARM:g}/{comparisons})")


def sampled_p(bundled: dict[tuple, str], again: dict[tuple, str]) -> float:
    """The two-sided p of the paired sign-flip test of equal per-task shares of correct samples."""
    from sebench.intervals import sign_flip_p
    from sebench.metrics import task_means

    a, b = (task_means((("", str(k[0]), "", ""), v) for k, v in side.items()) for side in (bundled, again))
    d = np.array([a.get(t, 0.0) - b.get(t, 0.0) for t in sorted(set(a) | set(b), key=str)])
    return float(sign_flip_p(d)) if d.size else 1.0


def share(verdicts: dict[tuple, str]) -> float:
    return sum(v == "correct" for v in verdicts.values()) / max(1, len(verdicts))


def rows(root: Path | list[Path], label: str) -> list[dict]:
    """The report's rows of `label` and the untrained model over one run or several (pooled seeds)."""
    from sebench.report import build_report

    roots = root if isinstance(root, list) else [root]
    out = roots[0].parent / "report"
    build_report(roots, out, plots_enabled=False)
    table = json.loads((out / "report.json").read_text(encoding="utf-8"))["main_table"]
    return [{k: r.get(k) for k in KEPT} for r in table if r["regime"] in (label, BASELINE)]


def held_out(bundle: Bundle, roots: list[Path]) -> dict:
    """The method on the held-out seeds, pooled: its rows; the seeds themselves are not recorded."""
    return {"seeds": len(roots), "rows": rows(roots, bundle.submission["label"])}


def read_seeds(path: Path) -> list[int]:
    """Seeds, one a line (# starts a comment); a line that is not an integer is an error naming it."""
    seeds = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            seeds.append(int(text))
        except ValueError:
            raise SebenchError(f"{path}:{number}: '{text}' is not a seed (one integer a line)") from None
    if not seeds:
        raise SebenchError(f"{path}: no seeds (one integer a line)")
    return seeds

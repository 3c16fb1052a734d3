"""`sebench verify --rerun` of self-consistent forgeries whose records name something on the verifier's machine:
a fence setting in the method's arguments (a path to read, the network, a variable, a time limit), a method or a
regime other than the bundled one, a model folder or file, a folder the original protocol or the launcher reads.
Each is refused in one line before the re-run's study starts; settings the verifier decides for itself (the
warm-up cache, the judge's bubblewrap) are the verifier's, whatever the bundle recorded."""

import os
import re
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.submit.verify import judge_workers

LABEL = "ReferenceSFT"


@pytest.fixture()
def no_study(monkeypatch):
    """The re-run's study fails loudly if it starts: each forgery here must be refused before it."""
    from sebench.experiment import Study

    def started(self) -> None:
        raise AssertionError("the re-run's study started")
    monkeypatch.setattr(Study, "run", started)


def rerun(bundle: Path, tmp_path: Path, model: str | None) -> None:
    from sebench.submit.rerun import rerun_bundle

    rerun_bundle(bundle, tmp_path / "work", model=model)


def both(forge, members: dict, change) -> None:
    """The same change to submission.json and method/method.json (verify's method step compares them)."""
    for name in ("submission.json", "method/method.json"):
        forge.edit_json(members, name, change)


def config_change(forge, members: dict, change) -> None:
    forge.edit_json(members, "run/manifest.json", lambda m: change(m["config"]))


FENCE = {"read": ["/home"], "network": True, "env": ["HF_TOKEN"], "timeout": 1e9, "prompt_timeout": 1e9,
         "max_output_gib": 1e6}


@pytest.mark.parametrize("key", list(FENCE))
def test_method_arguments_grant_no_path_network_variable_or_time(forge, tmp_path, tiny_model, no_study, key):
    """`methods.LABEL.read/network/env/timeout/...` are the fence's settings, never a method's arguments: in the
    arguments a bundle records, the re-run gave them to the bundled method's process."""
    members = forge.members()
    both(forge, members, lambda r: r["args"].update({key: FENCE[key]}))
    with pytest.raises(SebenchError, match=rf"^submission.json: args.{key}: .* the re-run's fence is the verifier's"):
        rerun(forge.repack(members), tmp_path, tiny_model)


# ---- the method trained is the bundled one ----------------------------------------------------------------


COLLECTOR = "openai:m@https://collector.example/v1"


def test_the_bundled_label_is_no_regime_variant(forge, tmp_path, tiny_model, no_study):
    """A variant under the method's label made the re-run train a regime instead (a variant comes first), with
    the variant's settings: here self-play whose task writer is a server the bundle names, sent the verifier's
    OPENAI_API_KEY."""
    members = forge.members()
    config_change(forge, members, lambda c: c["variants"].update(
        {LABEL: {"regime": "self-play-sft", "selfplay_backend": COLLECTOR}}))
    with pytest.raises(SebenchError, match=rf"^run/manifest.json: config.variants.{LABEL}: .* the bundled method"):
        rerun(forge.repack(members), tmp_path, tiny_model)


def test_a_built_in_bundle_names_a_built_in_method(forge, tmp_path, tiny_model, no_study):
    """origin "built-in" is sebench's own code; a spec that is no built-in method (here a regime) is refused."""
    members = forge.members()
    both(forge, members, lambda r: r.update(origin="built-in", spec="self-play-sft"))
    with pytest.raises(SebenchError, match=r"^submission.json: spec 'self-play-sft' is not a built-in method"):
        rerun(forge.repack(members), tmp_path, tiny_model)


def test_a_built_in_bundle_trains_its_spec_not_a_method_its_settings_name(forge, tmp_path, monkeypatch):
    """A built-in bundle's settings naming another method for its label (methods.LABEL.method, here a module whose
    import would write a file) are not what the re-run trains: it trains the built-in the records name."""
    from sebench.submit import read_bundle
    from sebench.submit.rerun import extract_sources, rerun_config

    members = forge.members()
    both(forge, members, lambda r: r.update(origin="built-in", spec="base"))
    config_change(forge, members, lambda c: c["methods"].update({LABEL: {"method": "forger_method_pkg.m:Method"}}))
    bundle = read_bundle(forge.repack(members))
    config = rerun_config(bundle, extract_sources(bundle, tmp_path / "source"), 0)
    assert list(config.methods) == [LABEL] and config.methods[LABEL]["method"] == "base", config.methods


# ---- no path on the verifier's machine ---------------------------------------------------------------------


PATHS = {  # a setting -> a path the bundle names on the verifier's machine ({tmp}: here, a folder of the test)
    "model": "hf:{tmp}", "model ": "fake:file={tmp}/answers.jsonl", " model": "{tmp}", "train_model": "hf:{tmp}",
    "original_repo": "{tmp}", "launch.accelerate_config": "{tmp}/accelerate.yaml"}


@pytest.mark.parametrize("setting", list(PATHS))
def test_a_rerun_reads_no_path_the_settings_name(forge, tmp_path, tiny_model, no_study, setting):
    """A base model's folder or answers file (read, and the start model's folder given to the method's fence to
    read), the original repository (its prompt templates) and an `accelerate` config (read by the launcher) were
    read where the bundle said. A model named by a hub id or the embedded name is fetched as for any run."""
    members = forge.members()
    name, value = setting.strip(), PATHS[setting].format(tmp=tmp_path)
    section, _, key = name.rpartition(".")
    config_change(forge, members, lambda c: (c.setdefault(section, {}) if section else c).update({key: value}))
    local = name == "model"  # the bundle names no local model by its hash, so that no --model replaces it
    if local:
        forge.edit_json(members, "submission.json", lambda s: s.update(base_model_sha256=None))
    with pytest.raises(SebenchError, match=rf"^run/manifest.json: config.{name} .* a re-run reads no path"):
        rerun(forge.repack(members), tmp_path, None if local else tiny_model)


def test_the_verifiers_original_repo_replaces_the_bundles(forge, tmp_path):
    """A bundle of --protocol original names its own copy of the original; the verifier's --original-repo is what
    the re-run reads (and the bundle's path is then no refusal)."""
    from sebench.submit import read_bundle
    from sebench.submit.rerun import check_no_paths, extract_sources, rerun_config

    members, ours = forge.members(), tmp_path / "verifiers-copy"
    config_change(forge, members, lambda c: c.update(original_repo="/home/forger/SE-Bench"))
    bundle = read_bundle(forge.repack(members))
    with pytest.raises(SebenchError, match=re.escape("config.original_repo '/home/forger/SE-Bench' is a path")):
        check_no_paths(bundle, None)
    check_no_paths(bundle, None, ours)
    config = rerun_config(bundle, extract_sources(bundle, tmp_path / "source"), 0, original_repo=ours)
    assert config.original_repo == str(ours)


@pytest.mark.parametrize("spec", ["smollm2-135m", "hf:HuggingFaceTB/SmolLM2-135M-Instruct", "fake:echo"])
def test_a_model_by_hub_id_or_the_embedded_name_is_no_path(spec):
    from sebench.submit.rerun import names_a_path

    assert not names_a_path(spec)


# ---- what the verifier decides for itself -------------------------------------------------------------------


def test_programs_judged_at_once_fit_the_verifiers_memory_at_the_bundles_limit():
    """A bundle sets each program's memory limit (up to the cap); the programs judged at once are as many as three
    quarters of the verifier's memory holds at that limit, never more than asked or than its CPUs, at least one."""
    assert judge_workers(64, 8192, total_mib=24576) == 2  # 64 sandboxes x 8 GiB on 24 GiB: 2
    assert judge_workers(64, 1024, total_mib=24576) == 18
    assert judge_workers(4, 16, total_mib=24576) == 4
    assert judge_workers(64, 8192, total_mib=4096) == 1
    assert judge_workers(None, 16, total_mib=10**9) == os.cpu_count()


def test_the_warm_up_cache_and_the_judges_bubblewrap_are_the_verifiers(forge, tmp_path):
    """The warm-up wrote its checkpoint to (and reused one from) the cache folder the bundle named, and read the
    studied functions from a data folder it named (`studied_from`); the judge of the re-run's answers left
    bubblewrap out when the bundle's `judge.no_bwrap` said so, and ran as many programs at once as its
    `judge.workers` said (10^6 sandboxes, each allowed up to the memory cap); the evaluation and the warm-up took
    the bundle's thread counts."""
    from sebench.experiment.warmup import DEFAULT_CACHE_DIR, WarmupConfig
    from sebench.submit import read_bundle
    from sebench.submit.rerun import extract_sources, rerun_config

    members = forge.members()
    config_change(forge, members, lambda c: c.update(
        warmup={"docs": "full", "cache_dir": str(tmp_path / "planted"), "studied_from": str(tmp_path), "threads": 10**6},
        judge={**c["judge"], "no_bwrap": True, "workers": 10**6}, rollout={**c["rollout"], "threads": 10**6}))
    bundle = read_bundle(forge.repack(members))
    config = rerun_config(bundle, extract_sources(bundle, tmp_path / "source"), 0)
    assert config.warmup == {"docs": "full"}, config.warmup  # the cache: WarmupConfig's default, this machine's
    assert WarmupConfig(data=tmp_path, **config.warmup).cache_dir == DEFAULT_CACHE_DIR
    assert config.judge["no_bwrap"] is False  # programs at once: this machine's CPUs, as its memory allows
    assert config.judge["workers"] == judge_workers(None, config.judge.get("memory_mb") or 1024) <= os.cpu_count()
    assert config.rollout["threads"] is None


# ---- bounded work, through the API too ----------------------------------------------------------------------


def test_rerun_bundle_alone_refuses_a_setting_over_a_cap(forge, tmp_path, tiny_model, no_study):
    """`sebench verify --rerun` checks the caps at verify's records step; rerun_bundle, called alone, checks them
    itself."""
    members = forge.members()
    config_change(forge, members, lambda c: c["rollout"].update(max_tokens=10**9))
    with pytest.raises(SebenchError, match=r"^run/manifest.json: rollout.max_tokens 1000000000 is over the verifier's"):
        rerun(forge.repack(members), tmp_path, tiny_model)


def test_a_built_in_methods_training_is_bounded_in_a_rerun(forge, tmp_path):
    """A built-in method trains without a time limit in the submitter's own run; in a re-run, with the arguments
    the bundle chose (epochs 10^9), it has the limit of every method (TRAIN_TIMEOUT)."""
    from sebench.methods.run import TRAIN_TIMEOUT
    from sebench.submit import read_bundle
    from sebench.submit.rerun import extract_sources, rerun_config

    members = forge.members()
    both(forge, members, lambda r: r.update(origin="built-in", spec="docs-cpt", args={"epochs": 10**9}))
    bundle = read_bundle(forge.repack(members))
    config = rerun_config(bundle, extract_sources(bundle, tmp_path / "source"), 0)
    assert config.method_process(LABEL)[1] == TRAIN_TIMEOUT


@pytest.mark.parametrize("label", ["closed-sft-rl", "sft-grpo", "../../escape"])
def test_the_bundled_label_is_no_regime_and_no_path(forge, tmp_path, tiny_model, no_study, label):
    """A method labelled as a regime that starts from Closed-SFT made the re-run train the Closed-SFT regime first
    (with the bundle's training settings, and no time limit); a label that is no plain name (which verify's
    answers step refuses) put the re-run's folders outside its work folder, through rerun_bundle alone."""
    members = forge.members()
    both(forge, members, lambda r: r.update(label=label))
    with pytest.raises(SebenchError, match=r"^submission.json: label .* is a regime's name or not a plain name"):
        rerun(forge.repack(members), tmp_path, tiny_model)


@pytest.mark.parametrize("layer", ["landlock", "audit-hook"])
def test_a_launch_across_processes_opens_no_tcp_outside_bubblewrap(forge, tmp_path, tiny_model, no_study, monkeypatch,
                                                                     layer):
    """`launch.gpus` above 1 lets the method's processes talk over TCP on the loopback: under Landlock, which
    cannot tell the loopback from other addresses, that left TCP open to every address, and the audit hook let
    it reach the verifier's own local services. Under bubblewrap the method has a loopback of its own."""
    from sebench.methods import available_layers

    if layer not in available_layers():
        pytest.skip(f"no {layer} layer here")
    monkeypatch.setenv("SEBENCH_ISOLATION", layer)
    members = forge.members()
    config_change(forge, members, lambda c: c["launch"].update(gpus=2))
    with pytest.raises(SebenchError, match=rf"^run/manifest.json: config.launch.gpus 2: .* \(here: {layer}\)"):
        rerun(forge.repack(members), tmp_path, tiny_model)


@pytest.mark.parametrize("origin", ["module", "entry point"])
def test_a_module_bundle_imports_only_a_bundled_module(forge, tmp_path, tiny_model, no_study, origin):
    """A module or entry-point bundle without its module's source (and no source_sha256 for verify to check)
    had the re-run import a module installed on the verifier's machine, by the name the bundle chose."""
    members = forge.members()
    del members["method/source/reference_sft.py"]
    both(forge, members, lambda r: r.update(origin=origin, spec="json:dumps", source_sha256=None))
    forge.edit_json(members, "submission.json", lambda s: s.update(entry="json:dumps", sources=[]))
    with pytest.raises(SebenchError, match=r"^submission.json: entry 'json:dumps': its module is not in the bundle"):
        rerun(forge.repack(members), tmp_path, tiny_model)

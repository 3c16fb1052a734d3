"""Stage completion records: skip what is done, resume what is not, refuse changed settings."""

import json

import pytest

from sebench.errors import SebenchError
from sebench.experiment.config import parse_setting, resolve
from sebench.experiment.state import StageBook


def _writer(path, calls, text="x"):
    def fn():
        calls.append(path.name)
        path.write_text(text)

    return fn


def test_done_stage_is_skipped(tmp_path):
    book, calls = StageBook(tmp_path), []
    out = tmp_path / "a.txt"
    first = book.run("a", {"k": 1}, [out], _writer(out, calls))
    again = book.run("a", {"k": 1}, [out], _writer(out, calls))
    assert calls == ["a.txt"] and first == again and first["status"] == "done"
    assert first["outputs"] == {"a.txt": again["outputs"]["a.txt"]}


def test_changed_config_is_refused_then_redone_with_overwrite(tmp_path):
    out, calls = tmp_path / "a.txt", []
    StageBook(tmp_path).run("train:closed-sft", {"epochs": 3, "lr": 2e-4}, [out], _writer(out, calls))
    with pytest.raises(SebenchError, match=r"stage 'train:closed-sft' .* \(epochs: 3 -> 4\); pass --overwrite"):
        StageBook(tmp_path).run("train:closed-sft", {"epochs": 4, "lr": 2e-4}, [out], _writer(out, calls))
    record = StageBook(tmp_path, overwrite=True).run("train:closed-sft", {"epochs": 4, "lr": 2e-4}, [out],
                                                      _writer(out, calls, "y"))
    assert calls == ["a.txt", "a.txt"] and record["config"]["epochs"] == 4 and out.read_text() == "y"


def test_unfinished_stage_resumes_or_restarts(tmp_path):
    book = StageBook(tmp_path)
    out = tmp_path / "rollouts.jsonl"

    def crash():
        out.write_text("partial\n")
        raise KeyboardInterrupt

    for resumable, expected in ((True, "partial\nmore\n"), (False, "more\n")):
        out.unlink(missing_ok=True)
        name = f"s{resumable}"
        with pytest.raises(KeyboardInterrupt):
            book.run(name, {}, [out], crash, resumable=resumable)
        assert book.get(name)["status"] == "running"
        book.run(name, {}, [out], lambda: out.open("a").write("more\n"), resumable=resumable)
        assert out.read_text() == expected and book.get(name)["attempts"] == 2


def test_missing_output_is_an_error(tmp_path):
    with pytest.raises(SebenchError, match="finished without writing"):
        StageBook(tmp_path).run("a", {}, [tmp_path / "never"], lambda: None)


def test_presets_and_overrides():
    cfg = resolve("quick", dict([parse_setting("train.lr=1e-4"), parse_setting("trained_modes=[\"closed\"]"),
                                 parse_setting("train_regimes.closed-rl.max-steps=7")]))
    assert cfg.train["lr"] == 1e-4 and cfg.trained_modes == ["closed"] and cfg.regimes == ["closed-sft"]
    assert cfg.train["grad_accum"] == 4 and cfg.train["epochs"] == 3.0  # the rest of the preset's section stays
    assert cfg.train_regimes == {"closed-rl": {"max_steps": 7}}
    assert resolve("gpu", {}).functions is None
    with pytest.raises(SebenchError, match="unknown setting 'lrr'"):
        resolve("quick", {"lrr": 1})
    with pytest.raises(SebenchError, match="unknown regime 'closed_sft'; did you mean 'closed-sft'"):
        resolve("quick", {"regimes": ["closed_sft"]})
    assert json.dumps(cfg.to_dict())


def test_a_setting_of_a_stage_is_named_by_its_section():
    """The stage's own config declares each setting: the study's flat names of before point there."""
    for flat, home in (("lr", "train.lr"), ("samples", "rollout.n"), ("max_tokens", "rollout.max_tokens"),
                       ("judge_workers", "judge.workers"), ("grad_accum", "train.grad_accum")):
        with pytest.raises(SebenchError, match=f"unknown setting '{flat}'; did you mean '{home}'"):
            resolve("quick", {flat: 1})
    with pytest.raises(SebenchError, match="'seed' is a single value"):
        resolve("quick", {"seed.x": 1})
    with pytest.raises(SebenchError, match=r"rollout.max_tokens must be at least 1 \(got 0\)"):
        resolve("quick", {"rollout.max_tokens": 0})
    with pytest.raises(SebenchError, match=r"train\.target must be one of"):
        resolve("quick", {"train.target": "everything"})
    cfg = resolve("quick", {"rollout.max_tokens": 64, "judge.timeout": 5.0})
    assert cfg.rollout["max_tokens"] == 64 and cfg.rollout["n"] == 1 and cfg.judge["timeout"] == 5.0
    # every field of each stage's section is shown, with its default where the preset leaves it
    from sebench.rollout.run import RolloutConfig

    assert cfg.rollout["top_p"] == 1.0 and cfg.rollout["memory_k"] == RolloutConfig.__dataclass_fields__["memory_k"].default


def test_the_original_protocol_sets_the_decoding_the_user_leaves_open():
    cfg = resolve("quick", {"protocol": "original"})
    assert (cfg.rollout["n"], cfg.rollout["temperature"], cfg.rollout["max_tokens"], cfg.rollout["thinking"]) == (
        5, 0.6, 8192, "on")
    assert resolve("quick", {"protocol": "original", "rollout.n": 2}).rollout["n"] == 2


def test_training_a_served_model_needs_weights(tmp_path):
    from sebench.experiment.run import Study

    cfg = resolve("quick", {"model": "openai:m@http://127.0.0.1:9/v1"})
    with pytest.raises(SebenchError, match="pass --train-model hf:<the same model>"):
        Study(cfg, tmp_path / "run").run()
    assert not (tmp_path / "run").exists()
    assert Study(resolve("quick", {"model": "openai:m@x", "train_model": "hf:m"}), tmp_path).train_model == "hf:m"


def test_misspelt_training_settings_fail_when_the_config_is_resolved():
    with pytest.raises(SebenchError, match="train: unknown setting 'grad_acum'; did you mean 'grad_accum'"):
        resolve("quick", {"train.grad_acum": 2})
    with pytest.raises(SebenchError, match=r"train_regimes\.closed-rl: unknown setting 'epsilonn'"):
        resolve("quick", {"train_regimes": {"closed-rl": {"epsilonn": 0.3}}})
    with pytest.raises(SebenchError, match=r"variants\.wide: unknown setting 'epsilon_hi'"):
        resolve("quick", {"variants": {"wide": {"regime": "closed-rl", "epsilon_hi": 0.5}}, "regimes": ["wide"]})
    with pytest.raises(SebenchError, match=r"train_regimes\.open-rl: expected"):
        resolve("quick", {"train_regimes": {"open-rl": 3}})
    with pytest.raises(SebenchError, match="unknown train_regimes key value 'closed-rll'"):
        resolve("quick", {"train_regimes.closed-rll.lr": 1e-5})
    with pytest.raises(SebenchError, match="warmup: unknown setting 'doc'; did you mean 'docs'"):
        resolve("quick", {"warmup": {"doc": "compact"}})
    for preset in ("quick", "cpu", "paper-mini", "gpu"):
        resolve(preset, {})


def test_a_train_stage_record_is_the_train_config_it_trains_with(tmp_path):
    """The record is derived from the TrainConfig itself: every field is in it (bar where it writes and how
    fast), so a setting from a train section or a variant cannot be left out of it."""
    import dataclasses

    from sebench.experiment.run import Study
    from sebench.experiment.state import config_record
    from sebench.train.config import TrainConfig

    cfg = resolve("paper-mini", {"model": "hf:some/model"})
    study = Study(cfg, tmp_path / "run")
    study.data = tmp_path
    wide = study.train_config("closed-rl-off-policy", tmp_path / "out", None, None)
    plain = study.train_config("closed-rl", tmp_path / "out", None, None)
    assert (wide.regime, wide.old_logps, plain.old_logps) == ("closed-rl", "sampling", "recompute")
    assert wide.max_steps == 48 and wide.grad_accum == 1 and wide.lr == 2e-5  # train_regimes.closed-rl
    sft = study.train_config("closed-sft", tmp_path / "out", None, None)
    assert sft.grad_accum == 4 and sft.lr == 2e-4  # the train section: every regime
    record = config_record(wide, drop=("out",), data="hash")
    speed = {"overwrite", "threads", "judge_workers", "resume_every"}  # marked speed=True: they change no result
    assert {f.name for f in dataclasses.fields(TrainConfig) if f.metadata.get("speed")} == speed
    assert set(record) == {f.name for f in dataclasses.fields(TrainConfig)} - speed - {"out"}
    assert record["old_logps"] == "sampling" and record["data"] == "hash"
    assert record != config_record(plain, drop=("out",), data="hash")
    remote = Study(resolve("paper-mini", {"model": "hf:some/model", "judge.sandbox_url": ["http://127.0.0.1:9"]}),
                   tmp_path / "remote")
    remote.data = tmp_path
    assert remote.train_config("closed-rl", tmp_path / "out", None, None).sandbox_url == ["http://127.0.0.1:9"]
    assert plain.sandbox_url is None  # judged in-process, as the study's verdicts are


def _train_record(tmp_path, label, **changes):
    from sebench.experiment.run import Study
    from sebench.experiment.state import config_record

    study = Study(resolve("paper-mini", {"model": "hf:some/model"}), tmp_path / "run")
    study.data = tmp_path
    train = study.train_config(label, tmp_path / "out", None, None)
    return {**config_record(train, drop=("data", "out", "verdicts"), data="hash"), **changes}


def test_a_train_record_in_an_earlier_form_continues_a_run(tmp_path):
    """A record an earlier sebench wrote (an unset optimizer field written out as the value it stands for, a
    field it predates missing, a field the regime does not use at another value) is the same stage; a
    setting that trains differently is still refused."""
    from sebench.train import comparable_settings

    now = _train_record(tmp_path, "closed-rl")
    assert now["adam_beta2"] is None and now["selfplay_samples"] == 0
    earlier = {k: v for k, v in now.items() if k not in ("selfplay_min_cases", "vllm_server")}
    earlier.update(adam_beta2=0.999, selfplay_samples=2)  # sebench's GRPO beta2; a self-play field
    assert comparable_settings(earlier) == comparable_settings(now)
    for changed in ({"adam_beta2": 0.95}, {"weight_decay": 0.0}, {"old_logps": "sampling"}, {"data": "other"},
                    {"dual_clip": 0.0}):
        assert comparable_settings({**earlier, **changed}) != comparable_settings(now), changed
    selfplay = {**now, "regime": "self-play-sft"}
    assert comparable_settings({**selfplay, "selfplay_samples": 2}) != comparable_settings(selfplay)
    assert comparable_settings({**selfplay, "old_logps": "sampling"}) == comparable_settings(selfplay)
    assert comparable_settings({**now, "regime": "no-such-regime"}) is None

    out, calls = tmp_path / "ckpt", []
    book = StageBook(tmp_path)
    book.run("train:closed-rl", earlier, [out], _writer(out, calls), comparable=comparable_settings)
    book.run("train:closed-rl", now, [out], _writer(out, calls), comparable=comparable_settings)
    assert calls == ["ckpt"]  # done already: skipped
    with pytest.raises(SebenchError, match=r"\(old_logps: \"recompute\" -> \"sampling\"\)"):
        book.run("train:closed-rl", {**now, "old_logps": "sampling"}, [out], _writer(out, calls),
                 comparable=comparable_settings)
    with pytest.raises(SebenchError, match="--overwrite"):
        book.run("train:closed-rl", now, [out], _writer(out, calls))  # without the stage's rule: refused


def test_a_derived_stage_is_redone_when_its_inputs_change(tmp_path):
    book = StageBook(tmp_path)
    out, calls = tmp_path / "report", []
    book.run("report", {"verdicts": 1}, [out], _writer(out, calls), derived=True)
    book.run("report", {"verdicts": 1}, [out], _writer(out, calls), derived=True)
    assert calls == ["report"]
    book.run("report", {"verdicts": 2}, [out], _writer(out, calls), derived=True)  # no --overwrite needed
    assert calls == ["report", "report"] and book.get("report")["config"] == {"verdicts": 2}
    with pytest.raises(SebenchError, match="--overwrite"):
        book.run("report", {"verdicts": 3}, [out], _writer(out, calls))  # any other stage is refused


def test_each_stage_record_holds_the_threads_it_ran_on(tmp_path, monkeypatch, caplog):
    """A scripted wait: a competitor comes 30 s into the training stage; the judge sets no threads."""
    import logging

    torch = pytest.importorskip("torch")
    from sebench import threads

    clock, loads = [0.0], [0.0, 0.9]
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    monkeypatch.setattr(threads, "GOVERNOR", threads.ThreadGovernor(reading=lambda: loads.pop(0), cores=2,
                                                                    clock=lambda: clock[0]))
    before = torch.get_num_threads()

    def train():
        threads.set_threads()
        clock[0] += 30.0
        threads.adapt_threads()
        clock[0] += 90.0
        (tmp_path / "ckpt").write_text("x")

    book = StageBook(tmp_path)
    try:
        with caplog.at_level(logging.INFO, logger="sebench"):
            trained = book.run("train:closed-sft", {}, [tmp_path / "ckpt"], train)
    finally:
        torch.set_num_threads(before)
    judged = book.run("judge", {}, [tmp_path / "v"], lambda: (tmp_path / "v").write_text("x"))
    assert trained["threads"] == {"cores": 2, "policy": "adaptive", "seconds": {"2": 30.0, "1": 90.0}}
    assert judged["threads"] is None
    assert "90 s of them on fewer CPU threads than the 2 cores" in caplog.text
    assert "waited 0.90 s a second for a core" in caplog.text


def test_the_study_still_rebuilds_its_own_instance(tmp_path, monkeypatch):
    """`sebench build` refuses to build over an instance; the study's build stage removes its own output
    before it runs again, so a changed seed with --overwrite rebuilds RUN_DIR/instance as before."""
    from sebench.builder import run as build_run
    from sebench.experiment.run import Study
    from sebench.instance import Instance

    real = build_run.build_instance
    monkeypatch.setattr(build_run, "build_instance", lambda out, **kw: real(out, docs=False, audit=False, **kw))
    small = {"functions": 0, "build_train": 3, "build_single": 0, "build_multiple": 0}
    Study(resolve("quick", small), tmp_path).prepare_data()
    with pytest.raises(SebenchError, match=r"stage 'build' .*seed: 0 -> 1.*pass --overwrite"):
        Study(resolve("quick", {**small, "seed": 1}), tmp_path).prepare_data()
    Study(resolve("quick", {**small, "seed": 1}), tmp_path, overwrite=True).prepare_data()
    assert Instance.open(tmp_path / "instance").manifest()["seed"] == 1


def test_the_random_ft_control_is_closed_sft_with_the_same_settings_on_another_package():
    cfg = resolve("quick", {"regimes": ["closed-sft", "closed-sft-random"], "train.lr": 3e-4,
                            "train_regimes.closed-sft.epochs": 2})
    assert cfg.regime_of("closed-sft-random") == "closed-sft"
    assert cfg.on_random_package("closed-sft-random") and not cfg.on_random_package("closed-sft")
    assert cfg.train_settings("closed-sft-random") == cfg.train_settings("closed-sft")
    assert "closed-sft-random" not in resolve("quick", {}).variants  # only where a study lists it
    with pytest.raises(SebenchError, match=r"variants\.other\.package: only \"random\""):
        resolve("quick", {"variants": {"other": {"regime": "closed-sft", "package": "seed7"}}, "regimes": ["other"]})


def test_a_model_an_interrupted_training_saved_is_set_aside_and_the_stage_trains_again(tmp_path, monkeypatch):
    """A training stage killed after its processes saved a model (its record still "running") leaves nothing
    that proves that model complete: the rerun moves it to RUN_DIR/incomplete/<label>.<n> and trains again,
    where the trainer itself would refuse the folder; resume points with no saved model stay where they are."""
    from sebench.experiment.run import Study
    from sebench.train.run import prepare_out

    study = Study(resolve("paper-mini", {"model": "hf:some/model"}), tmp_path / "run")
    study.data = tmp_path
    out = study.checkpoint_dir("closed-sft")
    train = study.train_config("closed-sft", out, None, None)
    attempts = []

    def killed(label, train):
        attempts.append(label)
        prepare_out(train.out, overwrite=False)  # the trainer's own refusal of a folder holding a model
        (train.out / "trainer").mkdir(exist_ok=True)
        (train.out / "trainer" / "rl-resume").write_text("point")
        if len(attempts) == 1:
            (train.out / "config.json").write_text("{}")  # killed after saving the model
        raise KeyboardInterrupt  # the study killed here

    monkeypatch.setattr(study, "_train", killed)
    for _ in range(2):
        with pytest.raises(KeyboardInterrupt):
            study.run_training("closed-sft", train, data="hash")
    assert study.book.get("train:closed-sft")["status"] == "running"
    assert sorted(p.name for p in (study.root / "incomplete").iterdir()) == ["closed-sft.1"]
    assert (study.root / "incomplete" / "closed-sft.1" / "config.json").is_file()

    def resumed(label, train):
        attempts.append(label)
        assert (train.out / "trainer" / "rl-resume").read_text() == "point"  # no saved model: kept to resume
        (train.out / "config.json").write_text("{}")

    monkeypatch.setattr(study, "_train", resumed)
    study.run_training("closed-sft", train, data="hash")
    assert study.book.get("train:closed-sft")["status"] == "done" and len(attempts) == 3

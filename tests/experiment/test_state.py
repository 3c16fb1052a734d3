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
    cfg = resolve("quick", dict([parse_setting("lr=1e-4"), parse_setting("trained_modes=[\"closed\"]")]))
    assert cfg.lr == 1e-4 and cfg.trained_modes == ["closed"] and cfg.regimes == ["closed-sft"]
    assert resolve("gpu", {}).functions is None
    with pytest.raises(SebenchError, match="unknown setting 'lrr'"):
        resolve("quick", {"lrr": 1})
    with pytest.raises(SebenchError, match="unknown regimes value 'closed_sft'; did you mean 'closed-sft'"):
        resolve("quick", {"regimes": ["closed_sft"]})
    assert json.dumps(cfg.to_dict())


def test_training_a_served_model_needs_weights(tmp_path):
    from sebench.experiment.run import Study

    cfg = resolve("quick", {"model": "openai:m@http://127.0.0.1:9/v1"})
    with pytest.raises(SebenchError, match="pass --train-model hf:<the same model>"):
        Study(cfg, tmp_path / "run").run()
    assert not (tmp_path / "run").exists()
    assert Study(resolve("quick", {"model": "openai:m@x", "train_model": "hf:m"}), tmp_path).train_model == "hf:m"

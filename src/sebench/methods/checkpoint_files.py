"""What a returned checkpoint may carry besides its weights: nothing that changes how it is evaluated.

The evaluation (the transformers loop and a vLLM server alike) and the name recall build every prompt with
the tokenizer files a checkpoint folder carries: its chat template (tokenizer_config.json, chat_template.jinja
or chat_template.json), its tokenizer.json (whose normalizer can rewrite any text), its special and added
tokens. A method could put the library's documentation into a template and turn the closed-book evaluation
into an open-book one. So a checkpoint other than the start model passes only when the tokenizer it carries
is the start model's in every part the evaluation uses. Its config.json may not ask for an attention kernel
from the Hub (`attn_implementation` "org/name": code fetched and run on loading) nor for quantization
(`quantization_config`: another precision, and another package's loader). Nor may it name another model or
file to load in its place: a PEFT adapter (`adapter_config.json`: transformers loads its
`base_model_name_or_path`, a path anywhere or a Hub id, and the adapter on top), or a shard index
(`*.index.json`) whose `weight_map` names a file other than one of the folder's own. Anything else fails the
method with one line naming the file and the field. The original's trained checkpoints carry the base model's tokenizer
and generation config (SE-Bench's verl_evolve/verl/model_merger/base_model_merger.py,
save_hf_model_and_tokenizer), and a checkpoint that sebench's own trainers save passes as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.files import read_json_object

# the files a tokenizer is loaded from; a folder with none of them has no tokenizer to use or to check
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "chat_template.jinja", "chat_template.json", "additional_chat_templates", "tokenizer.model",
                   "vocab.json", "vocab.txt", "merges.txt")
TEMPLATE_FILES = ("chat_template.jinja", "chat_template.json", "tokenizer_config.json")
# tokenizer.json's parts: the vocabulary and merges ("model"), and the steps that rewrite text on the way
TOKENIZER_JSON_PARTS = ("normalizer", "pre_tokenizer", "model", "post_processor", "decoder", "added_tokens")
DECODING = ("clean_up_tokenization_spaces", "split_special_tokens", "add_bos_token", "add_eos_token")
ADAPTER_FILE = "adapter_config.json"  # a PEFT adapter: the loader fetches its base model, wherever it names


def carries_tokenizer(folder: Path) -> bool:
    """Whether `folder` holds any file a tokenizer is loaded from."""
    return any((folder / name).exists() for name in TOKENIZER_FILES)


def tokenizer_fields(tokenizer: Any) -> dict[str, tuple[str, object]]:
    """What of `tokenizer` the evaluation uses, field -> (the file a checkpoint keeps it in, its value)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    parts = json.loads(backend.to_str()) if backend is not None else {}
    fields: dict[str, tuple[str, object]] = {
        "chat_template": ("", tokenizer.chat_template),
        "tokenizer_class": ("tokenizer_config.json", type(tokenizer).__name__),
        # the pad token is left out: trainers set it (to the end token, say) and the evaluation masks it
        "special_tokens": ("special_tokens_map.json", {k: str(v) for k, v in tokenizer.special_tokens_map.items()
                                                       if k != "pad_token"}),
        "added_tokens_decoder": ("added_tokens.json", {i: repr(t) for i, t in tokenizer.added_tokens_decoder.items()}),
        "vocabulary": ("tokenizer.json", tokenizer.get_vocab() if backend is None else None),
    }
    fields.update({name: ("tokenizer.json", parts.get(name)) for name in TOKENIZER_JSON_PARTS})
    fields.update({name: ("tokenizer_config.json", getattr(tokenizer, name, None)) for name in DECODING})
    return fields


def _file_of(folder: Path, field: str, usual: str) -> str:
    """The file of `folder` that a differing `field` is read from (the template's: the first that is there)."""
    if not carries_tokenizer(folder):  # config.json's tokenizer_class chose one that needs no file
        return "config.json"
    if field == "chat_template":
        return next((n for n in TEMPLATE_FILES if (folder / n).exists()), "tokenizer_config.json")
    if usual in ("special_tokens_map.json", "added_tokens.json") and not (folder / usual).exists():
        return "tokenizer.json" if field == "added_tokens_decoder" and (folder / "tokenizer.json").exists() \
            else "tokenizer_config.json"
    return usual


def check_checkpoint(folder: Path, start_model: str) -> None:
    """Refuses, with one line naming the file and field, a checkpoint folder whose config.json asks for a Hub
    kernel or quantization, that names another model or file to load, or whose tokenizer differs from
    `start_model`'s in anything the evaluation uses."""
    check_own_files(folder)
    check_config(folder)
    check_tokenizer(folder, start_model)


def check_own_files(folder: Path) -> None:
    """Refuses a folder whose loading would read weights from elsewhere: an adapter (its base model, a path or
    a Hub id, is loaded in the folder's place) or a shard index naming anything but a file name of its own."""
    if (folder / ADAPTER_FILE).exists() or (folder / ADAPTER_FILE).is_symlink():
        raise SebenchError(f"{folder / ADAPTER_FILE}: base_model_name_or_path: an adapter loads another model in "
                           "the checkpoint's place; return its weights merged (merge_and_unload, then save_pretrained)")
    for index in sorted(folder.glob("*.index.json")):
        weights = read_json_object(index).get("weight_map")
        if not isinstance(weights, dict):
            raise SebenchError(f"{index}: weight_map is not an object of tensor names and file names")
        for tensor, name in weights.items():
            if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name \
                    or not (folder / name).is_file():
                raise SebenchError(f"{index}: weight_map[{tensor!r}] names {name!r}, not a file of this folder; "
                                   "a checkpoint's shards lie beside their index")


def check_config(folder: Path) -> None:
    """Refuses a config.json (its sub-configs included) that names an attention implementation other than
    transformers' own, or a quantization_config."""
    path = folder / "config.json"
    if not path.is_file():
        return
    from transformers import AttentionInterface

    config = read_json_object(path)
    own = {"eager", *AttentionInterface._global_mapping}
    for where, key, value in _fields(config, ""):
        if key in ("attn_implementation", "_attn_implementation") and value is not None and value not in own:
            raise SebenchError(f"{path}: {where}{key} {value!r} is not one of transformers' own attention "
                               f"implementations ({', '.join(sorted(own))}); sebench loads no kernel a checkpoint names")
        if key == "quantization_config" and value is not None:
            raise SebenchError(f"{path}: {where}{key}: a returned checkpoint is evaluated as plain weights in the "
                               "study's precision; save it unquantized")


def _fields(config: object, where: str) -> Iterator[tuple[str, str, object]]:
    """(path of the object, key, value) of every key of `config`'s objects, nested ones included (in a loop, so
    that no nesting the JSON reader accepts runs out of stack)."""
    stack = [(config, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                yield at, str(key), value
                stack.append((value, f"{at}{key}."))
        elif isinstance(item, list):
            stack += [(value, at) for value in item]


def check_tokenizer(folder: Path, start_model: str) -> None:
    """Refuses a checkpoint folder whose tokenizer differs from `start_model`'s in anything the evaluation uses.
    Whether it carries one is found by loading it as the evaluation does, not from its files' names (config.json's
    `tokenizer_class` alone loads a tokenizer that needs no file); a folder that loads none passes."""
    from sebench.models import load_tokenizer

    try:
        theirs = load_tokenizer(str(folder))
    except SebenchError as exc:
        if not carries_tokenizer(folder):
            return
        raise SebenchError(f"{folder}: its tokenizer cannot be loaded: {exc}") from None
    try:
        start = load_tokenizer(start_model)
    except SebenchError as exc:
        raise SebenchError(f"{folder}: it carries a tokenizer, and the start model's ({start_model}) cannot be "
                           f"loaded to check it against: {exc}") from None
    expected = tokenizer_fields(start)
    for field, (usual, value) in tokenizer_fields(theirs).items():
        if value != expected[field][1]:
            raise SebenchError(
                f"{folder / _file_of(folder, field, usual)}: {field} is not the start model's ({start_model}); "
                "a checkpoint is evaluated with its start model's tokenizer and chat template, "
                "so it must carry them unchanged")

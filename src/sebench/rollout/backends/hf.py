"""transformers in-process: batched generation with left padding, on CPU or GPU.

Spec: `hf:<path or hub id>`, and `smollm2-135m` (the embedded default, see sebench.models).
Requests with the same sampling settings are batched, longest first, up to `batch_size` rows and
`max_batch_tokens` padded tokens; a row stops at its end-of-turn token, at one of the request's stop
strings, or at the end of its first complete code block outside <think>...</think>, because the judge
only reads that block and a small model left alone rambles on to max_tokens. A stopped row leaves the
batch at once (generate_tokens, a KV-cached loop that trainers' sampling can reuse).
Greedy requests for n > 1 samples generate once (the samples would be identical anyway).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from sebench.rollout.backends import Backend, Completion, GenerationRequest
from sebench.rollout.text import cut_at_stop

log = logging.getLogger(__name__)


class HFBackend(Backend):
    def __init__(
        self,
        argument: str = "",
        device: str | None = None,
        dtype: Any = None,
        batch_size: int | None = None,
        max_batch_tokens: int | None = None,
        stop_at_code_block: bool = True,
        model: Any = None,
        tokenizer: Any = None,
        threads: int | None = None,
        **_ignored: Any,
    ):
        if model is None or tokenizer is None:
            from sebench.models import EMBEDDED_DEFAULT, load_causal_lm

            model, tokenizer = load_causal_lm(argument or EMBEDDED_DEFAULT, device=device, dtype=dtype, threads=threads)
        self.threads = threads  # CPU threads for generation (sebench.threads.set_threads); None: adapting
        self.name = f"hf:{argument}"
        self.model, self.tokenizer = model, tokenizer
        on_gpu = self.model.device.type == "cuda"
        self.batch_size = batch_size or (64 if on_gpu else 16)
        self.max_batch_tokens = max_batch_tokens or (1 << 18 if on_gpu else 1 << 15)
        self.stop_at_code_block = stop_at_code_block
        self.context_tokens = int(getattr(self.model.config, "max_position_embeddings", 0) or 0) or None
        self.eos_ids = eos_ids(self.model, self.tokenizer)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos_ids[0]

    def close(self) -> None:
        """Drops the model so that its memory can be freed (GPU memory included)."""
        on_gpu = self.model is not None and self.model.device.type == "cuda"
        self.model = None
        if on_gpu:
            import torch

            torch.cuda.empty_cache()

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, messages: list[dict], thinking: bool | None = None) -> list[int]:
        return chat_prompt_ids(self.tokenizer, messages, thinking)

    # ---- generation ----
    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        if self.model.device.type == "cpu":
            from sebench.threads import set_threads

            set_threads(self.threads)  # this backend's setting (a study's stages share one loaded model)
        rows = []  # (request index, prompt ids, request); greedy n > 1 generates one row
        for index, request in enumerate(requests):
            ids = self._fit(self.prompt_ids(request.messages, request.thinking), request.max_tokens)
            copies = 1 if request.temperature <= 0 else request.n
            rows += [(index, ids, request)] * copies
        outputs: list[list[Completion]] = [[] for _ in requests]
        for batch in self._batches(rows):
            for (index, _, _request), completion in zip(batch, self._generate_batch(batch)):
                outputs[index].append(completion)
        for index, request in enumerate(requests):
            if request.temperature <= 0:
                outputs[index] = outputs[index] * request.n
        return outputs

    def _fit(self, ids: list[int], max_tokens: int) -> list[int]:
        if self.context_tokens and len(ids) + max_tokens > self.context_tokens:
            keep = max(1, self.context_tokens - max_tokens)
            log.warning("prompt of %d tokens cut to its last %d to fit the %d-token context", len(ids), keep, self.context_tokens)
            return ids[-keep:]
        return ids

    def _batches(self, rows: list) -> list[list]:
        """Rows with equal settings, longest first, cut by rows and by padded tokens."""
        groups: dict[tuple, list] = {}
        for row in rows:
            r = row[2]
            # the seed is left out so that per-task seeds still batch; a batch is seeded by its first row
            groups.setdefault((r.temperature, r.top_p, r.max_tokens, tuple(r.stop or ())), []).append(row)
        batches = []
        for group in groups.values():
            group.sort(key=lambda row: -len(row[1]))
            batch: list = []
            for row in group:
                width = len(batch[0][1] if batch else row[1]) + row[2].max_tokens
                if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * width > self.max_batch_tokens):
                    batches.append(batch)
                    batch = []
                batch.append(row)
            if batch:
                batches.append(batch)
        return batches

    def _generate_batch(self, batch: list) -> list[Completion]:
        import torch

        request: GenerationRequest = batch[0][2]
        if request.seed is not None:
            torch.manual_seed(request.seed)
        stops = [RowStop(self.tokenizer, request.stop, self.stop_at_code_block) for _ in batch]
        started = time.perf_counter()
        new = generate_tokens(self.model, [ids for _, ids, _ in batch], request.max_tokens, self.eos_ids,
                              self.pad_id, request.temperature, request.top_p,
                              should_stop=lambda row, token: stops[row].add(token))
        seconds = time.perf_counter() - started
        return [
            dataclasses.replace(self._completion(tokens, len(ids), row_request), seconds=seconds)
            for tokens, (_, ids, row_request) in zip(new, batch)
        ]

    def _completion(self, tokens: list[int], prompt_tokens: int, request: GenerationRequest) -> Completion:
        ended = next((i for i, t in enumerate(tokens) if t in self.eos_ids), None)
        used = tokens if ended is None else tokens[:ended]
        text = self.tokenizer.decode(used, skip_special_tokens=True)
        text, stopped = cut_at_stop(text, request.stop, self.stop_at_code_block)
        finish = "stop" if ended is not None or stopped else "length"
        # a row stopped at its code block is followed by padding (the eos id), not by a generated eos
        generated_eos = ended is not None and not stopped
        return Completion(text, finish, prompt_tokens, len(used) + generated_eos)


def chat_prompt_ids(tokenizer: Any, messages: list[dict], thinking: bool | None = None) -> list[int]:
    """The token ids of `messages` under the chat template, ready for the assistant's answer; `thinking` is
    the template's enable_thinking (None: its default). Rollouts and training tokenise prompts with this."""
    extra = {} if thinking is None else {"enable_thinking": thinking}
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **extra)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def eos_ids(model: Any, tokenizer: Any) -> list[int]:
    """The token ids that end a generation: the model's generation config's, and the tokenizer's own."""
    ids = model.generation_config.eos_token_id
    ids = list(ids) if isinstance(ids, (list, tuple)) else [ids] if ids is not None else []
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    return ids


def generate_tokens(model: Any, prompts: list[list[int]], max_new_tokens: int, eos_ids: list[int], pad_id: int,
                    temperature: float = 0.0, top_p: float = 1.0,
                    should_stop: Callable[[int, int], bool] | None = None) -> list[list[int]]:
    """New token ids for each prompt (a batch, left-padded here), greedy or sampled, with a KV cache.

    The fast path that rollouts use and that a trainer's sampling can call: the prompt's logits are
    computed for its last position only (no full-vocabulary projection over the prompt), and a row
    leaves the batch, cache included, as soon as it ends: at an `eos_ids` token (kept as the row's last
    token) or when `should_stop(row, token)` says so after its newest token. Sampling draws from torch's
    global generator (seed it with torch.manual_seed), with temperature and nucleus (top_p) filtering.
    Nothing here holds logits beyond one position a row, so memory is the weights and the KV cache.
    """
    import torch
    from transformers import DynamicCache

    device = model.device
    width = max(len(ids) for ids in prompts)
    input_ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, ids in enumerate(prompts):
        input_ids[i, width - len(ids):] = torch.tensor(ids, dtype=torch.long)
        attention[i, width - len(ids):] = 1
    positions = (attention.cumsum(dim=1) - 1).clamp(min=0)
    input_ids, attention, positions = input_ids.to(device), attention.to(device), positions.to(device)
    cache = DynamicCache(config=model.config)
    tokens: list[list[int]] = [[] for _ in prompts]
    rows = list(range(len(prompts)))  # the prompt index of each row still in the batch
    eos = set(eos_ids)
    with torch.inference_mode():
        logits = model(input_ids=input_ids, attention_mask=attention, position_ids=positions,
                       past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1]
        next_position = positions[:, -1:] + 1
        for step in range(max_new_tokens):
            chosen = _next_tokens(logits, temperature, top_p)
            keep = []
            for j, (row, token) in enumerate(zip(rows, chosen.tolist())):
                tokens[row].append(token)
                stopped = should_stop(row, token) if should_stop else False
                if token not in eos and not stopped:
                    keep.append(j)
            if not keep or step + 1 == max_new_tokens:
                break
            if len(keep) < len(rows):
                index = torch.tensor(keep, device=device)
                cache.reorder_cache(index)
                attention, next_position, chosen = attention[index], next_position[index], chosen[index]
                rows = [rows[j] for j in keep]
            attention = torch.cat([attention, attention.new_ones((len(rows), 1))], dim=1)
            logits = model(input_ids=chosen[:, None], attention_mask=attention, position_ids=next_position,
                           past_key_values=cache, use_cache=True).logits[:, -1]
            next_position = next_position + 1
    return tokens


def _next_tokens(logits: Any, temperature: float, top_p: float) -> Any:
    """Greedy (temperature <= 0) or sampled next tokens, one per row."""
    import torch

    if temperature <= 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_p < 1.0:
        sorted_probs, order = probs.sort(dim=-1, descending=True)
        outside = sorted_probs.cumsum(dim=-1) - sorted_probs > top_p  # keeps the smallest set reaching top_p
        sorted_probs[outside] = 0.0
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
    # a draw from probs: argmax of p / E with E ~ Exp(1) (several times faster than multinomial over 49k tokens)
    return (probs / torch.empty_like(probs).exponential_(1.0)).argmax(dim=-1)


class RowStop:
    """One row's stop check: the end of its first code block after the thinking, or a stop string.

    Each token is decoded alone and appended, so the check costs little; byte-level pieces of a
    multi-byte character decode to replacement characters, which never matter for fences.
    """

    def __init__(self, tokenizer: Any, stops: list[str] | None, code_block: bool):
        self.tokenizer = tokenizer
        self.stops = stops or []
        self.code_block = code_block
        self.text = ""

    def add(self, token: int) -> bool:
        if not (self.code_block or self.stops):
            return False
        piece = self.tokenizer.decode([token])
        self.text += piece
        return bool(("`" in piece or self.stops) and cut_at_stop(self.text, self.stops, self.code_block)[1])

"""transformers in-process: batched generation with left padding, on CPU or GPU.

Spec: `hf:<path or hub id>`, and `smollm2-135m` (the embedded default, see sebench.models).
Requests with the same sampling settings are batched, longest first, up to `batch_size` rows and
`max_batch_tokens` padded tokens; a row stops at its end-of-turn token, at one of the request's stop
strings, or at the end of its first complete code block outside <think>...</think>, because the judge
only reads that block and a small model left alone rambles on to max_tokens.
Greedy requests for n > 1 samples generate once (the samples would be identical anyway).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any

from transformers import StoppingCriteria

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
        **_ignored: Any,
    ):
        if model is None or tokenizer is None:
            from sebench.models import EMBEDDED_DEFAULT, load_causal_lm

            model, tokenizer = load_causal_lm(argument or EMBEDDED_DEFAULT, device=device, dtype=dtype)
        self.name = f"hf:{argument}"
        self.model, self.tokenizer = model, tokenizer
        on_gpu = self.model.device.type == "cuda"
        self.batch_size = batch_size or (64 if on_gpu else 16)
        self.max_batch_tokens = max_batch_tokens or (1 << 18 if on_gpu else 1 << 15)
        self.stop_at_code_block = stop_at_code_block
        self.context_tokens = int(getattr(self.model.config, "max_position_embeddings", 0) or 0) or None
        self.eos_ids = _eos_ids(self.model, self.tokenizer)
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

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    # ---- generation ----
    def generate(self, requests: list[GenerationRequest]) -> list[list[Completion]]:
        rows = []  # (request index, prompt ids, request); greedy n > 1 generates one row
        for index, request in enumerate(requests):
            ids = self._fit(self.prompt_ids(request.messages), request.max_tokens)
            copies = 1 if request.temperature <= 0 else request.n
            rows += [(index, ids, request)] * copies
        outputs: list[list[Completion]] = [[] for _ in requests]
        for batch in self._batches(rows):
            for (index, _, request), completion in zip(batch, self._generate_batch(batch)):
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
        from transformers import GenerationConfig, StoppingCriteriaList

        request: GenerationRequest = batch[0][2]
        width = max(len(row[1]) for row in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for i, (_, ids, _) in enumerate(batch):  # left padding
            input_ids[i, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
            attention[i, width - len(ids) :] = 1
        sample = request.temperature > 0
        config = GenerationConfig(
            max_new_tokens=request.max_tokens,
            do_sample=sample,
            temperature=request.temperature if sample else None,
            top_p=request.top_p if sample else None,
            top_k=0 if sample else None,
            pad_token_id=self.pad_id,
            eos_token_id=self.eos_ids,
        )
        if request.seed is not None:
            torch.manual_seed(request.seed)
        stopper = _StopCriteria(self.tokenizer, width, request.stop, self.stop_at_code_block, len(batch))
        device = self.model.device
        started = time.perf_counter()
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=input_ids.to(device),
                attention_mask=attention.to(device),
                generation_config=config,
                stopping_criteria=StoppingCriteriaList([stopper]),
            )
        new = out[:, width:].tolist()
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


def _eos_ids(model: Any, tokenizer: Any) -> list[int]:
    ids = model.generation_config.eos_token_id
    ids = list(ids) if isinstance(ids, (list, tuple)) else [ids] if ids is not None else []
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    return ids


class _StopCriteria(StoppingCriteria):
    """Per-row stop at the end of the first code block after the thinking, or at a stop string.

    Each step decodes only the newest token of each row and appends it, so the check costs little;
    byte-level pieces of a multi-byte character decode to replacement characters, which never matter
    for fences. Returns a bool per row (transformers finishes those rows and pads them).
    """

    def __init__(self, tokenizer: Any, prompt_width: int, stops: list[str] | None, code_block: bool, rows: int):
        self.tokenizer = tokenizer
        self.prompt_width = prompt_width
        self.stops = stops or []
        self.code_block = code_block
        self.texts = [""] * rows
        self.done = [False] * rows

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        if input_ids.shape[1] > self.prompt_width and (self.code_block or self.stops):
            pieces = self.tokenizer.batch_decode(input_ids[:, -1:].tolist())
            for i, piece in enumerate(pieces):
                if self.done[i]:
                    continue
                self.texts[i] += piece
                if ("`" in piece or self.stops) and cut_at_stop(self.texts[i], self.stops, self.code_block)[1]:
                    self.done[i] = True
        return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)

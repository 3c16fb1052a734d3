"""The arithmetic of `sebench run --plan`: a model's shape, GPU memory per process, and time on a GPU.

Every formula is here, with the figures it uses and where each comes from; nothing touches a GPU.

Shape: a decoder-only transformer with L layers of width h, a heads and kv key-value heads of size d, a
gated MLP of width I (SwiGLU: gate, up, down) and a vocabulary V (input embedding, plus an LM head unless
tied). Parameters P = V·h·(1 or 2) + L·(h·a·d·2 + h·kv·d·2 + 3·h·I + 2h [+ 2d q/k norms]) + h.

Memory per GPU, bytes (GiB = 2^30 bytes):
  full fine-tuning, ZeRO-3 over N GPUs:  16·P / N    bf16 weights 2 + bf16 gradients 2 + fp32 master weights
                                                      4 + Adam's two moments 8 (ZeRO, Rajbhandari et al. 2020)
  LoRA (rank r on every linear layer):   (2·P + 16·P_lora) / N,  P_lora = r·L·Σ(d_in + d_out) of q,k,v,o,gate,up,down
  gathered parameters (ZeRO-3):          2 · 2·max(V·h, one layer)   (the unit in use and the one prefetched)
  activations, gradient checkpointing:   b·s·2·(L·h + 4h + 2a·d + 2kv·d + 4I)   (each layer's input kept; one
                                         layer's tensors rebuilt at a time; flash attention: no s² term)
  logits:                                b·s·V·8   (fp32 logits and their gradient; a fused loss avoids them)
  KV cache (sampling), per token:        2·L·kv·d·2   (keys and values, bf16)
Activations and logits do not shrink with ZeRO (each GPU runs its own micro-batch of b sequences of s tokens).

Time:
  decode (vLLM, memory-bound): a step reads the weights and the active sequences' KV cache:
      seconds = (steps·W + T·(p + ā/2)·k) / (B·η),  steps = max(A, T/m)
    W weight bytes, T tokens generated per GPU, p prompt tokens, ā mean and A longest answer, k KV bytes a
    token, m sequences at once (KV budget / (k·(p + A)), at most 256: vLLM's max_num_seqs), B memory
    bandwidth, η decode efficiency (an assumption, checked against a measured figure in THROUGHPUT);
    never faster than the compute bound 2·P·T / (F·u);
  training: forward FLOPs a token = 2·(P - V·h) + 4·L·a·d·s/2 (matmuls, and causal attention over a
    sequence of s tokens); SFT costs 4 forwards a token (forward, recompute, backward 2), GRPO 5 (one
    more to score the samples); seconds = FLOPs / (F·u), F the peak bf16 rate, u the utilisation (assumed).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

from sebench.files import read_json_object

GIB = 2 ** 30
MAX_NUM_SEQS = 256  # vLLM's default max_num_seqs

# GPUs: usable memory (nvidia-smi's total), HBM bandwidth and dense bf16 peak, from the vendor's datasheets
HARDWARE = {
    "h100-sxm": {"memory_gib": 79.6, "bandwidth": 3.35e12, "bf16_flops": 989e12,
                 "source": "NVIDIA H100 Tensor Core GPU datasheet (2023): 80 GB HBM3 (79.6 GiB in nvidia-smi), "
                           "3.35 TB/s, 989 TFLOPS BF16 dense (1,979 with sparsity)"},
    "h200": {"memory_gib": 140.4, "bandwidth": 4.8e12, "bf16_flops": 989e12,
             "source": "NVIDIA H200 Tensor Core GPU datasheet (2024): 141 GB HBM3e (140.4 GiB in nvidia-smi), "
                       "4.8 TB/s, the H100's tensor cores (989 TFLOPS BF16 dense)"},
}

# measured figures the assumptions are checked against (THROUGHPUT_CHECKS in plan.py prints the comparison)
THROUGHPUT = {
    "vllm_llama31_8b_h100": {
        "value": 8088.35, "unit": "output tokens/s, 1 GPU",
        "setting": {"params": 8.03e9, "kv_bytes_per_token": 2 * 32 * 8 * 128 * 2, "sequences": 256,
                    "mean_context": 1024},
        "source": "Lambda Labs, vllm-benchmark benchmark_v0.md (Sept 2024): Llama 3.1 8B on 1x H100 80GB SXM, "
                  "vLLM 0.6.0, multi-step scheduling 10, 256 sequences of at most 2,048 tokens; the mean "
                  "context (1,024) is our assumption"},
    "llama3_pretraining_mfu": {
        "value": 0.43, "unit": "model FLOP utilisation (38-43%)",
        "source": "Llama Team, The Llama 3 Herd of Models (arXiv 2407.21783, July 2024): 380-430 TFLOPS per H100 "
                  "(38-43% of BF16 peak) pretraining the 405B model on 8,192-16,384 GPUs"},
}


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer's sizes (see the module docstring); `source` says where they were read."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool
    qk_norm: bool = False
    source: str = ""

    @classmethod
    def from_config(cls, config: dict, source: str) -> ModelShape:
        """From a transformers config.json (keys of Llama, Qwen2/3, Mistral and the like)."""
        heads = int(config["num_attention_heads"])
        if heads <= 0:
            raise ValueError(f"num_attention_heads {heads} is not a positive count")
        return cls(hidden=int(config["hidden_size"]), layers=int(config["num_hidden_layers"]), heads=heads,
                   kv_heads=int(config.get("num_key_value_heads") or heads),
                   head_dim=int(config.get("head_dim") or config["hidden_size"] // heads),
                   intermediate=int(config["intermediate_size"]), vocab=int(config["vocab_size"]),
                   tied=bool(config.get("tie_word_embeddings", False)),
                   qk_norm=config.get("model_type") in ("qwen3", "qwen3_moe"), source=source)

    @classmethod
    def from_file(cls, path: Path) -> ModelShape:
        return cls.from_config(read_json_object(path), str(path))

    def layer_parameters(self) -> int:
        h, d = self.hidden, self.head_dim
        attention = h * self.heads * d * 2 + h * self.kv_heads * d * 2 + (2 * d if self.qk_norm else 0)
        return attention + 3 * h * self.intermediate + 2 * h

    def parameters(self) -> int:
        embeddings = self.vocab * self.hidden * (1 if self.tied else 2)
        return embeddings + self.layers * self.layer_parameters() + self.hidden

    def lora_parameters(self, rank: int) -> int:
        h, d, i = self.hidden, self.head_dim, self.intermediate
        sides = (h + self.heads * d) * 2 + (h + self.kv_heads * d) * 2 + (h + i) * 3
        return rank * self.layers * sides

    def kv_bytes_per_token(self) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * 2

    def forward_flops_per_token(self, sequence: float) -> float:
        matmuls = 2 * (self.parameters() - self.vocab * self.hidden)
        return matmuls + 4 * self.layers * self.heads * self.head_dim * sequence / 2

    def to_dict(self) -> dict:
        return {**asdict(self), "parameters": self.parameters()}


# shapes of models named by a hub id that cannot be read here (nothing is downloaded), with their source
KNOWN_SHAPES = {
    "Qwen/Qwen3-8B": ModelShape(hidden=4096, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=12288,
                                vocab=151936, tied=False, qk_norm=True,
                                source="huggingface.co/Qwen/Qwen3-8B config.json (transformers 4.51.0)"),
    "smollm2-135m": ModelShape(hidden=576, layers=30, heads=9, kv_heads=3, head_dim=64, intermediate=1536,
                               vocab=49152, tied=True,
                               source="huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct config.json"),
}


def training_memory(shape: ModelShape, gpus: int, rows: int, tokens: int, lora_rank: int | None) -> dict:
    """Bytes per GPU of one training process (module docstring), by part, and their total."""
    p = shape.parameters()
    states = (2 * p + 16 * shape.lora_parameters(lora_rank)) if lora_rank else 16 * p
    h = shape.hidden
    layer_tensors = 4 * h + 2 * shape.heads * shape.head_dim + 2 * shape.kv_heads * shape.head_dim + 4 * shape.intermediate
    parts = {
        "states": states / gpus,
        "gathered": 2 * 2 * max(shape.vocab * h, shape.layer_parameters()),
        "activations": rows * tokens * 2 * (shape.layers * h + layer_tensors),
        "logits": rows * tokens * shape.vocab * 8,
    }
    return {**parts, "total": sum(parts.values())}


def kv_budget_sequences(shape: ModelShape, gpu: dict, memory_share: float, sequence: int) -> int:
    """Sequences of `sequence` tokens whose KV cache fits beside the weights in memory_share of the GPU."""
    free = memory_share * gpu["memory_gib"] * GIB - 2 * shape.parameters()
    return max(0, min(MAX_NUM_SEQS, int(free // (shape.kv_bytes_per_token() * sequence))))


def decode_seconds(shape: ModelShape, gpu: dict, tokens: float, prompt: float, mean_answer: float, longest: int,
                   concurrency: int, efficiency: float, utilisation: float) -> float:
    """Seconds for one GPU to generate `tokens` answer tokens (module docstring); inf when nothing fits."""
    if tokens <= 0:
        return 0.0
    if concurrency <= 0:
        return math.inf
    steps = max(longest, tokens / concurrency)
    reads = steps * 2 * shape.parameters() + tokens * (prompt + mean_answer / 2) * shape.kv_bytes_per_token()
    compute = 2 * shape.parameters() * tokens / (gpu["bf16_flops"] * utilisation)
    return max(reads / (gpu["bandwidth"] * efficiency), compute)


def train_seconds(shape: ModelShape, gpu: dict, tokens: float, sequence: float, forwards: int,
                  utilisation: float) -> float:
    """Seconds of one GPU for `tokens` training tokens of sequences of `sequence` tokens."""
    return tokens * forwards * shape.forward_flops_per_token(sequence) / (gpu["bf16_flops"] * utilisation)

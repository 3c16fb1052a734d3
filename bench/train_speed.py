"""Training speed: tokens/s of full fine-tuning vs LoRA on the embedded model (SmolLM2-135M), same data.

    python bench/train_speed.py [--model smollm2-135m] [--steps 6] [--batch-size 4] [--tokens 384]

Both runs go through sebench.train's own trainer settings (sft.common_args, sft.peft_config) on
synthetic prompt/answer pairs of about --tokens tokens each; the first step (warm-up) is not timed.
Prints tokens/s of each and the ratio LoRA / full.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path


def examples(n: int, tokens: int) -> list[dict]:
    """Prompt/answer pairs shaped like the benchmark's (system + user prompt, a python block answer)."""
    words = ["array", "values", "compute", "return", "the", "mean", "of", "each", "row", "along", "axis", "and",
             "keep", "dims"]
    rows = []
    for i in range(n):
        body = " ".join(words[(i + j) % len(words)] for j in range(int(tokens * 0.6)))
        code = "\n".join(f"    x{j} = pkg.fn{j % 7}(x{j - 1 if j else ''}, axis={j % 3})" for j in range(tokens // 25))
        rows.append({
            "prompt": [{"role": "system", "content": "Use the package."}, {"role": "user", "content": body}],
            "completion": [{"role": "assistant", "content": f"```python\ndef solve(x):\n{code}\n    return x\n```"}],
        })
    return rows


def measure(model_spec: str, lora: bool, steps: int, batch_size: int, rows: list[dict]) -> tuple[float, int]:
    """(tokens/s over steps 2..N, trainable parameters) for one run."""
    import torch
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import SFTConfig, SFTTrainer

    from sebench.models import load_causal_lm
    from sebench.train.config import TrainConfig
    from sebench.train.sft import common_args, peft_config

    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(data=Path(tmp), regime="closed-sft", out=Path(tmp), model=model_spec, lora=lora,
                          max_steps=steps, batch_size=batch_size)
        model, tokenizer = load_causal_lm(model_spec, device="cpu", dtype=torch.float32)
        marks: list[tuple[float, float]] = []

        class Timer(TrainerCallback):
            def on_step_end(self, args, state, control, **kwargs):
                marks.append((time.perf_counter(), state.num_input_tokens_seen))

        args = SFTConfig(**common_args(cfg, Path(tmp)), max_length=2048, completion_only_loss=True,
                         include_num_input_tokens_seen="non_padding", disable_tqdm=True)
        trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
                             peft_config=peft_config(cfg), callbacks=[Timer()])
        trainable = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
        trainer.train()
    (t0, n0), (t1, n1) = marks[0], marks[-1]
    return (n1 - n0) / (t1 - t0), trainable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=384, help="approximate tokens per example")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    import torch

    rows = examples(args.steps * args.batch_size, args.tokens)
    results = {}
    for lora in (False, True):
        name = "lora" if lora else "full"
        speed, trainable = measure(args.model, lora, args.steps, args.batch_size, rows)
        results[name] = speed
        print(f"{name:5s} fine-tuning: {speed:8.1f} tokens/s  ({trainable / 1e6:.2f}M trainable parameters)", flush=True)
    device = "cuda" if torch.cuda.is_available() else f"cpu, {torch.get_num_threads()} threads"
    print(f"model {args.model} on {device}; batch {args.batch_size} x ~{args.tokens} tokens, "
          f"steps 2..{args.steps} timed")
    print(f"ratio LoRA / full: {results['lora'] / results['full']:.2f}x")


if __name__ == "__main__":
    main()

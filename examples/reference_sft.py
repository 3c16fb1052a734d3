"""An example method that trains a checkpoint: fine-tune the start model on the training tasks' reference
solutions, closed-book, for a few steps, then check it on the dev tasks with the judge.

    sebench run --preset quick --out runs/mine --regimes closed-sft ./examples/reference_sft.py:ReferenceSFT \
        -M ReferenceSFT.steps=8

It uses only what the context gives (sebench.methods.Context) and the start model's weights.
"""

from __future__ import annotations

import torch

from sebench.methods import Checkpoint, Context, Method
from sebench.models import load_causal_lm


class ReferenceSFT(Method):
    def __init__(self, steps: int = 8, lr: float = 1e-4):
        self.steps, self.lr = steps, lr

    def run(self, ctx: Context) -> Checkpoint:
        torch.manual_seed(ctx.seed)
        model, tokenizer = load_causal_lm(ctx.start_model, device="cpu", dtype=torch.float32)
        examples = [(ctx.sampler.prompt(t, "closed"), f"```python\n{t.reference_solution}\n```")
                    for t in ctx.fit_tasks if t.reference_solution]
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.lr)
        model.train()
        for step in range(self.steps):
            messages, answer = examples[step % len(examples)]
            prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            ids = tokenizer(prompt + answer, return_tensors="pt")["input_ids"]
            labels = ids.clone()
            labels[:, : len(tokenizer(prompt)["input_ids"])] = -100  # the loss on the answer only
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            ctx.cost.add(tokens_trained=ids.shape[1])
            ctx.log.info("step %d: loss %.3f", step, loss.item())
        out = ctx.workdir / "model"
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        self.check_on_dev(ctx, out)
        return Checkpoint(out)

    @staticmethod
    def check_on_dev(ctx: Context, model_dir) -> None:
        """Answers the dev tasks closed-book with the new weights and logs how many the judge accepts."""
        if not ctx.dev_tasks:
            return
        answers = ctx.sampler.sample([ctx.sampler.prompt(t, "closed") for t in ctx.dev_tasks], model=model_dir,
                                     max_tokens=64)
        feedback = ctx.judge([(t.task_id, a[0]) for t, a in zip(ctx.dev_tasks, answers)])
        ctx.log.info("dev: %d of %d correct", sum(f.verdict == "correct" for f in feedback), len(feedback))

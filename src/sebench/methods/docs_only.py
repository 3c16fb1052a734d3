"""The built-in methods that learn functions from their docs (data and sources: docs/docs-only.md).

- `DocsCPT` (docs-cpt): next-token training on the studied functions' docs as written (the control);
- `DocsCPTAugmented` (docs-cpt-augmented): K rule-made rewrites of each doc, mixed in one stage with the
  Closed-SFT examples of the functions with tasks;
- `PIT` (pit): PIT++'s order in three stages: the tasks; the tasks with their functions' docs; the docs of the
  docs-only functions with a share of the tasks kept in;
- `ContextDistill` (context-distill): the open-book model answers the training tasks and prompts made from the
  docs' examples; the judge keeps the correct answers; the model trains closed-book on them (hard labels,
  and with `kl` a per-token KL term to the open-book start model).

Each trains through the study's SFT path (`train_model`, regime closed-sft on the training view, its own
examples given as `extra_sft` and none of the view's), with the SFT settings as arguments, and writes its
checkpoint to ctx.workdir/checkpoint. In the docs-only setting (`ctx.docs_only`) no Closed-SFT example
mentions a docs-only function; such a function reaches training through its docs, and context-distill's
prompts made from them (task ids `doc:<function>:<n>`), only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sebench.instance import Instance
from sebench.methods.builtins import trained_tokens
from sebench.methods.contract import Checkpoint, Context, Method, MethodError, Result
from sebench.records import ApiDoc

CHECKPOINT = "checkpoint"


@dataclass
class DocsMethod(Method):
    """The SFT settings every docs method trains with (the Closed-SFT settings of the cpu presets by default)."""

    epochs: float = 3.0
    lr: float = 2e-4
    batch_size: int = 1
    grad_accum: int = 4
    max_length: int = 2048
    max_steps: int | None = None

    def train(self, ctx: Context, examples: list[dict], name: str = CHECKPOINT, start: Path | None = None,
              **settings) -> Path:
        """Trains `start` (default: the start model) on `examples` alone into ctx.workdir/`name`, with more
        TrainConfig `settings` if given; adds the trained tokens to ctx.cost."""
        from sebench.train import TrainConfig, train_model

        cfg = TrainConfig(data=ctx.view, regime="closed-sft", out=ctx.workdir / name, model=str(start or ctx.start_model),
                          seed=ctx.seed, max_examples=0, overwrite=True, epochs=self.epochs, lr=self.lr,
                          batch_size=self.batch_size, grad_accum=self.grad_accum, max_length=self.max_length,
                          max_steps=self.max_steps, **settings)
        out = train_model(cfg, extra_sft=examples)
        ctx.cost.add(tokens_trained=trained_tokens(out))
        return out


def studied_docs(ctx: Context) -> list[ApiDoc]:
    """The docs of the studied functions: the subset's when the view is one, else every doc."""
    names = set(Instance.open(ctx.view).manifest().get("subset", {}).get("functions") or [])
    return [doc for doc in ctx.docs if not names or doc.name in names]


def closed_sft(ctx: Context) -> list[dict]:
    """The Closed-SFT examples of the view's tasks as the study's closed-sft makes them (the start model's
    judged-correct open-book answers when the study made them, else the reference solutions), less any that
    mentions a docs-only function."""
    from sebench.train import examples_without, reference_pairs, rollout_pairs, sft_examples

    tasks = [t for t in ctx.train_tasks if t.is_valid]
    if not tasks:
        return []
    if ctx.answers is not None:
        pairs = rollout_pairs(tasks, ctx.answers, ctx.answers.with_name("verdicts.jsonl"))
    else:
        pairs = reference_pairs(tasks)
    return examples_without(sft_examples(Instance.open(ctx.view), pairs, "closed"), ctx.docs_only)


@dataclass
class DocsCPT(DocsMethod):
    """docs-cpt: one plain-text example per studied function, its doc as the open-book prompt shows it."""

    def run(self, ctx: Context) -> Result:
        from sebench.train import docs_cpt_examples

        return Checkpoint(self.train(ctx, docs_cpt_examples(studied_docs(ctx))))


@dataclass
class DocsCPTAugmented(DocsMethod):
    """docs-cpt-augmented: `k` rewrites per studied function mixed with the Closed-SFT examples in one stage;
    `forms` (default: all four, in turn) are some of "permuted", "name-first", "behaviour" (behaviour-first)
    and "snippet" (functions used together)."""

    k: int = 4
    forms: list[str] | None = None

    def run(self, ctx: Context) -> Result:
        from sebench.train import REWRITE_FORMS, cooccurrence, docs_cpt_augmented_examples

        docs = studied_docs(ctx)
        with_tasks = [doc.name for doc in docs if doc.name not in ctx.docs_only]
        partners = cooccurrence(ctx.train_tasks, with_tasks)
        examples = docs_cpt_augmented_examples(docs, self.k, ctx.seed, closed_sft(ctx), ctx.docs_only, partners,
                                               tuple(self.forms or REWRITE_FORMS))
        return Checkpoint(self.train(ctx, examples))


@dataclass
class PIT(DocsMethod):
    """pit: three SFT stages, each from the last one's weights; `keep_share` of the tasks stay in the last."""

    keep_share: float = 0.1

    def run(self, ctx: Context) -> Result:
        from sebench.train import pit_stages

        docs = studied_docs(ctx)
        hidden = set(ctx.docs_only)
        stages = pit_stages(closed_sft(ctx), [d for d in docs if d.name not in hidden],
                            [d for d in docs if d.name in hidden], self.keep_share, ctx.seed)
        names = [f"stage-{i}" for i in range(1, len(stages))] + [CHECKPOINT]
        start = None
        for name, examples in zip(names, stages, strict=True):
            ctx.log.info("pit %s: %d examples", name, len(examples))
            start = self.train(ctx, examples, name, start)
        for name in names[:-1]:  # the stages' data and config stay for the record, their weights go
            for weights in (ctx.workdir / name).glob("*.safetensors"):
                weights.unlink()
        return Checkpoint(start)


@dataclass
class ContextDistill(DocsMethod):
    """context-distill: prompts from the training tasks and from every studied function's doc examples; the
    `teacher` (default: the start model) answers each open-book `n` times; the judged-correct answers are
    trained closed-book (hard labels), plus, with `kl` above 0, that weight times the per-token KL from the
    start model's own top-`top_k` distribution given the open-book prompt (train/distill.py), whoever
    wrote the answers."""

    teacher: str | None = None
    n: int = 1
    temperature: float = 0.0
    max_tokens: int = 256
    kl: float = 0.0
    top_k: int = 20

    def run(self, ctx: Context) -> Result:
        from sebench.judge import Judge, Rules
        from sebench.rollout import format_answer
        from sebench.train import distill_prompts, sft_examples

        if self.kl < 0 or self.top_k < 1:
            raise MethodError(f"context-distill: kl must be 0 or more and top_k 1 or more, not kl {self.kl}, "
                              f"top_k {self.top_k}")
        instance = Instance.open(ctx.view)
        constructor = Rules.of_instance(instance).constructor or ""
        prompts = distill_prompts(ctx.train_tasks, studied_docs(ctx), ctx.docs_only, constructor)
        known = {t.task_id for t in ctx.train_tasks}
        tasks = [t for t in prompts.tasks if t.task_id in known]
        made = [t for t in prompts.tasks if t.task_id not in known]
        # the view's judge knows its training tasks only: the doc-made tasks are judged here, and counted
        with Judge(ctx.view) as judge:
            references = judge.judge_many([(t, format_answer(t.reference_solution), 0) for t in made])
            ctx.cost.add(judge_calls=len(made))
            made = [t for t, v in zip(made, references, strict=True) if v.verdict == "correct"]
            ctx.log.info("context-distill: %d task prompts, %d doc prompts (%d doc references failed)",
                         len(tasks), len(made), len(references) - len(made))
            open_prompts = {t.task_id: ctx.sampler.prompt(t, "open") for t in tasks + made}
            answers = ctx.sampler.sample(list(open_prompts.values()), self.teacher, self.n, self.temperature,
                                         self.max_tokens)
            # the training tasks' answers first, then the doc-made tasks': each judged by its own judge
            pairs = [(t, a) for t, group in zip(tasks + made, answers, strict=True) for a in dict.fromkeys(group)]
            asked = [(t.task_id, a) for t, a in pairs if t.task_id in known]
            verdicts = [f.verdict for f in ctx.judge(asked)] if asked else []
            verdicts += [v.verdict for v in judge.judge_many([(t, a, i) for i, (t, a) in enumerate(pairs[len(asked):])])]
            ctx.cost.add(judge_calls=len(pairs) - len(asked))
        kept = [pair for pair, verdict in zip(pairs, verdicts, strict=True) if verdict == "correct"]
        ctx.log.info("context-distill: %d of %d answers judged correct", len(kept), len(pairs))
        examples = sft_examples(instance, kept, "closed")
        if self.kl <= 0:
            return Checkpoint(self.train(ctx, examples))
        examples = [{**e, "teacher_prompt": open_prompts[e["task_id"]]} for e in examples]
        return Checkpoint(self.train(ctx, examples, distill_kl=self.kl, distill_top_k=self.top_k))

"""GRPO through TRL's GRPOTrainer (--engine trl): the regimes, loss, advantages and reward of the own loop
(rl.py), on an engine built for scale: vLLM sampling (colocated, or a `trl vllm-serve` server), several
processes through `accelerate launch` (DDP, DeepSpeed ZeRO-3, FSDP), LoRA, gradient checkpointing.

Who does what, per sampled batch:
  TRL      the prompt order (its RepeatSampler: --num-generations copies of each prompt, a seeded shuffle
           per epoch or the data's order, an epoch's incomplete last batch dropped), generation, the split
           across processes, the gathered rewards, TRL's old log-probabilities, the optimizer, scheduler,
           gradient accumulation and clipping (norm 1);
  sebench  what is generated from and what is trained on (below), the reward (reward.judge_rewards, in-process
           or on sandbox servers), the advantages (loss.group_advantages), the loss and its normalisation
           (loss.policy_loss, loss.Normaliser), and OUT/rl_samples.jsonl and OUT/rl_steps.jsonl.

The closed-prompt rule (the original's Closed-RL, verl_evolve/verl/trainer/offline_ray_trainer.py): each row
is generated from its `sample_prompt`; the sample is then the row's training `prompt` + the generated token
ids, and every log-probability TRL or the loss computes is on that. vLLM's importance-sampling correction
is off (for closed-rl it would weigh against the open-prompt policy; the original leaves verl's off:
verl_evolve/verl/trainer/config/ppo_trainer.yaml, rollout_is: false).

Settings: per_device_train_batch_size = --batch-size, steps_per_generation = --grad-accum (a sampled batch
is batch_size x grad_accum completions per process), gradient_accumulation_steps = grad_accum / --mini-batches
(so --mini-batches optimizer steps per sampled batch, TRL shuffling the batch before cutting it), one
iteration per batch, no KL term. With one mini-batch TRL leaves the old log-probabilities unset and the
loss uses the current ones detached: the step is on-policy, ratio 1 (verl's dp_actor.py). With several,
TRL computes them on the training prompt before the batch's first update (--old-logps recompute); with
--old-logps sampling they are the sampling prompt's, computed here. --sample-until code-block cuts each
completion after its first complete code block once generated (the same samples as the own loop's stop;
the compute runs to the end of sequence, so at scale sample to eos, the original's).

With N processes, --batch-size and --grad-accum are per process: the sampled batch holds N times as many
completions (the paper's 32 prompts x 8 on 8 GPUs: --batch-size 2 --grad-accum 16).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from dataclasses import asdict, dataclass
from typing import Any

from sebench.errors import SebenchError
from sebench.records import Task
from sebench.train.artifacts import LossLog
from sebench.train.config import TrainConfig
from sebench.train.loss import LossSettings, Normaliser, group_advantages, policy_loss
from sebench.train.reward import judge_rewards

log = logging.getLogger(__name__)

TRL_TESTED = "1.16"  # the GRPOTrainer whose hooks this module overrides


def check(cfg: TrainConfig) -> None:
    """Refuses settings the engine cannot honour (before any model is loaded)."""
    if cfg.grad_accum % cfg.mini_batches:
        raise SebenchError(f"--engine trl cuts a sampled batch into --mini-batches of whole --batch-size rows: "
                           f"--mini-batches {cfg.mini_batches} must divide --grad-accum {cfg.grad_accum}")
    if cfg.grad_split:
        raise SebenchError("--grad-split is a diagnostic of the own loop: use --engine own")
    if cfg.vllm in ("colocate", "server") and importlib.util.find_spec("vllm") is None:
        raise SebenchError(f"--vllm {cfg.vllm} needs vLLM in this environment (pip install vllm), or --vllm off")
    import trl

    if trl.__version__.split(".")[:2] != TRL_TESTED.split("."):
        log.warning("--engine trl was written against TRL %s's GRPOTrainer; this is TRL %s", TRL_TESTED,
                    trl.__version__)


def vllm_mode(cfg: TrainConfig) -> str | None:
    """TRL's vllm_mode for --vllm, None for transformers' generate."""
    if cfg.vllm != "auto":
        return None if cfg.vllm == "off" else cfg.vllm
    import torch

    return "colocate" if torch.cuda.is_available() and importlib.util.find_spec("vllm") else None


def train_rl_trl(model: Any, tokenizer: Any, judge: Any, tasks: list[Task], rows: list[dict], cfg: TrainConfig,
                 losses: LossLog, stage: str, seed: int | None = None) -> Any:
    """grpo.train_rl on TRL's GRPOTrainer; returns the trained model, LoRA merged."""
    from sebench.train.sft import finished_model

    check(cfg)
    trainer = grpo_trainer(model, tokenizer, judge, tasks, rows, cfg, losses, stage, cfg.seed if seed is None else seed)
    log.info("%s: %d prompts (%s) through TRL's GRPOTrainer, %d steps of %d x %d completions per process, "
             "%d mini-batch(es) per sampled batch, generation: %s, loss %s, clip [%g, %g], dual clip %g",
             stage, len(rows), cfg.rl_order, trainer.args.max_steps, cfg.batch_size, cfg.grad_accum, cfg.mini_batches,
             f"vLLM ({trainer.args.vllm_mode})" if trainer.args.use_vllm else "transformers", cfg.loss_agg,
             cfg.epsilon, cfg.epsilon_high, cfg.dual_clip)
    trainer.train()
    trainer.samples.flush()
    model = finished_model(trainer)
    model.eval()
    return model


def grpo_trainer(model: Any, tokenizer: Any, judge: Any, tasks: list[Task], rows: list[dict], cfg: TrainConfig,
                 losses: LossLog, stage: str, seed: int) -> Any:
    """The GRPOTrainer (sebench's subclass) for one GRPO stage, ready to train."""
    from datasets import Dataset
    from trl import GRPOConfig

    from sebench.train.rl import SAMPLES_FILE, STEPS_FILE
    from sebench.train.sft import common_args, peft_config

    mode = vllm_mode(cfg)
    args = common_args(cfg, cfg.out / "trainer" / stage, "rl")
    args.pop("num_train_epochs", None)
    args.update(gradient_accumulation_steps=cfg.grad_accum // cfg.mini_batches, seed=seed, data_seed=seed,
                max_steps=planned_steps(len(rows), cfg, seed))
    grpo_args = GRPOConfig(
        **args, steps_per_generation=cfg.grad_accum, num_generations=cfg.num_generations, num_iterations=1,
        max_completion_length=cfg.max_completion_length, temperature=cfg.temperature, top_p=1.0, top_k=0,
        beta=0.0, shuffle_dataset=cfg.rl_order == "shuffled", max_grad_norm=1.0, disable_dropout=False,
        use_vllm=mode is not None, vllm_mode=mode or "colocate", vllm_server_base_url=cfg.vllm_server,
        vllm_gpu_memory_utilization=cfg.vllm_gpu_memory, vllm_importance_sampling_correction=False,
        vllm_max_model_length=_longest_sample(tokenizer, rows, cfg) if mode == "colocate" else None,
        log_completions=False,
    )
    setup = _Setup(LossSettings.of(cfg), other_prompt=cfg.sample_mode != cfg.spec.rl_train, old_logps=cfg.old_logps,
                   code_block=cfg.sample_until == "code-block", stage=stage)
    samples = _SampleLog(cfg.out / SAMPLES_FILE, stage)
    dataset = Dataset.from_list([{k: r[k] for k in ("prompt", "sample_prompt", "task_id", "sample_mode", "train_mode")}
                                 for r in rows])
    return _trainer_class()(
        setup, samples, model=model, reward_funcs=[judge_reward(judge, tasks, cfg.reward)], args=grpo_args,
        train_dataset=dataset, processing_class=tokenizer, peft_config=peft_config(cfg),
        callbacks=[losses.callback(stage), _step_log(cfg.out / STEPS_FILE, stage, samples)],
    )


def _longest_sample(tokenizer: Any, rows: list[dict], cfg: TrainConfig) -> int:
    """The longest sampling prompt + answer: colocated vLLM reserves its KV cache for this, not for the
    model's whole context."""
    from sebench.rollout import chat_prompt_ids

    return max(len(chat_prompt_ids(tokenizer, r["sample_prompt"])) for r in rows) + cfg.max_completion_length


def planned_steps(prompts: int, cfg: TrainConfig, seed: int) -> int:
    """Optimizer steps, counted as the own loop counts them (--max-steps, else --epochs of whole batches),
    with every process's rows in a batch."""
    from accelerate import PartialState

    from sebench.train.rl import batch_plan

    per_batch = cfg.batch_size * cfg.grad_accum * PartialState().num_processes // cfg.num_generations
    return cfg.max_steps or len(batch_plan(prompts, per_batch, cfg, seed)) * cfg.mini_batches


def judge_reward(judge: Any, tasks: list[Task], rule: str):
    """A TRL reward function: sebench's reward of each completion, judged against its row's task."""
    by_id = {t.task_id: t for t in tasks}

    def sebench_judge(prompts: list, completions: list, task_id: list[str], **_: Any) -> list[float]:
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        return judge_rewards(judge, [(by_id[t], text) for t, text in zip(task_id, texts)], rule)

    return sebench_judge


def cut_at_code_block(tokenizer: Any, ids: list[int]) -> list[int]:
    """`ids` up to the token that completes the first code block (the own loop's stop, RowStop)."""
    from sebench.rollout import RowStop

    stop = RowStop(tokenizer, None, True)
    for k, token in enumerate(ids):
        if stop.add(token):
            return ids[:k + 1]
    return ids


@dataclass(frozen=True)
class _Setup:
    settings: LossSettings
    other_prompt: bool  # sampled from another prompt than the training one (closed-rl, self-play-rl)
    old_logps: str
    code_block: bool
    stage: str


class _SampleLog:
    """The samples of the batch being trained on, written to rl_samples.jsonl (all processes' rows, by the
    main one) once the batch's updates are done; the same records as the own loop's (rl.Sample); and the
    counts of each optimizer step for rl_steps.jsonl."""

    def __init__(self, path: Any, stage: str):
        self.path, self.stage = path, stage
        self.rows: list[Any] = []
        self.batch = 0
        self.steps: dict[int, dict] = {}  # optimizer step -> its samples, positive and negative advantages
        self.sample_logp_is_old = False

    def start(self, rows: list[Any], sample_logp_is_old: bool) -> None:
        self.rows, self.sample_logp_is_old = rows, sample_logp_is_old
        self.batch += 1

    def updated(self, indices: list[int], new: Any, old: Any, mask: Any) -> None:
        """Records the two sides of the ratio at the samples' update (summed over their tokens)."""
        for j, i in enumerate(indices):
            real = mask[j].bool()
            sample = self.rows[i]
            sample.new_logp, sample.old_logp = float(new[j][real].sum()), float(old[j][real].sum())
            if self.sample_logp_is_old:  # sampled from the training prompt, by the policy before this batch's updates
                sample.sample_logp = sample.old_logp

    def flush(self) -> None:
        """Writes the batch's samples (a collective call: every process makes it at the same point)."""
        from accelerate import PartialState
        from accelerate.utils import gather_object

        from sebench.train.rl import append_rows

        state = PartialState()
        rows = [asdict(s) for s in self.rows]
        if state.num_processes > 1:
            rows = gather_object(rows)
        if state.is_main_process and rows:
            append_rows(self.path, rows)
        self.rows = []


def _step_log(path: Any, stage: str, samples: _SampleLog):
    """A TrainerCallback writing rl_steps.jsonl: one row per optimizer step, from TRL's logs."""
    from transformers import TrainerCallback

    from sebench.train.rl import append_rows

    class StepLog(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if state.is_world_process_zero and logs and "loss" in logs:
                append_rows(path, [{"stage": stage, "step": state.global_step, "batch": samples.batch,
                                    **{k: logs.get(k) for k in ("reward", "loss", "grad_norm", "learning_rate")},
                                    **samples.steps.pop(state.global_step, {})}])

    return StepLog()


@functools.lru_cache(maxsize=1)
def _trainer_class() -> type:
    """GRPOTrainer with sebench's sample rule, advantages and loss (built on first use: TRL is imported lazily)."""
    import torch
    from trl import GRPOTrainer
    from trl.models.utils import disable_gradient_checkpointing
    from trl.trainer.utils import pad

    from sebench.rollout import chat_prompt_ids
    from sebench.train.rl import Sample

    class SebenchGRPOTrainer(GRPOTrainer):
        """Generates from each row's sample_prompt and trains on its prompt + the completion, with
        sebench's advantages and loss (hooks of TRL 1.16's GRPOTrainer)."""

        def __init__(self, setup: _Setup, samples: _SampleLog, **kwargs: Any):
            self.setup, self.samples = setup, samples
            super().__init__(**kwargs)

        def _tokenize_prompts(self, prompts: list) -> tuple[list[list[int]], None, dict]:
            # the chat template as rollouts and the own loop apply it
            return [chat_prompt_ids(self.processing_class, p) for p in prompts], None, {}

        def _generate_and_score_completions(self, inputs: list[dict]) -> dict:
            self.samples.flush()  # the previous batch's updates are done
            self._rows = inputs
            output = super()._generate_and_score_completions(inputs)
            return self._score(inputs, output)

        def _generate(self, prompts: list) -> tuple:
            # generate from the sample prompts; hand TRL the training prompts as the samples' prompts
            sample_ids, completion_ids, *rest = super()._generate([row["sample_prompt"] for row in self._rows])
            completions, logprobs = rest[1], rest[2]
            if self.setup.code_block:
                completion_ids = [cut_at_code_block(self.processing_class, ids) for ids in completion_ids]
                texts = self.processing_class.batch_decode(completion_ids, skip_special_tokens=True)
                completions = [[{"role": "assistant", "content": t}] for t in texts]
                if logprobs is not None:
                    logprobs = [lp[:len(ids)] for lp, ids in zip(logprobs, completion_ids)]
            self._sample_ids, self._completions = sample_ids, completions
            train_ids = self._tokenize_prompts(prompts)[0] if self.setup.other_prompt else sample_ids
            return (train_ids, completion_ids, rest[0], completions, logprobs, *rest[3:])

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            self._rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            return self._rewards  # gathered over the processes, one column: sebench's judge

        def _score(self, inputs: list[dict], output: dict) -> dict:
            """sebench's advantages in place of TRL's; the sampling prompt's log-probabilities; the records."""
            n, device = len(inputs), self.accelerator.device
            start = self.accelerator.process_index * n
            rewards = self._rewards[:, 0].tolist()
            advantages = group_advantages(rewards, self.num_generations)[start:start + n]
            output["advantages"] = torch.tensor(advantages, dtype=torch.float32, device=device)
            output["sample_index"] = torch.arange(n, device=device)
            sampled = self._logps_on(self._sample_ids, output) if self.setup.other_prompt else None
            if sampled is not None and self.setup.old_logps == "sampling":
                output["old_per_token_logps"] = sampled
            mask = output["completion_mask"].bool()
            records = [
                Sample(self.setup.stage, self.samples.batch + 1, row["task_id"], row["sample_mode"], row["train_mode"],
                       output["completion_ids"][i][mask[i]].tolist(), self._completions[i][-1]["content"],
                       rewards[start + i], advantages[i],
                       sample_logp=float(sampled[i][mask[i]].sum()) if sampled is not None else 0.0)
                for i, row in enumerate(inputs)
            ]
            self.samples.start(records, sample_logp_is_old=sampled is None)
            return output

        def _logps_on(self, prompt_ids: list[list[int]], output: dict) -> Any:
            """Per-token log-probabilities of the batch's completions after `prompt_ids`, by the policy now."""
            pad_id = self.processing_class.pad_token_id
            prompts = pad([torch.tensor(p) for p in prompt_ids], padding_value=pad_id, padding_side="left")
            masks = pad([torch.ones(len(p), dtype=torch.long) for p in prompt_ids], padding_value=0, padding_side="left")
            device = self.accelerator.device
            ids = torch.cat([prompts.to(device), output["completion_ids"]], dim=1)
            attention = torch.cat([masks.to(device), output["completion_mask"]], dim=1)
            with torch.no_grad(), disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs):
                logps, _, _ = self._get_per_token_logps_and_entropies(
                    self.model, ids, attention, output["completion_ids"].size(1),
                    batch_size=self.args.per_device_train_batch_size)
            return logps

        def _prepare_inputs(self, generation_batch: Any) -> dict:
            before = self._buffered_inputs
            inputs = super()._prepare_inputs(generation_batch)
            if self._buffered_inputs is not before:  # a new batch was sampled and cut into micro-batches
                self._add_normalisers(self._buffered_inputs)
            return inputs

        def _add_normalisers(self, micro_batches: list[dict]) -> None:
            """Each micro-batch's Normaliser: the samples and completion tokens of its whole optimizer step,
            over every process (each process's gradient is then averaged, hence the loss x processes)."""
            per_step = self.args.gradient_accumulation_steps
            steps = [micro_batches[k:k + per_step] for k in range(0, len(micro_batches), per_step)]
            counts = torch.tensor([[sum(len(b["completion_mask"]) for b in step),
                                    sum(int(b["completion_mask"].sum()) for b in step),
                                    sum(int((b["advantages"] > 0).sum()) for b in step),
                                    sum(int((b["advantages"] < 0).sum()) for b in step)] for step in steps],
                                  device=self.accelerator.device)
            counts = self.accelerator.reduce(counts, reduction="sum")
            for k, (step, (samples, tokens, positive, negative)) in enumerate(zip(steps, counts.tolist())):
                for batch in step:
                    batch["normaliser"] = Normaliser(samples=int(samples), tokens=int(tokens))
                self.samples.steps[self.state.global_step + 1 + k] = {
                    "samples": int(samples), "positive": int(positive), "negative": int(negative)}

        def _compute_loss(self, model: Any, inputs: dict) -> Any:
            completion_ids, completion_mask = inputs["completion_ids"], inputs["completion_mask"]
            ids = torch.cat([inputs["prompt_ids"], completion_ids], dim=1)
            attention = torch.cat([inputs["prompt_mask"], completion_mask], dim=1)
            logps, _, _ = self._get_per_token_logps_and_entropies(model, ids, attention, completion_ids.size(1))
            old = inputs.get("old_per_token_logps")
            old = logps.detach() if old is None else old
            mask = completion_mask.to(logps.dtype)
            loss = policy_loss(logps, old, inputs["advantages"].to(logps.dtype), mask, self.setup.settings,
                               inputs["normaliser"])
            self.samples.updated(inputs["sample_index"].tolist(), logps.detach(), old, mask)
            return loss * self.accelerator.num_processes

    return SebenchGRPOTrainer

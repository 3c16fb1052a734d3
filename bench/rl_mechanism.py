"""Do the package's names lose probability under GRPO? Teacher-forced log-probabilities of the test tasks'
reference solutions on the closed-book prompt, for the base model and every checkpoint of a study, split into
the tokens of the package's names (`pkg.name`) and the other tokens.

    python bench/rl_mechanism.py runs/pm/seed-0 [runs/pm/seed-1 ...] [--split single_test] [--json out.json]

For each run: its data (manifest.json "data"), the base the regimes started from (a train_config.json's
start_model), and RUN/train/<label>/checkpoint for each label. Prints one markdown row per run and model:
the mean log-probability per name token and per other token, and the name tokens' change against the base.
Run it alone: it loads every checkpoint in turn on the CPU.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path


def name_spans(text: str, package: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"\b{re.escape(package)}(?:\.\w+)+", text)]


def score(model, tokenizer, tasks, builder, package: str) -> dict:
    """Mean log-probability per token of the package's names and of the rest, over the tasks' solutions."""
    from sebench.rollout.backends.hf import chat_prompt_ids
    from sebench.rollout.prompts import format_answer
    from sebench.train.rl import token_logps

    sums = {"name": [0.0, 0], "other": [0.0, 0]}
    for task in tasks:
        answer = format_answer(task.reference_solution)
        encoded = tokenizer(answer, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
        prompt = chat_prompt_ids(tokenizer, builder.messages(task))
        logps, _ = token_logps(model, [prompt], [ids], 1.0, tokenizer.pad_token_id or 0)
        spans = name_spans(answer, package)
        for (start, end), logp in zip(offsets, logps[0].tolist()):
            kind = "name" if any(start < e and end > s for s, e in spans) else "other"
            sums[kind][0] += logp
            sums[kind][1] += 1
    return {k: (total / n if n else None) for k, (total, n) in sums.items()}


def models_of(run: Path) -> dict[str, str]:
    """label -> model: "base" (what the regimes started from; closed-sft-rl starts from closed-sft) and each
    trained checkpoint."""
    configs = sorted(run.glob("train/*/checkpoint/train_config.json"))
    infos = {c.parent.parent.name: json.loads(c.read_text()) for c in configs}
    starts = [info["start_model"] for info in infos.values() if info["config"]["regime"] != "closed-sft-rl"]
    found = {"base": starts[-1]} if starts else {}
    return {**found, **{label: str(run / "train" / label / "checkpoint") for label in infos}}


def main() -> None:
    import torch

    from sebench.instance import Instance
    from sebench.models import load_causal_lm
    from sebench.rollout.prompts import PromptBuilder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--split", default="single_test")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    print("| run | model | mean logp, name tokens | mean logp, other tokens | names vs base |")
    print("|---|---|---|---|---|")
    for run in args.runs:
        manifest = json.loads((run / "manifest.json").read_text())
        instance = Instance.open(run / manifest["data"])
        tasks = [t for t in instance.tasks(args.split) if t.reference_solution.strip()]
        builder, package = PromptBuilder(instance, "closed"), instance.package_name
        base = None
        for label, path in models_of(run).items():
            model, tokenizer = load_causal_lm(path, device="cpu")
            with torch.no_grad():
                got = score(model, tokenizer, tasks, builder, package)
            base = got["name"] if label == "base" else base
            delta = None if base is None or label == "base" else got["name"] - base
            rows.append({"run": str(run), "model": label, **got, "names_vs_base": delta})
            print(f"| {run.name} | {label} | {got['name']:.3f} | {got['other']:.3f} | "
                  f"{'' if delta is None else f'{delta:+.3f}'} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Open-book and closed-book accuracy of one model on a study's single_test tasks, with the full docs
# and with the compact docs (sebench.rollout.compact_docs); each model run holds the heavy-job lock.
#   bench/warmup_measure.sh MODEL STUDY_DIR COMPACT_STUDY_DIR OUT_DIR [MAX_TOKENS]
set -euo pipefail
model=$1 study=$2 compact=$3 out=$4 max_tokens=${5:-128}
sebench() { PYTHONPATH="$PWD/src" /work/main/.venv/bin/python -m sebench.cli "$@"; }
mkdir -p "$out"
for run in "closed $study closed" "open $study open-full" "open $compact open-compact"; do
  set -- $run
  mode=$1 data=$2 name=$3
  flock /tmp/sebench-heavy.lock env OMP_NUM_THREADS=2 PYTHONPATH="$PWD/src" /work/main/.venv/bin/python -m sebench.cli \
    rollout --data "$data" --split single_test --mode "$mode" --model "$model" --max-tokens "$max_tokens" \
    --out "$out/$name.rollouts.jsonl"
  sebench judge --data "$data" --rollouts "$out/$name.rollouts.jsonl" --out "$out/$name.verdicts.jsonl" \
    --summary "$out/$name.summary.json" --workers 2 | tail -4
done

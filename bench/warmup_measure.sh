#!/usr/bin/env bash
# Accuracy of one model on a study's single_test tasks: closed-book, open-book with the full docs, and
# open-book with the compact docs (sebench.rollout.compact_docs); each model run holds the heavy-job lock.
#   bench/warmup_measure.sh MODEL STUDY_DIR COMPACT_STUDY_DIR OUT_DIR RUN...   (RUN: closed | open-full | open-compact)
# e.g. bench/warmup_measure.sh smollm2-135m /tmp/wu/study /tmp/wu/study-compact /tmp/wu/before closed open-compact
set -euo pipefail
model=$1 study=$2 compact=$3 out=$4
shift 4
mkdir -p "$out"
for name in "$@"; do
  case $name in
    closed) mode=closed data=$study ;;
    open-full) mode=open data=$study ;;
    open-compact) mode=open data=$compact ;;
    *) echo "unknown run '$name' (closed | open-full | open-compact)" >&2; exit 2 ;;
  esac
  flock /tmp/sebench-heavy.lock env OMP_NUM_THREADS=2 PYTHONPATH="$PWD/src" /work/main/.venv/bin/python -m sebench.cli \
    rollout --data "$data" --split single_test --mode "$mode" --model "$model" --max-tokens "${MAX_TOKENS:-128}" \
    --out "$out/$name.rollouts.jsonl"
  PYTHONPATH="$PWD/src" /work/main/.venv/bin/python -m sebench.cli judge --data "$data" \
    --rollouts "$out/$name.rollouts.jsonl" --out "$out/$name.verdicts.jsonl" --summary "$out/$name.summary.json" \
    --workers 2 | tail -4
done

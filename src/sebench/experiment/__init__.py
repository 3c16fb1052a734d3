"""The orchestrators that call the stages in order: `sebench run` (run.py: the whole study, resumable;
cli.py: its command), `sebench warmup` (warmup.py) and `sebench contamination` (contamination.py)."""

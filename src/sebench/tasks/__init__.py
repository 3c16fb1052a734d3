"""Task generation for an instance: train, single-function and multi-function test splits.

- `spec`: the template of a task (a problem statement, a signature, a reference solution written over
  NumPy names, a generator of test inputs) and how it is rendered for an instance.
- `families/`: the templates, grouped by the kind of function (element-wise math, reductions, ...), and
  the multi-function pipelines.
- `execute`: runs reference solutions (trusted code) in child processes (sebench.harness), once with the
  generated package and once with NumPy; a task is kept only when both agree on every test input.
- `generate`: `TaskSizes` and `write_task_files` (called by `sebench build`): picks templates for each
  split, keeps the splits apart (hygiene), writes the three split files.
- `official`: import of the original benchmark's jsonl files and export to its format or parquet.
- `original_answers`: answers in the original's format made into rollouts and the tasks they are judged
  against (`sebench judge` reads such files).
- `modelgen`: tasks written by a model, kept when their solution runs (and, if asked, independent solutions
  agree); the format's two sides (`proposal_prompt`, `proposal_answer`) for the warm-up.
- `noise`: whether a written task's expected outputs are NumPy's own on the same inputs.
"""

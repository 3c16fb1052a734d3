"""Task generation for an instance: train, single-function and multi-function test splits.

- `spec`: the template of a task (a problem statement, a signature, a reference solution written over
  NumPy names, a generator of test inputs) and how it is rendered for an instance.
- `families/`: the templates, grouped by the kind of function (element-wise math, reductions, ...), and
  the multi-function pipelines.
- `execute`: runs reference solutions (trusted code) in child processes (sebench.harness), once with the
  generated package and once with NumPy; a task is kept only when both agree on every test input.
- `generate`: `TaskSizes` and `write_task_files` (called by `sebench build`): picks templates for each
  split, keeps the splits apart (hygiene), writes the three split files.
- `official`, `release`: import of the original benchmark's jsonl files and export to its format or parquet.
- `original_format`: answers in the original's format made into rollouts and the tasks they are judged
  against (`sebench judge` reads such files).
- `noise`: whether a model-written task's expected outputs are NumPy's own on the same inputs.
Outputs are stored and compared as sebench.values says; model-written tasks are train.modelgen's.
"""

from sebench.exports import front_door

__all__ = ["CONSTRUCTOR", "SPLIT_FILE_NAMES", "OriginalAnswer", "TaskSizes", "Template", "all_templates", "generate_tasks",
           "import_official", "is_original_record", "library_agreement", "original_answers", "release_files",
           "released_rows", "write_task_files"]
__getattr__ = front_door(__name__, __all__, {
    "families": ("all_templates",),
    "generate": ("TaskSizes", "generate_tasks", "write_task_files"),
    "noise": ("library_agreement",),
    "official": ("import_official",),
    "original_format": ("OriginalAnswer", "is_original_record", "original_answers"),
    "release": ("SPLIT_FILE_NAMES", "release_files", "released_rows"),
    "spec": ("CONSTRUCTOR", "Template"),
})

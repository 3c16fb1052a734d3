"""Asking models for solutions: prompts per mode, backends chosen by spec, and the resumable run
(`sebench rollout`: run.py). The hf backend's token-level pieces (`generate_tokens`, `chat_prompt_ids`)
serve GRPO's sampling too."""

from sebench.exports import front_door

__all__ = [
           "BEHAVIOUR_CHARS",
           "DOCS_FORMS",
           "Backend",
           "CachedBackend",
           "Completion",
           "Experience",
           "ExperienceMemory",
           "GenerationRequest",
           "OriginalTemplates",
           "OriginalTrainingPrompts",
           "PromptBuilder",
           "RolloutConfig",
           "RowStop",
           "answer_tasks",
           "backend_options",
           "chat_prompt_ids",
           "check_model_spec",
           "compact_doc",
           "compact_docs_sha256",
           "eos_ids",
           "fit_decoding",
           "format_answer",
           "generate_tokens",
           "get_backend",
           "model_thinking",
           "name_recall",
           "recall_of_instance",
           "recall_summary",
           "resolve_spec",
           "write_compact_instance",
           "write_rollouts",
]
__getattr__ = front_door(__name__, __all__, {
    "backends": ("Backend", "Completion", "GenerationRequest", "get_backend", "resolve_spec"),
    "backends.cached": ("CachedBackend",),
    "backends.hf": ("RowStop", "chat_prompt_ids", "eos_ids", "generate_tokens"),
    "compact_docs": ("DOCS_FORMS", "compact_doc", "compact_docs_sha256", "write_compact_instance"),
    "experience": ("Experience", "ExperienceMemory"),
    "name_recall": ("BEHAVIOUR_CHARS", "name_recall", "recall_of_instance", "recall_summary"),
    "original_prompts": ("OriginalTemplates", "OriginalTrainingPrompts"),
    "prompts": ("PromptBuilder", "format_answer"),
    "run": ("RolloutConfig", "answer_tasks", "backend_options", "check_model_spec", "write_rollouts"),
    "thinking": ("fit_decoding", "model_thinking"),
})

"""Methods: how a training method plugs into a study (the contract: contract.py; docs/methods.md).

    from sebench.methods import Method, Context, Checkpoint

    class MyMethod(Method):
        def __init__(self, epochs: int = 1): ...
        def run(self, ctx: Context) -> Checkpoint: ...

`sebench run --regimes closed-sft ./my_method.py:MyMethod` evaluates it beside the built-ins. A method runs
in its own process that sees only its training view, its own folder and what the user names for it
(isolation.py); `sebench methods` lists the methods sebench can find.
"""

from sebench.exports import front_door

__all__ = ["BUILTINS", "ENTRY_POINT_GROUP", "FENCE_KEYS", "METHOD_FILE", "TRAIN_TIMEOUT", "Agent", "AgentBackend", "Checkpoint",
           "Context", "ContextDistill", "Cost", "DocsMethod", "Endpoint", "Feedback", "Judge", "Method",
           "MethodError", "MethodJob", "MethodRef", "OutputRules", "Prompt", "Result", "Sampler",
           "accepts", "available_layers", "check_arguments", "entry_points", "is_method_spec", "isolation_layer",
           "landlock_abi", "method_signature", "output_rules", "resolve", "run_method", "served_endpoint"]
__getattr__ = front_door(__name__, __all__, {
    "agent_backend": ("AgentBackend",),
    "contract": ("Agent", "Checkpoint", "Context", "Cost", "Endpoint", "Feedback", "Judge", "Method", "MethodError",
                 "Prompt", "Result", "Sampler"),
    "isolation": ("available_layers", "isolation_layer", "landlock_abi"),
    "loader": ("BUILTINS", "ENTRY_POINT_GROUP", "MethodRef", "entry_points", "is_method_spec", "resolve"),
    "docs_only": ("ContextDistill", "DocsMethod"),
    "outputs": ("OutputRules", "output_rules", "served_endpoint"),
    "run": ("FENCE_KEYS", "METHOD_FILE", "MethodJob", "TRAIN_TIMEOUT", "run_method"),
    "signature": ("accepts", "check_arguments", "method_signature"),
})

"""The orchestrators that call the stages in order: `sebench run` (run.py: the whole study, resumable;
cli.py: its command), `sebench warmup` (warmup.py) and `sebench contamination` (contamination.py)."""

from sebench.exports import front_door

__all__ = ["PRESETS", "RunConfig", "Study", "WarmupConfig", "resolve", "warm_up"]
__getattr__ = front_door(__name__, __all__, {
    "config": ("PRESETS", "RunConfig", "resolve"),
    "run": ("Study",),
    "warmup": ("WarmupConfig", "warm_up"),
})

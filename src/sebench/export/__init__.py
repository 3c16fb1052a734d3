"""Export: an instance as another tool's files. `sebench export --format verl` (verl.py, with the reward verl
calls in verl_reward.py): the data and reward of the original's trainer; `--format hf` (hf.py): a Hugging Face
dataset folder."""

from sebench.exports import front_door

__all__ = ["ExportConfig", "export_hf", "export_verl"]
__getattr__ = front_door(__name__, __all__, {"config": ("ExportConfig",), "hf": ("export_hf",),
                                             "verl": ("export_verl",)})

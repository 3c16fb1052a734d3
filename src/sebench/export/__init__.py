"""Export: an instance as the data and reward of another trainer (`sebench export --format verl`: verl.py,
with the reward verl calls in verl_reward.py)."""

from sebench.exports import front_door

__all__ = ["ExportConfig", "export_verl"]
__getattr__ = front_door(__name__, __all__, {"verl": ("ExportConfig", "export_verl")})

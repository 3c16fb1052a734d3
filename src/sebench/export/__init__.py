"""Export: an instance as the data and reward of another trainer (`sebench export --format verl`: verl.py,
with the reward verl calls in verl_reward.py)."""

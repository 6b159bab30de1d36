"""PPO on FetchReach, CPU-sized: dense reward (-distance); success is still the 5 cm test."""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 1.0 about 12-20 s after start, at 25.6k env steps (CPU, 2 cores, 2026-11-25)"


def get_config():
  return {
    "env": {"name": "FetchReach", "reward_type": "dense"},
    "agent": {
      "algo": "ppo",
      "num_envs": 128,
      "unroll_length": 10,
      "num_minibatches": 4,
      "update_epochs": 4,
      "total_env_steps": 100_000,
      "learning_rate": 1e-3,
      "gamma": 0.95,
      "policy_hidden": (64, 64),
      "value_hidden": (64, 64),
    },
    "run": {"seed": 0, "eval_every": 10, "num_eval_envs": 64},
  }

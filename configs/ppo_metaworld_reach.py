"""PPO on Meta-World reach-v3 with MT-PPO's settings (mtppo_mt10) at a CPU budget.

32 worlds x 50 steps per update, (256, 256) tanh, lr 5e-4, GAE lambda 0.97, entropy 5e-3, 8 epochs.
`--set env.name=metaworld/push-v3` runs push with the same settings.
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "reach-v3 eval success 0.62 at 80k env steps, 23 min (CPU, MJX-JAX, 2026-11-24)"


def get_config():
  return {
    "env": {"name": "metaworld/reach-v3"},
    "agent": {
      "algo": "ppo",
      "num_envs": 32,
      "unroll_length": 50,
      "num_minibatches": 4,
      "update_epochs": 8,
      "total_env_steps": 5_000_000,
      "learning_rate": 5e-4,
      "gamma": 0.99,
      "gae_lambda": 0.97,
      "ent_coef": 5e-3,
      "policy_hidden": (256, 256),
      "value_hidden": (256, 256),
      "activation": "tanh",
      "normalize_reward": True,
    },
    "run": {"seed": 0, "eval_every": 25, "num_eval_envs": 32},
  }

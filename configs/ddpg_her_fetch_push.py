"""DDPG+HER on FetchPush, sparse reward, OpenAI baselines' settings.

16 envs x 50 steps per cycle = 8 workers x 2 rollouts; 40 batches of 256 per cycle. See BENCHMARKS.md
for what it reaches.
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.13 at 440k env steps in 29 min (CPU, Fetch's earlier physics, 2026-11-22)"


def get_config():
  return {
    "env": {"name": "FetchPush", "reward_type": "sparse"},
    "agent": {
      "algo": "ddpg_her",
      "num_envs": 16,
      "unroll_length": 50,
      "updates_per_cycle": 40,
      "batch_size": 256,
      "total_env_steps": 2_000_000,
      "buffer_size": 1_000_000,
    },
    "run": {"seed": 0, "eval_every": 25, "num_eval_envs": 128},
  }

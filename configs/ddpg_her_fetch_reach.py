"""DDPG+HER on FetchReach, sparse reward, baselines' settings; CPU-sized (8 envs x 50 steps a cycle)."""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 1.0 after 20k env steps, 28 s of training + ~90 s compile (CPU, 2026-11-22)"


def get_config():
  return {
    "env": {"name": "FetchReach", "reward_type": "sparse"},
    "agent": {
      "algo": "ddpg_her",
      "num_envs": 8,
      "unroll_length": 50,
      "updates_per_cycle": 40,
      "batch_size": 256,
      "total_env_steps": 20_000,
      "buffer_size": 1_000_000,
    },
    "run": {"seed": 0, "eval_every": 5, "num_eval_envs": 64},
  }

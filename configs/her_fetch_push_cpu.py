"""FetchPush on this project's 2-core CPU: the DDPG+HER setting that reaches the target fastest in wall time
(issue 12: eval success >= 0.9 within 60 minutes of `train.py`). The data/update ratio of baselines' single
worker (2 rollouts x 50 steps, then 40 updates of 256 per cycle): on a CPU the updates, not the MJX steps,
are what costs, and one worker's ratio learns most per update (HER paper, fig. 3 against 8 workers).
Evaluation every 50 cycles (5,000 env steps, one baselines epoch) on 64 fresh episodes.
See BENCHMARKS.md, "HER on Fetch (issue 12)", for what it reaches and when."""


def get_config():
  return {
      "env": {"name": "FetchPush", "reward_type": "sparse"},
      "agent": {
          "algo": "ddpg_her",
          "num_envs": 2,
          "unroll_length": 50,
          "updates_per_cycle": 40,
          "batch_size": 256,
          "total_env_steps": 1_000_000,
          "buffer_size": 1_000_000,
      },
      "run": {"seed": 0, "eval_every": 50, "num_eval_envs": 64, "max_minutes": 58},
  }

"""PPO on 1-block BlocksPush with the paper's 11-bin actions and the object encoder.

Multi-categorical actions, per-object embedding + masked max-pool. Bob's sparse reward; episodes of 100
steps. With `--set env.table_portion=0.4 --set env.episode_length=50` it is the self-play holdout push-1
trained directly (the paper's Appendix C baseline): 0.96 from 12.5M env steps on the CPU, where Bob reaches
0.05 zero-shot (BENCHMARKS.md, "push-1 learned directly by PPO").
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "0.96 at 12.5-14.4M env steps with table_portion=0.4, episode_length=50 (CPU, 2026-12-03)"


def get_config():
  return {
    "env": {
      "name": "BlocksPush",
      "num_objects": 1,
      "action_bins": 11,
      "episode_length": 100,
      "pad_objects": False,
    },
    "agent": {
      "algo": "ppo",
      "distribution": "categorical",
      "num_envs": 256,
      "unroll_length": 20,
      "num_minibatches": 4,
      "update_epochs": 3,  # sample reuse 3 (SPEC Table 2)
      "total_env_steps": 20_000_000,
      "learning_rate": 3e-4,
      "gamma": 0.998,
      "gae_lambda": 0.95,
      "ent_coef": 0.01,
      "vf_coef": 1.0,
      "policy_hidden": (256,),
      "value_hidden": (256,),
      "normalize_reward": True,
    },
    "run": {"seed": 0, "eval_every": 10, "num_eval_envs": 64},
  }

"""MT-SAC on MT10 (agents/multitask/mtsac.py) with the Meta-World paper's settings, sized for one GPU.

Seed 001, appendix D.5, table 7; garage's mtsac_metaworld_mt10.py: (400, 400) ReLU actor and twin critics,
lr 3e-4 (actor, critics, temperatures), gamma 0.99, tau 5e-3 after every gradient step, one learned
temperature per task (alpha 1 at the start, target entropy -4), replay batches of 1,280 from a
1e6-transition buffer, 0.1 gradient steps per env step (garage: 500 per 5,000-step iteration), 500-step
episodes on the benchmark's 50 fixed goal/object vectors per task. Sized for one GPU: 10 tasks x 16 worlds
x 50 steps = 8,000 env steps per cycle, then 800 updates; 20M env steps (2M gradient steps); the paper's
runs are far longer (500 epochs x 200 cycles x 5,000 steps). Evaluation: 10 fresh episodes per task every
25 cycles (eval/success_rate/<task>).
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "H200: compiles in 405 s, 480 env steps/s (shared card); mtsac_mt10_cpu: 2 seeds 0.696 (CPU)"


def get_config():
  return {
    "env": {"name": "MT10", "envs_per_task": 16, "fixed_rand_vecs": 50},
    "agent": {
      "algo": "mtsac",
      "num_envs": 160,  # 16 worlds per task, task-major
      "unroll_length": 50,
      "updates_per_cycle": 800,  # 0.1 gradient steps per env step
      "batch_size": 1280,
      "buffer_size": 1_000_000,
      "total_env_steps": 20_000_000,
      "hidden": (400, 400),
      "actor_lr": 3e-4,
      "critic_lr": 3e-4,
      "alpha_lr": 3e-4,
      "init_alpha": 1.0,
      "gamma": 0.99,
      "polyak": 0.995,
      "polyak_every_update": True,
      "checkpoint_buffer": True,
    },
    "run": {"seed": 0, "eval_every": 25, "num_eval_envs": 100},
  }

"""SAC on Meta-World reach-v3: MT-SAC's learner on one task, CPU-sized.

agents/multitask/mtsac.py with num_tasks 1 is plain SAC with a learned temperature on dense rewards: 10
envs x 20 steps = 200 env steps per cycle, 50 updates of a batch of 256 (0.25 gradient steps per env
step), the paper's single-task SAC networks (seed 001, appendix D.1: (256, 256) ReLU, lr 3e-4, gamma 0.99,
tau 5e-3 per gradient step, automatic entropy tuning), 500-step episodes with a fresh goal each,
evaluation on 10 fresh episodes every 50 cycles (10,000 steps), a 15-minute stop (resumable: --resume
RUN_DIR). Measured on the project's 2-core CPU while shared with other jobs (2026-11-24, seed 0): eval
success 0.1 / 0.2 / 0.5 / 0.8 at 10k / 20k / 30k / 40k env steps, 46-51 env steps/s, 0.8 after 16.5 min
of training (the stop lands after the chunk running at 15 min), after a cold compile of 10.5 min (the
persistent cache skips it next time).
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "reach-v3 eval success 0.8 at 40k env steps, 16.5 min of training (CPU, MJX-JAX, 2026-11-24)"


def get_config():
  return {
    "env": {"name": "metaworld/reach-v3"},
    "agent": {
      "algo": "mtsac",
      "num_envs": 10,
      "unroll_length": 20,
      "updates_per_cycle": 50,
      "batch_size": 256,
      "buffer_size": 300_000,
      "total_env_steps": 300_000,
      "hidden": (256, 256),
      "actor_lr": 3e-4,
      "critic_lr": 3e-4,
      "alpha_lr": 3e-4,
      "init_alpha": 1.0,
      "gamma": 0.99,
      "polyak": 0.995,
      "polyak_every_update": True,
    },
    "run": {"seed": 0, "eval_every": 50, "num_eval_envs": 10, "max_minutes": 15, "count_flops": False},
  }

"""Hide-and-seek in the quadrant world, multi-agent PPO at the paper's settings, sized for one GPU.

2 hiders, 2 seekers, 2 boxes, 1 ramp, 80-step episodes; the paper's settings (seed 004 appendix B; SPEC
section 4): entity attention (embedding 128, 4 heads x 32), dense 256, LSTM 256, an omniscient value
function; gamma 0.998, lambda 0.95, lr 3e-4, clip 0.2, gradient clip 5, entropy 0.01, BPTT over chunks of
10 steps. Sized for one GPU: 1024 worlds (4096 agent streams), a whole episode per world per train step
(327,680 agent steps), minibatches of 8,192 chunks of 10 steps. The paper's minibatches were 64k chunks
on a cluster; its fort building took ~25 M episodes (2 billion world steps).
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "12.0k world steps/s; seekers' return -30 to -2.1 in 4.9M world steps, 8 min (H200, 2026-12-04)"


def get_config():
  return {
    "env": {"name": "HideAndSeekQuadrant"},
    "agent": {
      "algo": "mappo",
      "num_envs": 1024,
      "unroll_length": 80,
      "bptt_length": 10,
      "num_minibatches": 4,
      "update_epochs": 4,
      "total_env_steps": 2_000_000_000,
      "learning_rate": 3e-4,
      "gamma": 0.998,
      "gae_lambda": 0.95,
      "clip_eps": 0.2,
      "max_grad_norm": 5.0,
      "ent_coef": 0.01,
      "embed": 128,
      "heads": 4,
      "head_dim": 32,
      "dense": 256,
      "lstm_size": 256,
    },
    "run": {"seed": 0, "eval_every": 10, "num_eval_envs": 256},
  }

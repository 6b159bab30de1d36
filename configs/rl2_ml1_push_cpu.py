"""RL² on ML1 push-v3 on a 2-core CPU: rl2_ml1_push's settings, short trials, a 60-minute stop.

Trials of 3 episodes of 150 steps (the paper: 10 of 500), 8 worlds x one whole trial per update, a 64-wide
LSTM, 4 epochs of 2 minibatches; evaluation on 8 trials of the held-out test goals (eval/success_rate:
the last episode of a trial, after adaptation; eval/trial/success_first: the first).

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "5000 goals: test 0.63 at 8.6M env steps; + rl2_success_bonus=10: 0.98 at 5.4M (CPU, 2026-11-28)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "rl2_ml1_push.py"))


def cpu_budget(cfg, num_envs, num_eval_envs, num_minibatches=2):
  """A GPU-sized RL² config shrunk to this CPU: short trials, a 64-wide LSTM, a 60-minute stop."""
  cfg = copy.deepcopy(cfg)
  cfg["env"].update(rl2_episodes=3, episode_length=150)
  cfg["agent"].update(
    num_envs=num_envs,
    # The whole trial: BPTT across its episodes (50 before 2026-11-28, which cut at every episode's edge).
    unroll_length=cfg["env"]["rl2_episodes"] * cfg["env"]["episode_length"],
    num_minibatches=num_minibatches,
    update_epochs=4,
    total_env_steps=20_000_000,
    policy_hidden=(64,),
    value_hidden=(64,),
    lstm_size=64,
  )
  cfg["run"].update(eval_every=20, num_eval_envs=num_eval_envs, max_minutes=60)
  return cfg


def get_config():
  return cpu_budget(_GPU["get_config"](), num_envs=8, num_eval_envs=8)

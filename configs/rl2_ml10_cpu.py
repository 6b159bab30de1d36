"""RL² on ML10 on a 2-core CPU: rl2_ml10's settings, one world per task, short trials, 60 minutes.

Trials of 3 episodes of 150 steps (the paper: 10 of 500), 10 worlds (one per train task) x 50 steps per
update, a 64-wide LSTM, 4 epochs of 2 minibatches; evaluation on 10 trials, 2 per test task
(eval/success_rate: the last episode of a trial, averaged over the 5 test tasks; the paper's RL²: 35.8%).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "smoke run only: 20k env steps in 2.5 min, ~190 env steps/s (CPU, C physics, 2026-11-26)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "rl2_ml10.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["env"].update(rl2_episodes=3, episode_length=150)
  cfg["agent"].update(
    num_envs=10,
    unroll_length=50,
    num_minibatches=2,
    update_epochs=4,
    total_env_steps=20_000_000,
    policy_hidden=(64,),
    value_hidden=(64,),
    lstm_size=64,
  )
  cfg["run"].update(eval_every=20, num_eval_envs=10, max_minutes=60)
  return cfg

"""RL² on ML10 on a 2-core CPU: rl2_ml10's settings, five worlds per task, short trials, 60 minutes.

Trials of 3 episodes of 150 steps (the paper: 10 of 500), 50 worlds (5 per train task) x one whole trial
(450 steps; 50 before 2026-11-28, which cut every trial at its episodes' edges) per update, a 64-wide
LSTM, 4 epochs of 2 minibatches; evaluation on 10 trials, 2 per test task
(eval/success_rate: the last episode of a trial, averaged over the 5 test tasks; the paper's RL²: 35.8%).
50 worlds since 2026-11-28 (10 before): on the padded batch they step ~7,000 env steps/s here, and the
20M env steps took 75 minutes with the stop raised to 85 (BENCHMARKS.md, "RL2 on ML10 with 50 worlds").

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "whole-trial windows: train 0.23, test 0.00 after 10M, no adaptation; 20M in 73 min (CPU)"

_HERE = os.path.dirname(__file__)
_GPU = runpy.run_path(os.path.join(_HERE, "rl2_ml10.py"))
_CPU = runpy.run_path(os.path.join(_HERE, "rl2_ml1_push_cpu.py"))


def get_config():
  return _CPU["cpu_budget"](_GPU["get_config"](), num_envs=50, num_eval_envs=10)

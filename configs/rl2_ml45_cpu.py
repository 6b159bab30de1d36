"""RL² on ML45 on a 2-core CPU: rl2_ml45's settings, one world per task, short trials, 60 minutes.

Trials of 3 episodes of 150 steps (the paper: 10 of 500), 45 worlds (one per train task) x 50 steps per
update, a 64-wide LSTM, 4 epochs of 2 minibatches; evaluation on 10 trials, 2 per test task
(eval/success_rate: the last episode of a trial, averaged over the 5 test tasks; the paper's RL²: 33.3%).
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "test 0.019 over 6-9.05M env steps (40 min), the paper's 33.3% not met (CPU, 2026-11-28)"

_HERE = os.path.dirname(__file__)
_GPU = runpy.run_path(os.path.join(_HERE, "rl2_ml45.py"))
_CPU = runpy.run_path(os.path.join(_HERE, "rl2_ml1_push_cpu.py"))


def get_config():
  return _CPU["cpu_budget"](_GPU["get_config"](), num_envs=45, num_eval_envs=10, num_minibatches=3)

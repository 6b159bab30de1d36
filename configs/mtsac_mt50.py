"""MT-SAC on MT50 with the Meta-World paper's settings, sized for one GPU.

mtsac_mt10's learner (seed 001, appendix D.5: (400, 400) ReLU, lr 3e-4, one learned temperature per task,
batches of 1,280... as there) over the 50 tasks: 50 tasks x 4 worlds x 50 steps = 10,000 env steps per
cycle, then 1,000 updates (0.1 gradient steps per env step), batches of 6,400 (128 per task, as MT10's
1,280 over 10), 50M env steps. The paper's MT-SAC: 38.5% on MT50.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run (needs a GPU); mtsac_mt50_cpu: 0.398 at 3.0-3.7M env steps (CPU); the paper: 38.5%"

_MT10 = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtsac_mt10.py"))


def get_config():
  cfg = copy.deepcopy(_MT10["get_config"]())
  cfg["env"].update(name="MT50", envs_per_task=4)
  cfg["agent"].update(num_envs=200, updates_per_cycle=1000, batch_size=6400, total_env_steps=50_000_000)
  cfg["run"].update(num_eval_envs=500)
  return cfg

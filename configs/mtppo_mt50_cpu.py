"""MT-PPO on MT50 at a 2-core CPU's budget, with mtppo_mt50's settings.

50 tasks x 2 worlds x 50 steps (5,000 steps) per update, 5 minibatches of whole worlds, 8 epochs;
evaluation on 2 episodes per task.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run yet"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt50.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["agent"].update(num_envs=100, num_minibatches=5, update_epochs=8, total_env_steps=20_000_000)
  cfg["run"].update(eval_every=25, num_eval_envs=100)
  return cfg

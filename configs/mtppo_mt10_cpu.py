"""MT-PPO on MT10 at a 2-core CPU's budget, with mtppo_mt10's settings.

10 tasks x 4 worlds x 50 steps (2,000 steps) per update, 4 minibatches of whole worlds, 8 epochs;
evaluation on 5 episodes per task.

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT10 eval success 0.15 at 1.45M env steps in 62 min (CPU, 2026-11-26)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt10.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["agent"].update(num_envs=40, num_minibatches=4, update_epochs=8, total_env_steps=20_000_000)
  cfg["run"].update(eval_every=25, num_eval_envs=50)
  return cfg

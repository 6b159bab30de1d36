"""MT-SAC on MT50 within a CPU budget: 1 world per task, mtsac_mt50's learner, a 60-minute stop.

50 tasks x 1 world x 50 steps = 2,500 env steps per cycle, 250 updates (0.1 per env step) of 1,280.

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT50 eval 0.27 at 1.6-2.2M (CPU, 2026-11-26); on the fixed worlds 0.23 at 1.2-1.33M (2026-11-27)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtsac_mt50.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["env"].update(envs_per_task=1)
  cfg["agent"].update(num_envs=50, updates_per_cycle=250, batch_size=1280, total_env_steps=5_000_000)
  cfg["run"].update(eval_every=10, num_eval_envs=50, max_minutes=60)
  return cfg

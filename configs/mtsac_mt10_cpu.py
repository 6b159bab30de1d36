"""MT-SAC on MT10 within a CPU budget: 2 worlds per task, a 60-minute stop.

configs/mtsac_mt10.py with 2 worlds per task (20 envs x 50 steps = 1,000 env steps per cycle, 100
updates: the same 0.1 gradient steps per env step), replay batches of 256 from a 2e5-transition buffer,
2M env steps, 2 evaluation episodes per task every 20 cycles, and a 60-minute stop (resumable: --resume
RUN_DIR). A smoke-scale run of the algorithm; MT10 needs far more than a CPU hour.

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT10, the arm, 2 seeds at 5.5-6.7M env steps: 0.694, 0.697 (paper 68.3%); CPU, 2026-11-28"

_MT10 = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtsac_mt10.py"))


def get_config():
  cfg = copy.deepcopy(_MT10["get_config"]())
  cfg["env"].update(envs_per_task=2)
  cfg["agent"].update(
    num_envs=20, updates_per_cycle=100, batch_size=256, buffer_size=200_000, total_env_steps=2_000_000
  )
  cfg["run"].update(eval_every=20, num_eval_envs=20, max_minutes=60)
  return cfg

"""DDPG+HER on FetchSlide with her_fetch_push_cpu's settings (8 workers' batch as one).

16 envs x 50 steps per cycle, 40 updates per cycle of one batch of 2,048 (8 workers x 256), the normaliser's
std floor at 1e-2, evaluation every 10 cycles (8,000 env steps) on 64 fresh episodes. Slide runs on the
reference's 0.002 s x 20 physics step (mjx_envs/fetch/env.py). The paper's curve reaches ~0.7 by ~2M env
steps (8 workers); the run is bounded by `run.max_minutes`.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.7 by 1.9M env steps, 0.74 at 3.0-3.19M, 140 min, C physics (CPU, 2026-11-26)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_fetch_push_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"]["name"] = "FetchSlide"
  cfg["agent"]["total_env_steps"] = 4_000_000
  cfg["run"]["max_minutes"] = 90
  return cfg

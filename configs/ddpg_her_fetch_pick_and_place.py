"""DDPG+HER on FetchPickAndPlace: ddpg_her_fetch_push's settings, a 4M-step budget."""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "with batch 2,048: success 0.23 at 352k env steps in 12 min (CPU, 2026-11-24)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"]["name"] = "FetchPickAndPlace"
  cfg["agent"]["total_env_steps"] = 4_000_000
  return cfg

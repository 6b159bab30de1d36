"""DDPG+HER on HandManipulateEggRotate with her_hand_block_rotate_z_cpu's setting, for the CPU.

The egg to a target rotation (position ignored): the 8-worker batch of 2,048, 16 envs x 100 steps per
cycle, 40 updates per cycle, evaluation every 10 cycles on 64 fresh episodes. The C backend on a CPU.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not trained yet (2026-11-26)"

_BLOCK = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_hand_block_rotate_z_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_BLOCK["get_config"]())
  cfg["env"]["name"] = "HandManipulateEggRotate"
  return cfg

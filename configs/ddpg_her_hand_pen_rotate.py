"""DDPG+HER on HandManipulatePenRotate with ddpg_her_hand_block_rotate_z's settings (the HER paper's).

The pen to a target rotation about a random axis, its own axis ignored; position ignored."""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not trained yet (2026-11-26)"

_BLOCK = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_hand_block_rotate_z.py"))


def get_config():
  cfg = copy.deepcopy(_BLOCK["get_config"]())
  cfg["env"]["name"] = "HandManipulatePenRotate"
  return cfg

"""DDPG+HER on HandManipulateEggRotate sized for one GPU (MJX physics).

ddpg_her_hand_block_rotate_z_gpu's recipe (one batch of 2,048, one update per 20 new env steps, 512 envs
x 100-step episodes, the targets moved after every update) on the egg: a target rotation about a random
axis, position ignored. Evaluation every 2 cycles on 256 fresh episodes.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "eval success 0.05 at 205k env steps beside BlockRotateZ (one H200, MJX, 2026-12-04)"

_BLOCK = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_hand_block_rotate_z_gpu.py"))


def get_config():
  cfg = copy.deepcopy(_BLOCK["get_config"]())
  cfg["env"]["name"] = "HandManipulateEggRotate"
  return cfg

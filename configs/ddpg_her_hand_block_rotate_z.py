"""DDPG+HER on HandManipulateBlockRotateZ, sparse reward, the HER paper's settings.

The block to a target rotation about z (position ignored); Plappert et al. 2018's settings, those of
ddpg_her_hand_reach and ddpg_her_fetch_push.

16 envs x 100 steps per cycle (one whole 100-step episode each: 8 workers x 2 rollouts); 40 batches of
256 per cycle; evaluation every 10 cycles on 64 fresh episodes. The C backend on a CPU (`impl="auto"`).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not trained yet (2026-11-26)"

_REACH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_hand_reach.py"))


def get_config():
  cfg = copy.deepcopy(_REACH["get_config"]())
  cfg["env"] = {"name": "HandManipulateBlockRotateZ", "reward_type": "sparse"}
  cfg["agent"].update(unroll_length=100, total_env_steps=2_000_000)
  return cfg

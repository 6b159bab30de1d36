"""DDPG+HER on HandManipulateBlockRotateZ with her_hand_reach_cpu's setting, for the CPU.

her_hand_reach_cpu's gradient (baselines' 8 workers as one batch of 2,048, the normaliser's std floor at
1e-2) on the block about z: 16 envs x 100 steps per cycle (one whole episode each, 8 workers x 2
rollouts), 40 updates per cycle, evaluation every 10 cycles on 64 fresh episodes. The C backend on a CPU.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "eval success 0.34 at 848k env steps (best 0.41) after 2 h on a crowded CPU (2026-11-26)"

_REACH = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_hand_reach_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_REACH["get_config"]())
  cfg["env"] = {"name": "HandManipulateBlockRotateZ", "reward_type": "sparse"}
  cfg["agent"].update(unroll_length=100, total_env_steps=3_000_000)
  return cfg

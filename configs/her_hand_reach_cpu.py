"""DDPG+HER on HandReach with the setting that learned FetchPush fastest on the 2-core CPU.

her_fetch_push_cpu's gradient (baselines' 8 workers as one batch of 2,048, the normaliser's std floor at
1e-2) on HandReach: 16 envs x 50 steps per cycle, 40 updates per cycle, evaluation every 10 cycles on 64
fresh episodes. ddpg_her_hand_reach (one batch of 256, baselines' 1-worker gradient) reached 0.19 at 744k
env steps in 16 minutes on the loaded CPU (2026-11-26).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "DDPG+HER 0.7; sac_her 0.77 (ring 0), then ring read apart 0.888 on 2 seeds (CPU, 2026-12-02)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_fetch_push_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"] = {"name": "HandReach", "reward_type": "sparse"}
  cfg["agent"].update(total_env_steps=3_000_000)
  cfg["run"].update(max_minutes=120)
  return cfg

"""DDPG+HER on HandReach, sparse reward, OpenAI baselines' settings (those of ddpg_her_fetch_push).

16 envs x 50 steps per cycle = 8 workers x 2 rollouts; 40 batches of 256 per cycle; evaluation every 10
cycles on 64 fresh episodes. The C backend on a CPU (`impl="auto"`).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.03-0.28 over 760k env steps (CPU, 2026-11-26); her_hand_reach_cpu learns"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"] = {"name": "HandReach", "reward_type": "sparse"}
  cfg["agent"].update(total_env_steps=1_000_000)
  cfg["run"].update(eval_every=10, num_eval_envs=64)
  return cfg

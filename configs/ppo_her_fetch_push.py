"""PPO with the hindsight term (on-policy HER) on FetchPush: ppo_fetch_push plus the switch.

configs/ppo_fetch_push.py plus the switch, so the two differ only in it. See BENCHMARKS.md for the
comparison with PPO and DDPG+HER.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = (
  "chance level over 3 seeds: 0.06 final, up to 4.4M env steps in 24 min of one core (CPU, 2026-11-26)"
)

_PPO = runpy.run_path(os.path.join(os.path.dirname(__file__), "ppo_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PPO["get_config"]())
  cfg["agent"].update(hindsight=True, hindsight_coef=0.5, hindsight_clip=0.2)
  return cfg

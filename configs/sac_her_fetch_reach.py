"""SAC+HER on FetchReach, sparse reward: ddpg_her_fetch_reach with SAC as the learner.

configs/ddpg_her_fetch_reach.py (8 envs x 50 steps and 40 updates of 256 per cycle, 3 x 256 relu, lr
1e-3, polyak 0.95, gamma 0.98, replay_k 4 future) with SAC's twin critics, squashed-Gaussian actor and
learned temperature (agents/her/sac.py defaults) as the learner.
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not yet measured"


def get_config():
  cfg = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_reach.py"))["get_config"]()
  cfg["agent"]["algo"] = "sac_her"  # every other key is one both learners share (agents.her.ddpg.HERConfig)
  return cfg

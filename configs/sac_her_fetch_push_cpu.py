"""SAC+HER on FetchPush, sized for a 2-core CPU: her_fetch_push_cpu with SAC as the learner.

her_fetch_push_cpu is baselines' 8-worker setting as one batch of 2,048 (16 envs x 50 steps, 40 updates
per cycle, the normaliser's std floor 1e-2); the two configs differ only in the learner: twin critics, a
squashed-Gaussian actor, a learned temperature (agents/her/sac.py), exploring with its own policy. See
BENCHMARKS.md ("HER on Fetch") for the runs side by side at equal env steps.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.9 at 888k env steps, 0.97 at 1M (DDPG+HER 0.9 at ~640k) (CPU, 2026-11-26)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_fetch_push_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["agent"]["algo"] = "sac_her"  # every other key is one both learners share (agents.her.ddpg.HERConfig)
  return cfg

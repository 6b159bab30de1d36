"""SAC+HER on FetchSlide: ddpg_her_fetch_slide with SAC as the learner.

configs/ddpg_her_fetch_slide.py (the FetchPush settings, a 4M-step budget) with SAC as the learner (see
configs/sac_her_fetch_push.py).
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not yet measured"


def get_config():
  cfg = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_slide.py"))["get_config"]()
  cfg["agent"]["algo"] = "sac_her"
  return cfg

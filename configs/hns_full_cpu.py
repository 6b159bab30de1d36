"""The full hide-and-seek game, multi-agent PPO sized for a 2-core CPU.

Random rooms, 1-3 hiders and seekers, 3-9 boxes, 2 lockable ramps, 240-step episodes; `hns_quadrant_cpu`'s
settings (40 steps per world per train step, embedding 64, 4 heads x 16, dense 128, LSTM 128, lr 1e-3)
with 32 worlds. To show that the full game trains here (the seekers' return leaving its random level),
not to reach its later phases.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "seekers -42.9 (untrained) to -22.0 (random -26.5) in 179k world steps, 65 min (CPU, 2026-11-26)"

_QUADRANT_CPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "hns_quadrant_cpu.py"))


def get_config():
  # hns_quadrant_cpu's network and PPO, on the full game at its earlier 32 worlds.
  cfg = copy.deepcopy(_QUADRANT_CPU["get_config"]())
  cfg["env"] = {"name": "HideAndSeek"}
  cfg["agent"].update(num_envs=32)
  return cfg

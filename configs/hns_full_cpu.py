"""The full hide-and-seek game, multi-agent PPO sized for a 2-core CPU.

Random rooms, 1-3 hiders and seekers, 3-9 boxes, 2 lockable ramps, 240-step episodes; `hns_full`'s
settings with 32 worlds, 40 steps per world per train step, the smaller entity network of
`hns_quadrant_cpu` (embedding 64, 4 heads x 16, dense 128, LSTM 128) and lr 1e-3, as a CPU budget allows
few updates. To show that the full game trains here
(the seekers' return leaving its random level), not to reach its later phases.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "seekers -42.9 (untrained) to -22.0 (random -26.5) in 179k world steps, 65 min (CPU, 2026-11-26)"

_FULL = runpy.run_path(os.path.join(os.path.dirname(__file__), "hns_full.py"))


def get_config():
  cfg = copy.deepcopy(_FULL["get_config"]())
  cfg["agent"].update(
    num_envs=32,
    unroll_length=40,
    total_env_steps=4_000_000,
    learning_rate=1e-3,
    embed=64,
    head_dim=16,
    dense=128,
    lstm_size=128,
  )
  cfg["run"].update(num_eval_envs=32)
  return cfg

"""DDPG+HER on FetchPush: the setting that reaches eval success 0.9 fastest on a 2-core CPU.

The target: eval success >= 0.9 within 60 minutes of `train.py` wall time. Baselines' 8-worker setting:
16 envs x 50 steps per cycle (8 workers x 2 rollouts), 40 updates per cycle of an effective batch of 8 x
256 = 2,048 (one batch of 2,048 gives the gradient of 8 workers' averaged 256-batches;
tests/agents/her/test_ddpg.py), the normaliser's std floor at baselines' 1e-2. Evaluation every 10 cycles
(8,000 env steps) on 64 fresh episodes. Measured on the 2-core CPU (2026-11-24; BENCHMARKS.md, "HER on
Fetch"): eval success 0.92 at 616k env steps after 35.3 min of training (+40 s compile), 0.95-1.00 from 1M
steps; 0.95 at the 58-minute stop (1.13M steps). Baselines' 1-worker ratio (2 envs, batch 256) stayed at
0.05-0.14 for its 23 minutes (305k steps).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.92 at 616k env steps after 35 min of training; 0.95 at 58 min (CPU, 2026-11-24)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  # ddpg_her_fetch_push (16 envs x 50 steps, 40 updates per cycle) with the 8 workers' batches as one.
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["agent"].update(batch_size=2048, obs_std_min=0.01)
  cfg["run"].update(eval_every=10, num_eval_envs=64, max_minutes=58)
  return cfg

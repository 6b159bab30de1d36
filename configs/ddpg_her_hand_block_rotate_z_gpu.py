"""DDPG+HER on HandManipulateBlockRotateZ sized for one GPU (MJX physics).

ddpg_her_fetch_push_gpu's recipe on the hand: her_fetch_push_cpu's gradient (one batch of 2,048, the
normaliser's std floor at 1e-2) and its ratio of one update per 20 new env steps, on 512 envs x 100 steps
(one whole episode each) = 51,200 env steps per cycle and 2,560 updates per cycle, the targets moved
after every update by 1 - 0.95^(1/40). Evaluation every 2 cycles on 256 fresh episodes.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "eval success 0.38 at 512k env steps, 9 min incl. compile (one H100, MJX, 2026-11-26)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_fetch_push_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"] = {"name": "HandManipulateBlockRotateZ", "reward_type": "sparse"}
  cfg["agent"].update(
    num_envs=512,
    unroll_length=100,
    updates_per_cycle=2560,
    polyak=round(0.95 ** (1 / 40), 6),
    polyak_every_update=True,
    total_env_steps=50_000_000,
  )
  cfg["run"].update(eval_every=2, num_eval_envs=256, max_minutes=8)
  return cfg

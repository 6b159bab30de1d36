"""DDPG+HER on FetchPush as OpenAI baselines' HER runs it on 8 MPI workers (the HER paper's setting).

Each worker collects 2 rollouts of 50 steps per cycle (8 x 2 -> num_envs 16) and samples its own batch of
256 for each of the 40 updates, and the workers' gradients are averaged (MPI Adam), so every update steps
on 8 independent relabelled batches of 256 averaged (grad_batches 8; effective batch 2,048). An epoch is
50 cycles = 40,000 env steps; the 2,000,000 here are 50 epochs. Everything else is baselines'
(agents/her/ddpg.py), sparse reward, but for one shared replay buffer and normaliser where baselines keeps
a buffer per worker and sums the workers' normaliser statistics, and the normaliser's std floor (as in
ddpg_her_fetch_push_1w). ddpg_her_fetch_push is the same data rate with one batch of 256 per update;
ddpg_her_fetch_push_1w is one worker.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not measured as is; her_fetch_push_cpu (same gradient): 0.92 at 616k steps (CPU, 2026-11-24)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["agent"].update(num_envs=16, grad_batches=8, total_env_steps=2_000_000)
  return cfg

"""SAC+HER on FetchPush, sparse reward: ddpg_her_fetch_push with SAC as the learner.

configs/ddpg_her_fetch_push.py (16 envs x 50 steps = baselines' 8 workers x 2 rollouts; 40 batches of 256
per cycle; 3 x 256 relu, lr 1e-3, polyak 0.95, gamma 0.98, replay_k 4 future, 1e6 buffer) with SAC as the
learner, so the two differ only in it: twin critics, squashed-Gaussian actor, learned temperature
(agents/her/sac.py), exploring with its own policy. `--set agent.random_eps=0.3` adds DDPG+HER's uniform
random actions, `--set agent.grad_batches=8` the 8 workers' averaged gradients of ddpg_her_fetch_push_8w.
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "with batch 2,048: best success 0.19 at 272k env steps in 12 min (CPU, 2026-11-24)"


def get_config():
  cfg = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))["get_config"]()
  cfg["agent"]["algo"] = "sac_her"  # every other key is one both learners share (agents.her.ddpg.HERConfig)
  return cfg

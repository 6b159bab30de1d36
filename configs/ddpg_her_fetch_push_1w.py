"""DDPG+HER on FetchPush as OpenAI baselines' HER runs it on one MPI worker.

Baselines' default, num_cpu=1: per cycle 2 rollouts of 50 steps (rollout_batch_size=2 -> num_envs 2) and
40 updates of one batch of 256 (grad_batches 1); an epoch is 50 cycles = 5,000 env steps, and the 250,000
steps here are baselines' 50 epochs. Everything else is baselines' (agents/her/ddpg.py: lr 1e-3, polyak
0.95, gamma 0.98, 3 x 256 relu, random_eps 0.3, noise_eps 0.2, action_l2 1, replay_k 4 future, 1e6
buffer, clipped targets), sparse reward, but for the normaliser's std floor (`--set
agent.obs_std_min=0.01` is baselines'; BENCHMARKS.md). The 8-worker setting is ddpg_her_fetch_push_8w.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "success 0.08 (best 0.14) at 305k env steps in 23 min (CPU, 2026-11-24)"

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["agent"].update(num_envs=2, grad_batches=1, total_env_steps=250_000)
  cfg["run"]["eval_every"] = 50  # one baselines epoch per evaluation
  return cfg

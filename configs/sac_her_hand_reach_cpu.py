"""SAC+HER on HandReach: 352k env steps as her_hand_reach_cpu, then the ring goals read 15 mm apart.

Every learner that reads HandReach's goals as they are stalls near 0.75 with the ring finger's goals
never met (0.00): the policy meets the pressed-together ring poses it can reach but fails 2-4 mm beyond
them, where every real ring goal lies (BENCHMARKS.md, "HandReach: where the plateau is"). Reading the
ring and thumb targets at least 15 mm apart (`env.seen_goal_min_separation`: the goal the networks read;
rewards and success stay on the real goal) teaches them, but only to a policy that has first learned
the rest: read apart from the first step the ring goals stay at 0.00. So the change comes at 352k env
steps (`run.changes`), with the whole train state carried (buffer, optimiser, targets), as `--resume
RUN --set env.seen_goal_min_separation=...` would there.

Seed 2 (this config, 632k env steps, C physics, 2-core CPU): 0.878 / 0.872 on two sets of 1,024 episodes
(ring 0.57 / 0.53, fore 0.90, the rest 1.00); `--set 'run.changes=[[352000, "env.seen_goal_min_separation=
[0.0, 0.0, 0.015, 0.0]", "agent.actor_lr=3e-4", "agent.critic_lr=3e-4"]]'` the same (0.880 / 0.867).
BENCHMARKS.md, "HandReach in one command", has the runs; `python benchmarks/hand_reach_by_finger.py
--run RUN --episodes 1024` scores a run by goal kind.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "seed 2: 0.875 at 632k (ring 0.55); as two commands seeds 0, 1: 0.888 (CPU, 2026-12-02)"

_BASE = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_hand_reach_cpu.py"))

SWITCH = 352_000  # env steps of plain SAC+HER before the ring goals are read apart


def get_config():
  cfg = copy.deepcopy(_BASE["get_config"]())
  cfg["agent"].update(algo="sac_her", total_env_steps=632_000)
  cfg["run"].update(max_minutes=0, changes=[[SWITCH, "env.seen_goal_min_separation=[0.0, 0.0, 0.015, 0.0]"]])
  return cfg

"""DDPG+HER on HandReach with demonstrations: her_hand_reach_cpu plus the scripted expert's episodes.

Every learner without them plateaued near 0.75 with the ring finger's goals never learned (0.00; see
BENCHMARKS.md, "HandReach: where the plateau is"), although a constant action reaches 64-71% of those
goals with contacts (ours and the reference's hand alike, `benchmarks/hand_reach_reachability.py
--hold`). Demonstrations put such episodes in the data: 1,000 episodes of the scripted IK expert
(`mjx_envs/hand/scripted.py`, success ~0.84, ring goals ~0.40) are collected at init into their own
buffer; each batch of 2,048 holds 256 of them (baselines' 128 of 1,024 in proportion), relabelled as the
rest; and the actor clones their actions where the critic rates them above its own (the Q filter), with
baselines' weights (0.0078 on the summed cloning error against 0.001 on -Q: bc_weight = 7.8 x 256).

Variants measured (BENCHMARKS.md, "Cloning first, then reinforcement learning alone" and "Three more ways
to clone"): `--set agent.bc_original_goals=True` (clone only the rows that keep the expert's goal: 0.70 at
~590k, the best balance, then the same drift), `agent.demo_successes_only=True`, `agent.algo=sac_her`,
and from 920k `agent.bc_until=920000` with `agent.bc_half_life=0` (collapse) or 100000 (ring goals lost).
"Cloning the ring finger's demonstrations only": `agent.demo_goal_kinds='["ring"]'` with 4,000 episodes
and bc_original_goals, from scratch (a ring specialist, 0.11 at 560k) or resumed from this config's
bc_weight=0 run at 480k (0.77 at 2.04M: ring 0.40, fore 0.60, the best by-finger result so far; 0.75 at 3M).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "0.63 at 920k, ring goals 0.46 (none before), fore 0.45 (CPU, 2026-11-27)"

_BASE = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_hand_reach_cpu.py"))


def get_config():
  cfg = copy.deepcopy(_BASE["get_config"]())
  cfg["agent"].update(demo_episodes=1000, demo_batch_size=256, bc_weight=7.8 * 256)
  cfg["run"].update(max_minutes=75)
  return cfg

"""SAC+HER on HandReach: plain to 352k, ring goals read apart, drawn more at 632k, lr / 10 at 832k.

Every learner that reads HandReach's goals as they are stalls near 0.75 with the ring finger's goals
never met (0.00): the policy meets the pressed-together ring poses it can reach but fails 2-4 mm beyond
them, where every real ring goal lies (BENCHMARKS.md, "HandReach: where the plateau is"). Reading the
ring and thumb targets at least 15 mm apart (`env.seen_goal_min_separation`: the goal the networks read;
rewards and success stay on the real goal) teaches them, but only to a policy that has first learned
the rest: read apart from the first step the ring goals stay at 0.00. So the change comes at 352k env
steps (`run.changes`), with the whole train state carried (buffer, optimiser, targets), as `--resume
RUN --set env.seen_goal_min_separation=...` would there.

At 632k the draws of training goals turn to the kind still missed (`env.goal_kind_probs`: ring 47.5%,
middle and little 10%; evaluation stays on the reference's mix). At 832k the actor's and critic's
learning rates fall to a tenth (1e-4) for the last 200k, 1.032M in all (~90 minutes alone on 2 CPU
cores). Two sets of 1,024 episodes each: seeds 3 and 4 (this schedule; the last phase made as the
resume the test shows equal) **0.921 / 0.903 and 0.916 / 0.906**, from 0.888 / 0.872 and 0.899 / 0.884
at 832k (ring 0.55-0.67 there, 0.65-0.72 after); seed 3 trained on for the same 200k at the rates kept
(the control) 0.912 / 0.896, seed 4 0.905 / 0.890; target entropy -60 instead of the lower rates:
0.894 / 0.877. Seeds 1 and 2, the last phase from their 832k-phase policies (a fresh buffer): 0.916 /
0.906 and 0.918 / 0.909 (0.905 and 0.890 before). Four seeds after it: 0.911, 0.914, 0.912, 0.911 (mean
0.912, every set above 0.9). Before it, five seeds at 832k or its phases: 0.895, 0.905, 0.890, 0.880,
0.892 (mean 0.892). BENCHMARKS.md, "The config as one command" and "A last phase at a tenth of the
learning rates" has the runs; `python benchmarks/hand_reach_by_finger.py --run RUN --episodes 1024`
scores a run by goal kind.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "4 seeds at 1.032M: 0.911, 0.914, 0.912, 0.911 (mean of 2 x 1,024 episodes) (CPU, 2026-12-02)"

_BASE = runpy.run_path(os.path.join(os.path.dirname(__file__), "her_hand_reach_cpu.py"))

SWITCH = 352_000  # env steps of plain SAC+HER before the ring goals are read apart
RING_HEAVY = 632_000  # then the ring goals drawn 47.5% of the time
POLISH = 832_000  # then the actor and critic learning rates at a tenth, 1.032M env steps in all


def get_config():
  cfg = copy.deepcopy(_BASE["get_config"]())
  cfg["agent"].update(algo="sac_her", total_env_steps=1_032_000)
  changes = [
    [SWITCH, "env.seen_goal_min_separation=[0.0, 0.0, 0.015, 0.0]"],
    [RING_HEAVY, "env.goal_kind_probs=[0.1, 0.225, 0.1, 0.475, 0.1]"],
    [POLISH, "agent.actor_lr=0.0001", "agent.critic_lr=0.0001"],
  ]
  cfg["run"].update(max_minutes=0, changes=changes)
  return cfg

"""A trained HandReach policy, unchanged, reading the goal through HandReach's `policy_goal` with a
thumb-finger separation it was not trained with: success by goal kind on the real goals.

    python benchmarks/results/her-hand/2026-11-29/seen_goal_eval.py POLICY.msgpack FINGER SEP[,SEP...] OUT.json

FINGER is fore, middle, ring or little; SEP in metres (0: the goal as it is). 1,024 episodes each
(benchmarks/hand_reach_by_finger.py, deterministic policy, C physics)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))

import mjx_envs

from agents import experiment
from benchmarks import hand_reach_by_finger as by_finger

src, finger, seps, out_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
act0 = experiment.load_exported_policy(src)[0]
out = {"source": src, "finger": finger, "episodes": 1024, "by_separation": {}}
for sep in (float(x) for x in seps.split(",")):
  mins = [0.0] * 4
  mins[by_finger.KINDS.index(finger)] = sep
  view = mjx_envs.make("HandReach", impl="c", seen_goal_min_separation=mins).unwrapped.policy_goal

  def act(obs, key, view=view):
    return act0({**obs, "desired_goal": view(obs["desired_goal"])}, key)

  table = by_finger.by_finger(act, 1024, 0)
  out["by_separation"][str(sep)] = table
  row = {k: (round(v["success"], 3), round(1000 * v["median_error_m"], 1)) for k, v in table.items()}
  print(f"separation {1000 * sep:.0f} mm: (success, median error mm) {row}", flush=True)
with open(out_path, "w") as f:
  json.dump(out, f, indent=1)

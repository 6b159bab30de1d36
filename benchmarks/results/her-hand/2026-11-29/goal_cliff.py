"""Where a HandReach policy's ring-finger meetings break: goals moved step by step from the nearest
curriculum path's end (the thumb and ring tips that a held constant action reaches, pressed together;
mjx_envs/hand/reach_paths.npz) to a real meeting goal of the env (64 drawn, key 7), 6 steps of beta.

    python benchmarks/results/her-hand/2026-11-29/goal_cliff.py POLICY.msgpack|RUN_DIR [OUT.json]

Prints the success and the median 15-D error per beta (deterministic policy, C physics, 50 steps)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))

import mjx_envs
from mjx_envs.hand import reach

import jax
import jax.numpy as jnp
import numpy as np

from agents import experiment
from benchmarks import hand_reach_by_finger as by_finger

src = sys.argv[1]
act = experiment.load_exported_policy(src)[0] if src.endswith(".msgpack") else experiment.load_policy(src)
env = mjx_envs.make("HandReach", impl="c").unwrapped
ini = np.asarray(env.initial_goal, np.float32).reshape(5, 3)
ends = reach.path_goals(env.initial_goal, 0)[2][:, -1]  # [poses, 15]: the ring paths' ends
keys = jax.random.split(jax.random.PRNGKey(7), 64)
goals = np.asarray(jax.vmap(lambda k: env._meeting_goal(k, jnp.asarray(ini), 2))(keys)).reshape(64, 15)
d = np.linalg.norm(goals[:, None] - ends[None], axis=-1)
nearest = ends[d.argmin(1)]
betas = np.linspace(0, 1, 6)
batch = np.concatenate([(1 - b) * nearest + b * goals for b in betas]).astype(np.float32)


err = np.linalg.norm(by_finger.final_tips(act, batch) - batch, axis=-1).reshape(6, 64)
out = {
  "source": src,
  "goal_to_nearest_path_end_mm_median": float(1000 * np.median(d.min(1))),
  "beta": [float(b) for b in betas],
  "success": [float(np.mean(r < 0.01)) for r in err],
  "median_error_mm": [float(1000 * np.median(r)) for r in err],
}
print(f"real goal to the nearest path end: median {out['goal_to_nearest_path_end_mm_median']:.1f} mm")
for b, s_, e in zip(out["beta"], out["success"], out["median_error_mm"]):
  print(f"beta {b:.1f}: success {s_:.2f}, median error {e:.1f} mm")
if len(sys.argv) > 2:
  with open(sys.argv[2], "w") as f:
    json.dump(out, f, indent=1)

"""Record the reference's scripted experts in the reference (metaworld 3.1.1) for an open-loop replay fixture.

Run by hand in the reference venv (see `scripts/make_metaworld_reference.py` for how to build it); the
output is committed and read with numpy alone by `tests/mjx_envs/test_metaworld_expert_replay.py`:

    MUJOCO_GL=egl /work/mwvenv/bin/python scripts/make_metaworld_expert_reference.py

    tests/fixtures/metaworld_expert_replay.npz   per task T: T/rand_vec [R], T/actions [S, 4] (the expert's
                                                 actions, clipped to [-1, 1]), T/obs [S + 1, 39] (the reset's
                                                 observation, then each step's), T/success [S]
    tests/fixtures/metaworld_expert_replay.json  versions, tasks, steps, what each task's replay shows

What the replays pin down (each a part of our world that the lead of `../shared/notes/metaworld.md` found
different, where our own scripted controllers did not notice):
- lever-pull-v3: the expert lifts the lever by rising under it; the wrist above the claws (the
  reference's `right_hand` collision mesh) is what lifts it.
- plate-slide-side-v3: the expert presses the hand to the mocap's floor (z 0.05) and slides; the reference's
  arm sags 3.9 mm below the mocap target, so its hand reaches z 0.046, under the expert's 4 cm gate.
- peg-insert-side-v3: the expert grips the peg and carries it; it needs the hand's rest height to agree.

Deterministic: MT1(task, seed=0)'s first task, `reset(seed=0)`, the expert's actions for STEPS steps.
"""

from __future__ import annotations

import json
import os
import warnings

import metaworld
import mujoco
import numpy as np
from metaworld.policies import ENV_POLICY_MAP

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASKS = {
  "lever-pull-v3": "the wrist lifts the lever: the lever's observed z rises by > 0.1 m",
  "plate-slide-side-v3": "the hand presses to z 0.046 (the arm's sag under the mocap's floor of 0.05)",
  "peg-insert-side-v3": "the peg is gripped and lifted: its observed z rises above 0.08 m",
}
STEPS = 100


def record(name: str) -> dict[str, np.ndarray]:
  mt = metaworld.MT1(name, seed=0)
  env = mt.train_classes[name]()
  env.set_task(mt.train_tasks[0])
  policy = ENV_POLICY_MAP[name]()
  obs, _ = env.reset(seed=0)
  out = {"rand_vec": np.array(env._last_rand_vec, np.float64), "obs": [obs], "actions": [], "success": []}
  for _ in range(STEPS):
    a = np.clip(policy.get_action(obs), -1.0, 1.0)
    obs, _, _, _, info = env.step(a)
    out["actions"].append(a)
    out["obs"].append(obs)
    out["success"].append(float(info["success"]))
  return {k: np.asarray(v, np.float64) for k, v in out.items()}


def main():
  warnings.filterwarnings("ignore")
  arrays = {}
  for name in TASKS:
    for k, v in record(name).items():
      arrays[f"{name}/{k}"] = v
  base = os.path.join(REPO, "tests", "fixtures", "metaworld_expert_replay")
  np.savez_compressed(base + ".npz", **arrays)
  meta = {
    "versions": {
      "metaworld": metaworld.__version__ if hasattr(metaworld, "__version__") else "3.1.1",
      "mujoco": mujoco.__version__,
    },
    "tasks": TASKS,
    "steps": STEPS,
    "protocol": "MT1(task, seed=0).train_tasks[0], reset(seed=0), ENV_POLICY_MAP[task]() clipped to [-1, 1]",
  }
  with open(base + ".json", "w") as f:
    json.dump(meta, f, indent=1)
  print({k: v.shape for k, v in arrays.items()})


if __name__ == "__main__":
  main()

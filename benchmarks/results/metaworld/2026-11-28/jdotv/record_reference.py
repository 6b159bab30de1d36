"""Step 1 of the engine-version check (run in the metaworld 3.1.1 venv, MuJoCo 3.3.0): the reference's own
reach-v3 and push-v3, the parity fixture's 15 hand-motion sequences (scripts/make_metaworld_reference.py)
from benchmark task 0's reset; records each sequence's start state, the mocap targets and controls of
every control step, the model's runtime eq_data / site_pos, and the qpos after every control step.

    /path/to/mwvenv/bin/python record_reference.py OUT.npz
"""

import os
import sys

import metaworld
import mujoco
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), *[".."] * 5, "scripts"))
import make_metaworld_reference as R

FIELDS = ("qpos", "qvel", "act", "mocap_pos", "mocap_quat", "ctrl", "qacc_warmstart")


def main(out_path):
  mt = metaworld.MT10(seed=R.SEED)
  out = {}
  for task in ("reach-v3", "push-v3"):
    for name, actions in R.motion_sequences().items():
      env, _ = R.make_env(mt, task, 0)
      env.reset()
      m, d = env.model, env.data
      key = f"{task}/{name}"
      for f in FIELDS:
        out[f"{key}/s0/{f}"] = getattr(d, f).copy()
      mocap, ctrl, qpos = [], [], []
      for a in actions:
        env.step(a.astype(np.float32))
        mocap.append(d.mocap_pos.copy()), ctrl.append(d.ctrl.copy()), qpos.append(d.qpos.copy())
      out[f"{key}/mocap_pos"], out[f"{key}/ctrl"], out[f"{key}/qpos"] = map(np.stack, (mocap, ctrl, qpos))
      out[f"{key}/eq_data"], out[f"{key}/site_pos"] = m.eq_data.copy(), m.site_pos.copy()
      out[f"{key}/frame_skip"] = np.array(env.frame_skip)
      out[f"{task}/model_path"] = np.array(env.model_name)
      env.close()
  np.savez(out_path, **out)
  print("recorded with MuJoCo", mujoco.__version__, "->", out_path)


if __name__ == "__main__":
  main(sys.argv[1])

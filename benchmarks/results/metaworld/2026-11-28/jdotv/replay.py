"""Step 2 (any MuJoCo): replay record_reference.py's inputs on the reference's own model file, as metaworld
steps it (mocap target and quaternion [1, 0, 1, 0], controls, frame_skip mj_step, mj_rnePostConstraint,
mj_forward), and print how far this MuJoCo's hand is from the reference's recorded one. `--no-jdotv`
steps with C MuJoCo's J̇v term taken back out (mj_step1, the equality rows' efc_aref reset to
-B v - K I (pos - margin), mj_step2): MuJoCo >= 3.7 then steps as 3.6 does.

    python replay.py OUT.npz [--no-jdotv]
"""

import sys

import mujoco
import numpy as np


def step(m, d, n, jdotv):
  if jdotv:
    mujoco.mj_step(m, d, n)
    return
  for _ in range(n):
    mujoco.mj_step1(m, d)
    ne = d.ne
    if ne:
      k = d.efc_KBIP[:ne]
      d.efc_aref[:ne] = -k[:, 1] * d.efc_vel[:ne] - k[:, 0] * k[:, 2] * (d.efc_pos[:ne] - d.efc_margin[:ne])
    mujoco.mj_step2(m, d)


def main(path, jdotv=True):
  z = np.load(path)
  for task in ("reach-v3", "push-v3"):
    m = mujoco.MjModel.from_xml_path(str(z[f"{task}/model_path"]))
    hand = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "hand")
    names = sorted({k.split("/")[1] for k in z.files if k.startswith(task) and k.count("/") >= 2})
    gaps = []
    for name in names:
      key = f"{task}/{name}"
      eq = z[f"{key}/eq_data"]
      m.eq_data[:, : eq.shape[1]] = eq  # MuJoCo 4 has one more eq_data column
      m.site_pos[:] = z[f"{key}/site_pos"]
      d, ref = mujoco.MjData(m), mujoco.MjData(m)
      for f in ("qpos", "qvel", "act", "mocap_pos", "mocap_quat", "ctrl", "qacc_warmstart"):
        getattr(d, f)[:] = z[f"{key}/s0/{f}"]
      mujoco.mj_forward(m, d)
      g = []
      for t in range(len(z[f"{key}/qpos"])):
        d.mocap_pos[:], d.ctrl[:], d.mocap_quat[:] = (
          z[f"{key}/mocap_pos"][t],
          z[f"{key}/ctrl"][t],
          (1, 0, 1, 0),
        )
        step(m, d, int(z[f"{key}/frame_skip"]), jdotv)
        mujoco.mj_rnePostConstraint(m, d)
        mujoco.mj_forward(m, d)
        ref.qpos[:] = z[f"{key}/qpos"][t]
        mujoco.mj_kinematics(m, ref)
        g.append(np.linalg.norm(d.xpos[hand] - ref.xpos[hand]))
      gaps.append(g)
    gaps = np.array(gaps)
    print(
      f"MuJoCo {mujoco.__version__}{'' if jdotv else ' without J̇v'} {task}: hand gap to 3.3.0's over "
      f"{gaps.shape[0]} sequences x {gaps.shape[1]} steps: mean {gaps.mean() * 1e3:.4f} mm, max "
      f"{gaps.max() * 1e3:.4f} mm"
    )


if __name__ == "__main__":
  main(sys.argv[1], jdotv="--no-jdotv" not in sys.argv)

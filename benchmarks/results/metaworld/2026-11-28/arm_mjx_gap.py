"""MJX-JAX against C MuJoCo on the arm's Sawyer world (drawer-open, no env code: mjx.step and mj_step on the
same model, settled state and mocap targets, 10 control steps of 5 substeps): the hand's and qpos' gap per step.

    python arm_mjx_gap.py 32|64 arm|free [ts1] [nodamp] [nolimit] [jdotv]   # float32 or float64 MJX (jax_enable_x64);
    # ts1: weld torquescale 1; nodamp: joint damping 0; nolimit: joint limits off (both engines);
    # jdotv: MJX within mjx_envs.jdotv.c_jdotv() (C MuJoCo's J̇v term; output in jdotv/arm_gap_with_jdotv.txt)
"""

import sys
import time

x64 = sys.argv[1] == "64"
arm = sys.argv[2] == "arm" if len(sys.argv) > 2 else True
import jax

jax.config.update("jax_enable_x64", x64)
from mjx_envs.elliptic_newton import fast_elliptic_newton
from mjx_envs.jdotv import c_jdotv
from mjx_envs.metaworld import sawyer
from mjx_envs.metaworld import tasks as T

import contextlib

import mujoco
import numpy as np
from mujoco import mjx

if "ts1" in sys.argv:
  sawyer.ARM_WELD_TORQUESCALE = 1.0
env = sawyer.SawyerEnv(T.module("drawer-open-v3").TASK, impl="c", arm=arm)
print("torquescale", "torquescale=\"1.0\"" in env.xml or "torquescale=\"1\"" in env.xml)
m = env.mj_model
if "nodamp" in sys.argv:
  m.dof_damping[:] = 0
if "nolimit" in sys.argv:
  m.jnt_limited[:] = 0
if "noarmature" in sys.argv:
  m.dof_armature[:] = 0
d = mujoco.MjData(m)
d.qpos[:] = env._qpos0
d.qvel[:] = env._qvel0
d.mocap_pos[:] = env._mocap_pos0
d.mocap_quat[:] = env._mocap_quat0
d.ctrl[:] = env._ctrl0
mujoco.mj_forward(m, d)
hand = env.ids.hand
hm = env.ids.hand_mocap
rng = np.random.default_rng(0)
acts = rng.uniform(-1, 1, (10, 4))
mx = mjx.put_model(m)
dx = mjx.put_data(m, d)
print("dtype", dx.qpos.dtype)


@jax.jit
def ctrl_step(dx, mpos, ctrl):
  dx = dx.replace(mocap_pos=mpos, ctrl=ctrl)
  with fast_elliptic_newton(), c_jdotv() if "jdotv" in sys.argv else contextlib.nullcontext():
    for _ in range(env.n_substeps):
      dx = mjx.step(mx, dx)
  return dx


t0 = time.time()
for k, a in enumerate(acts):
  mp = d.mocap_pos.copy()
  mp[hm] = np.clip(mp[hm] + a[:3] * 0.01, env.mocap_low, env.mocap_high)
  ctrl = np.array([a[3], -a[3]])
  d.mocap_pos[:] = mp
  d.ctrl[:] = ctrl
  mujoco.mj_step(m, d, env.n_substeps)
  dx = ctrl_step(dx, jax.numpy.asarray(mp, dx.mocap_pos.dtype), jax.numpy.asarray(ctrl, dx.ctrl.dtype))
  gap = np.abs(np.asarray(dx.xpos[hand], np.float64) - d.xpos[hand]).max()
  print(
    k + 1,
    f"hand gap {gap:.3e}",
    f"qpos gap {np.abs(np.asarray(dx.qpos, np.float64) - d.qpos).max():.3e}",
    flush=True,
  )
print("time", time.time() - t0)

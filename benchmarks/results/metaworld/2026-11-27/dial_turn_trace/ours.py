import mjx_envs

import json

import jax
import jax.numpy as jnp
import numpy as np

ref = json.load(open("/work/scratch/dial/ref.json"))
env = mjx_envs.make("metaworld/dial-turn-v3", impl="c")
s = jax.jit(env.reset_to)(jnp.asarray(ref["rand_vec"], jnp.float32))
step = jax.jit(env.step)


def expert(o):
  hand, dial = o[:3], o[4:7] + np.array([0.05, 0.02, 0.09])
  if np.linalg.norm(hand[:2] - dial[:2]) > 0.02:
    to = np.array([*dial[:2], 0.2])
  elif abs(hand[2] - dial[2]) > 0.02:
    to = dial
  else:
    to = dial + np.array([-0.05, 0.005, 0.0])
  return np.clip(np.concatenate([(to - hand) * 10.0, [1.0]]), -1, 1)


jn = env.mj_model.joint("knob_Joint_1").qposadr[0]
rows = []
for t in range(150):
  o = np.asarray(s.obs)
  s = step(s, jnp.asarray(expert(o), jnp.float32))
  rows.append(
    (
      t,
      float(s.pipeline_state.qpos[jn]),
      np.asarray(s.obs[:3]).round(4).tolist(),
      float(s.metrics["success"]),
    )
  )
for (t, ang, hand, su), r in zip(rows[::5], ref["rows"][::5]):
  print(
    t,
    f"ours {ang:7.3f} {hand} {su:.0f} | ref {r['angle']:7.3f} {[round(x, 4) for x in r['hand']]} {r['success']:.0f}",
  )

# contacts along the turn phase
from mjx_envs import cphysics

import mujoco

m = env.mj_model
d = mujoco.MjData(m)
s = jax.jit(env.reset_to)(jnp.asarray(ref["rand_vec"], jnp.float32))
for t in range(48):
  o = np.asarray(s.obs)
  s = step(s, jnp.asarray(expert(o), jnp.float32))
  if t in (30, 34, 36, 38, 40, 42, 44):
    st = cphysics._f64(np.asarray(s.pipeline_state._impl.state))
    mujoco.mj_setState(m, d, st, cphysics.SPEC)
    mujoco.mj_forward(m, d)
    cons = [
      (
        mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, c.geom[0]),
        mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, c.geom[1]),
        round(c.dist, 4),
        np.round(c.pos, 3).tolist(),
      )
      for c in d.contact[: d.ncon]
    ]
    print(t, "hand", np.round(d.xpos[m.body('hand').id], 4), "mocap", np.round(d.mocap_pos[0], 4), cons)

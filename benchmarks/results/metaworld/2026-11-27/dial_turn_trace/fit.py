import mjx_envs
from mjx_envs.metaworld import sawyer

import json

import jax
import jax.numpy as jnp
import numpy as np

ref = json.load(open("/work/scratch/dial/step_ref.json"))


def lagcurve(mass, tc, damp=1.0):
  sawyer.HAND_MASS = mass
  sawyer.WELD_SOLREF = (tc, damp)
  env = mjx_envs.make("metaworld/reach-v3", impl="c")
  s = env.reset(jax.random.PRNGKey(0))
  step = jax.jit(env.step)
  out = []
  for t in range(20):
    s = step(s, jnp.array([0, 0, -1.0 if t < 8 else 0.0, 0.0]))
    out.append(1000 * (float(s.obs[2]) - float(s.pipeline_state.mocap_pos[0][2])))
  return np.array(out)


r = np.array([1000 * (a - b) for a, b in ref[:20]])
print("ref ", np.round(r[[3, 5, 7, 8, 10, 12, 15]], 1))
for mass, tc, damp in [
  (1.0, 0.02, 1.0),
  (1.0, 0.025, 1.0),
  (1.0, 0.03, 1.0),
  (2.0, 0.02, 1.0),
  (3.0, 0.02, 1.0),
  (2.0, 0.025, 1.0),
  (1.0, 0.02, 0.7),
  (1.0, 0.025, 1.3),
  (1.0, 0.03, 1.5),
]:
  c = lagcurve(mass, tc, damp)
  print(
    mass,
    tc,
    damp,
    np.round(c[[3, 5, 7, 8, 10, 12, 15]], 1),
    "rms",
    round(float(np.sqrt(np.mean((c - r) ** 2))), 2),
  )

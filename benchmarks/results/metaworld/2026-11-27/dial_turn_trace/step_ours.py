import mjx_envs

import json

import jax
import jax.numpy as jnp

env = mjx_envs.make("metaworld/reach-v3", impl="c")
s = jax.jit(env.reset)(jax.random.PRNGKey(0))
step = jax.jit(env.step)
ref = json.load(open("/work/scratch/dial/step_ref.json"))
z0o, z0r = float(s.obs[2]), None
for t in range(40):
  s = step(s, jnp.array([0, 0, -1.0 if t < 8 else 0.0, 0.0]))
  if t in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 30, 39):
    print(
      t,
      f"ours hand-mocap {1000 * (float(s.obs[2]) - float(s.pipeline_state.mocap_pos[0][2])):6.2f} mm  ref {1000 * (ref[t][0] - ref[t][1]):6.2f} mm   hand drop ours {1000 * (z0o - float(s.obs[2])):6.2f} ref {1000 * (0.2 - ref[t][0]):6.2f}",
    )

"""MJX-JAX against C MuJoCo from the same state with the same actions (each family's test file uses it once:
the one MJX-JAX compile of that family in the default tier).

Both envs are built from the same config but `impl`; both reset from the same keys (the reset draws are
the same JAX code, so the start states agree to float32 rounding), then step the same random actions.
Returns the largest absolute difference per step of each observation entry, so a family's test states its
measured tolerance over a short horizon (contacts make longer horizons chaotic in both engines).
"""

import mjx_envs

import jax
import jax.numpy as jnp
import numpy as np


def _actions(env, key, batch):
  if hasattr(env, "random_action"):
    return jax.vmap(env.random_action)(jax.random.split(key, batch))
  return jax.random.uniform(key, (batch, env.action_size), minval=-1.0, maxval=1.0)


def rollout(env, batch: int, steps: int, seed: int = 0, action_fn=None):
  """obs pytrees [steps + 1, batch, ...] (as numpy) of a jitted scan of `env.step` from `env.reset`."""
  keys = jax.random.split(jax.random.PRNGKey(seed), batch)
  action_fn = action_fn or _actions

  @jax.jit
  def run(keys):
    state = jax.vmap(env.reset)(keys)

    def body(s, k):
      s = jax.vmap(env.step)(s, action_fn(env, k, batch))
      return s, (s.obs, s.info.get("diverged", jnp.zeros(batch)))

    _, (obs, div) = jax.lax.scan(body, state, jax.random.split(jax.random.PRNGKey(seed + 1), steps))
    return jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), state.obs, obs), div

  obs, div = run(keys)
  return jax.tree.map(np.asarray, obs), np.asarray(div)


def max_diff(name: str, batch: int = 4, steps: int = 10, seed: int = 0, action_fn=None, **overrides):
  """{obs key: [steps + 1] largest |jax - c|}, and the number of diverged world-steps in either."""
  c_obs, c_div = rollout(mjx_envs.make(name, impl="c", **overrides), batch, steps, seed, action_fn)
  j_obs, j_div = rollout(mjx_envs.make(name, impl="jax", **overrides), batch, steps, seed, action_fn)
  flat_c = c_obs if isinstance(c_obs, dict) else {"obs": c_obs}
  flat_j = j_obs if isinstance(j_obs, dict) else {"obs": j_obs}
  out = {}
  for k in flat_c:
    d = np.abs(flat_c[k].astype(np.float64) - flat_j[k].astype(np.float64))
    out[k] = d.reshape(d.shape[0], -1).max(-1)
  return out, int(c_div.sum() + j_div.sum())
